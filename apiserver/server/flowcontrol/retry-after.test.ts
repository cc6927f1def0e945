import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { maxRetryAfterSeconds, RetryAfterTracker } from './retry-after.ts';

describe('RetryAfterTracker', () => {
  it('starts at one second and keeps each level apart', () => {
    let now = 1_000_000;
    const tracker = new RetryAfterTracker(() => now);
    assert.equal(tracker.retryAfterSeconds('global-default'), 1);
    for (let i = 0; i < 10; i++) tracker.recordRejection('global-default');
    now += 1000;
    tracker.recordRejection('global-default');
    assert.equal(tracker.retryAfterSeconds('global-default'), 2);
    assert.equal(tracker.retryAfterSeconds('node-high'), 1);
  });

  it('doubles while rejections go on, up to 32, and comes down by one per quiet reconsideration', () => {
    let now = 1_000_000;
    const tracker = new RetryAfterTracker(() => now);
    const seen: number[] = [];
    for (let second = 0; second < 80; second++) {
      for (let i = 0; i < 100; i++) tracker.recordRejection('workload-low');
      seen.push(tracker.retryAfterSeconds('workload-low'));
      now += 1000;
    }
    assert.deepEqual([...new Set(seen)], [1, 2, 4, 8, 16, 32]);
    assert.equal(seen.at(-1), maxRetryAfterSeconds);
    // after a quiet spell, one rejection a second is fewer than the current value: it steps down
    const before = tracker.retryAfterSeconds('workload-low');
    now += 40_000;
    for (let second = 0; second < 5; second++) {
      tracker.recordRejection('workload-low');
      now += 1000;
    }
    assert.equal(tracker.retryAfterSeconds('workload-low'), before - 5);
  });
});
