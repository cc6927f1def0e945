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

test('a yield from an I/O callback resumes only after the loop has run its timers and polled again', async () => {
  const { readFile } = await import('node:fs/promises');
  // Resolves in an I/O callback (the poll phase), as a request body's last chunk arrives.
  await readFile(new URL(import.meta.url));
  let timerRan = false;
  setTimeout(() => (timerRan = true), 0);
  // Past the timer's due time (it is due after 1 ms), so that the next timers phase runs it.
  const start = performance.now();
  while (performance.now() - start < 3) {
    // busy: this turn's work
  }
  const slice = new TimeSlice(0);
  await slice.boundary();
  // One immediate would run in this iteration's check phase, before the timers phase.
  assert.ok(timerRan);
});

test("time the request spent suspended is not its turn's work; work across microtasks is", async () => {
  const busy = (ms: number): void => {
    const start = performance.now();
    while (performance.now() - start < ms) {
      // this turn's work
    }
  };
  const slice = new TimeSlice(5);
  // Waiting (an etcd call, a timer) moves the request to a later loop iteration: a new turn.
  await new Promise((resolve) => setTimeout(resolve, 20));
  await slice.boundary();
  assert.equal(slice.yields, 0);
  // Work split by awaits that resolve at once stays one turn.
  busy(3);
  await Promise.resolve();
  busy(3);
  await slice.boundary();
  assert.equal(slice.yields, 1);
});
