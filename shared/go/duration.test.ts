import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatGoDuration, parseGoDuration } from './duration.ts';

describe('parseGoDuration', () => {
  it('reads Go durations into milliseconds', () => {
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('60s'), 60_000);
    assert.equal(parseGoDuration('1m0s'), 60_000);
    assert.equal(parseGoDuration('1h30m'), 5_400_000);
    assert.equal(parseGoDuration('250ms'), 250);
    assert.equal(parseGoDuration('1.5s'), 1500);
    assert.equal(parseGoDuration('.5s'), 500);
    assert.equal(parseGoDuration('1500us'), 1.5);
    assert.equal(parseGoDuration('1500µs'), 1.5);
    assert.equal(parseGoDuration('2000000ns'), 2);
    assert.equal(parseGoDuration('-5s'), -5000);
    assert.equal(parseGoDuration('+5s'), 5000);
  });

  it('fails with Go messages', () => {
    assert.throws(() => parseGoDuration(''), { message: 'time: invalid duration ""' });
    assert.throws(() => parseGoDuration('abc'), { message: 'time: invalid duration "abc"' });
    assert.throws(() => parseGoDuration('.s'), { message: 'time: invalid duration ".s"' });
    assert.throws(() => parseGoDuration('10'), { message: 'time: missing unit in duration "10"' });
    assert.throws(() => parseGoDuration('1m10'), { message: 'time: missing unit in duration "1m10"' });
    assert.throws(() => parseGoDuration('10x'), { message: 'time: unknown unit "x" in duration "10x"' });
    assert.throws(() => parseGoDuration('10 s'), { message: 'time: unknown unit " s" in duration "10 s"' });
  });
});

describe('formatGoDuration', () => {
  it('prints as Go does', () => {
    assert.equal(formatGoDuration(0), '0s');
    assert.equal(formatGoDuration(60_000), '1m0s');
    assert.equal(formatGoDuration(10_000), '10s');
    assert.equal(formatGoDuration(5_400_000), '1h30m0s');
    assert.equal(formatGoDuration(1500), '1.5s');
    assert.equal(formatGoDuration(250), '250ms');
  });
});
