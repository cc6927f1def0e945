import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { FakeClock, realClock, sleep } from './clock.ts';

describe('sleep', () => {
  it('resolves once the clock passes the wait, not before', async () => {
    const clock = new FakeClock();
    let woke = false;
    const slept = sleep(clock, 1_000, new AbortController().signal).then(() => (woke = true));
    clock.step(999);
    await Promise.resolve();
    assert.equal(woke, false);
    clock.step(1);
    await slept;
    assert.equal(clock.pending, 0);
  });

  it('wakes every sleeper of a signal when it aborts, cancelling their timers, with one listener on the signal', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const sleeps = [sleep(clock, 10_000, controller.signal), sleep(clock, 20_000, controller.signal), sleep(clock, 30_000, controller.signal)];
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
    assert.equal(clock.pending, 3);
    controller.abort();
    await Promise.all(sleeps);
    assert.equal(clock.pending, 0);
  });

  it('forgets a sleeper whose wait ended, so that an abort later wakes only those still asleep', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const first = sleep(clock, 1_000, controller.signal);
    clock.step(1_000);
    await first;
    const second = sleep(clock, 5_000, controller.signal);
    controller.abort();
    await second;
    assert.equal(clock.pending, 0);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('forgets a sleeper in the middle of the list whose wait ended, and wakes the rest on abort', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const woke: number[] = [];
    const sleeps = [10_000, 5_000, 30_000].map((ms) => sleep(clock, ms, controller.signal).then(() => woke.push(ms)));
    clock.step(5_000);
    await sleeps[1];
    assert.deepEqual(woke, [5_000]);
    controller.abort();
    await Promise.all(sleeps);
    assert.deepEqual(
      woke.sort((a, b) => a - b),
      [5_000, 10_000, 30_000],
    );
    assert.equal(clock.pending, 0);
  });

  it('on the real clock: a short sleep ends on its timer; a long one ends at once when its signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    // realClock's sleeps do not hold the process open (with nothing else to wait for, the test's own
    // process would end under it): this timer does, for the test's length.
    const holdOpen = setTimeout(() => {}, 30_000);
    try {
      await sleep(realClock, 5, controller.signal);
      const long = sleep(realClock, 60_000, controller.signal);
      controller.abort();
      await long;
    } finally {
      clearTimeout(holdOpen);
    }
    assert.ok(Date.now() - started < 30_000, 'the long sleep did not wait for its timer');
  });

  it('resolves at once on a signal already aborted, setting no timer', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    controller.abort();
    await sleep(clock, 60_000, controller.signal);
    assert.equal(clock.pending, 0);
  });

  it('sleeps without a signal', async () => {
    const clock = new FakeClock();
    const slept = sleep(clock, 50);
    clock.step(50);
    await slept;
  });
});

describe('realClock', () => {
  it('fires a timer after its delay, and not once cancelled', async () => {
    const fired: string[] = [];
    const cancel = realClock.after(5, () => fired.push('cancelled'));
    cancel();
    realClock.after(10, () => fired.push('fired'));
    // realClock's timers do not hold the process open: this one does, past both.
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.deepEqual(fired, ['fired']);
  });

  it("cancels a wait beyond setTimeout's range (which would otherwise fire at once)", async () => {
    let fired = false;
    const cancel = realClock.after(2 ** 31 + 1_000, () => (fired = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(fired, false);
    cancel();
  });
});
