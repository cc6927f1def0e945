import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimeSlice } from './time-slice.ts';

test('a boundary yields once the turn has run past the budget, and the next turn starts afresh', async () => {
  let clock = 0;
  const slice = new TimeSlice(10, () => clock);
  clock = 9;
  await slice.boundary();
  assert.equal(slice.yields, 0);
  clock = 10;
  let ranMeanwhile = false;
  setImmediate(() => (ranMeanwhile = true));
  await slice.boundary();
  assert.equal(slice.yields, 1);
  // A yield lets the loop run what was waiting: I/O, timers, immediates.
  assert.ok(ranMeanwhile);
  clock = 19;
  await slice.boundary();
  assert.equal(slice.yields, 1);
  clock = 20;
  await slice.boundary();
  assert.equal(slice.yields, 2);
});
