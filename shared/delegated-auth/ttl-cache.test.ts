import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../client/clock.ts';
import { TtlCache } from './ttl-cache.ts';

describe('TtlCache', () => {
  it('forgets entries once their time has passed', () => {
    const clock = new FakeClock();
    const cache = new TtlCache<string>(clock);
    cache.set('a', 'x', 1000);
    clock.step(999);
    assert.equal(cache.get('a'), 'x');
    clock.step(1);
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.size, 0);
  });

  it('stores nothing for a TTL of 0', () => {
    const cache = new TtlCache<string>(new FakeClock());
    cache.set('a', 'x', 0);
    assert.equal(cache.get('a'), undefined);
  });

  it('drops the least recently used entry when full', () => {
    const cache = new TtlCache<string>(new FakeClock(), 2);
    cache.set('a', '1', 1000);
    cache.set('b', '2', 1000);
    cache.get('a');
    cache.set('c', '3', 1000);
    assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], ['1', undefined, '3']);
  });
});
