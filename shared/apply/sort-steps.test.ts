import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sortSteps } from './sort-steps.ts';
import { WorkCounter, entriesPerStep, type Steps } from './steps.ts';

/** Runs steps to the end, counting the yields. */
function drain<T>(steps: Steps<T>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const next = steps.next();
    if (next.done) return { value: next.value, yields };
    yields++;
  }
}

test('sortSteps sorts as Array.prototype.sort, stably, and yields on a large array', () => {
  // Pairs sorted by their first half only: equal keys keep their order (stability).
  const items = Array.from({ length: 5000 }, (_, i) => [(i * 7919) % 613, i] as const);
  const byKey = (a: readonly [number, number], b: readonly [number, number]): number => a[0] - b[0];
  const expected = [...items].sort(byKey);
  const { value, yields } = drain(sortSteps([...items], byKey, new WorkCounter()));
  assert.deepEqual(value, expected);
  assert.ok(yields >= Math.floor(items.length / entriesPerStep), `yields: ${yields}`);
});

test('sortSteps sorts small arrays at once, without yielding', () => {
  const { value, yields } = drain(sortSteps([3, 1, 2], (a, b) => a - b, new WorkCounter()));
  assert.deepEqual(value, [1, 2, 3]);
  assert.equal(yields, 0);
});
