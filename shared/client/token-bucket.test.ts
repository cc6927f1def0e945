import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBucket } from './token-bucket.ts';

describe('token bucket', () => {
  it('starts full and refills at qps, exactly', () => {
    const bucket = new TokenBucket(0.1, 1, 0);
    assert.equal(bucket.tryAccept(0), true);
    assert.equal(bucket.tryAccept(0), false);
    for (let t = 1000; t < 10_000; t += 1000) assert.equal(bucket.tryAccept(t), false);
    assert.equal(bucket.waitMs(9_000), 1_000);
    assert.equal(bucket.tryAccept(10_000), true);
  });

  it('holds at most burst tokens', () => {
    const bucket = new TokenBucket(1, 2, 0);
    assert.equal(bucket.tryAccept(100_000), true);
    assert.equal(bucket.tryAccept(100_000), true);
    assert.equal(bucket.tryAccept(100_000), false);
    assert.equal(bucket.waitMs(100_000), 1_000);
  });

  it('never grants at rate 0', () => {
    const bucket = new TokenBucket(0, 1, 0);
    assert.equal(bucket.tryAccept(1e12), false);
    assert.equal(bucket.waitMs(0), undefined);
  });

  it('reserves tokens in order, each waiting for its own (client-go Wait)', () => {
    const bucket = new TokenBucket(10, 2, 0);
    assert.deepEqual(
      [0, 0, 0, 0].map(() => bucket.reserve(0)),
      [0, 0, 100, 200],
    );
    assert.equal(bucket.reserve(1_000), 0);
  });
});
