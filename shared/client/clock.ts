/**
 * Time as controllers see it. Every controller reads the time and sets timers through a Clock so
 * that tests can move time by hand (FakeClock) and assert what happens when a lease, a token or a
 * grace period runs out, without waiting and without timing assertions.
 */

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/** setTimeout's longest delay (2^31 - 1 ms, about 24.8 days); a longer one would fire at once. */
const maxTimerMs = 2 ** 31 - 1;

export const realClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    if (ms <= maxTimerMs) {
      const timer = setTimeout(fn, Math.max(0, ms));
      timer.unref();
      return () => clearTimeout(timer);
    }
    // A deadline beyond setTimeout's range waits in legs, so that a far requeue never fires early.
    const due = Date.now() + ms;
    let timer: NodeJS.Timeout;
    const arm = (): void => {
      const left = due - Date.now();
      timer = setTimeout(left > maxTimerMs ? arm : fn, Math.min(Math.max(0, left), maxTimerMs));
      timer.unref();
    };
    arm();
    return () => clearTimeout(timer);
  },
};

/**
 * `ms` stretched by up to `maxFactor` of itself at random (upstream's wait.Jitter): a loop of many
 * clients on one period waits this long, so that those a stall has bunched together drift apart
 * again rather than reach the server at the same moment on every round.
 */
export function jittered(ms: number, maxFactor: number, random: () => number = Math.random): number {
  return ms + random() * maxFactor * ms;
}

/**
 * The sleeps waiting on each signal, woken together when it aborts: one 'abort' listener per
 * signal, not one per sleep. Thousands of simulated agents sleep a thousand times a second, each
 * sleep living ten seconds, so what a sleep holds is promoted and collected again at that rate;
 * an EventTarget listener apiece was the largest part of it.
 */
const sleepers = new WeakMap<AbortSignal, Set<() => void>>();

function sleepersOf(signal: AbortSignal): Set<() => void> {
  let waiting = sleepers.get(signal);
  if (!waiting) {
    const created = new Set<() => void>();
    signal.addEventListener(
      'abort',
      () => {
        for (const wake of created) wake();
        created.clear();
      },
      { once: true },
    );
    sleepers.set(signal, (waiting = created));
  }
  return waiting;
}

/** Resolves after `ms` on `clock`, or at once when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) {
      clock.after(ms, resolve);
      return;
    }
    if (signal.aborted) return resolve();
    const waiting = sleepersOf(signal);
    const wake = (): void => {
      cancel();
      resolve();
    };
    const cancel = clock.after(ms, () => {
      waiting.delete(wake);
      resolve();
    });
    waiting.add(wake);
  });
}

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/** A clock that moves only when told to (`step`, `set`); timers fire in due order as it passes them. */
export class FakeClock implements Clock {
  private timers: Timer[] = [];
  private seq = 0;

  constructor(private current = Date.parse('2026-01-01T00:00:00Z')) {}

  now(): number {
    return this.current;
  }

  after(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way, in order. */
  step(ms: number): void {
    this.set(this.current + ms);
  }

  set(time: number): void {
    for (;;) {
      const due = this.timers.filter((t) => t.at <= time).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = time;
  }
}
