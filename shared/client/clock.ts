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
 * A sleep on a signal: one link of that signal's list of sleepers, all woken together when it
 * aborts (one 'abort' listener per signal, not one per sleep). Thousands of simulated agents
 * sleep a thousand times a second, each sleep living ten seconds, so whatever a sleep holds is
 * promoted to the old generation and collected there: a sleep is this object, its timer and
 * its promise, with no closures or hash-table entries of its own (an 'abort' listener apiece,
 * then a Set entry and three closures apiece, were most of what the agents promoted).
 */
class Sleeper {
  prev: Sleeper | undefined;
  next: Sleeper | undefined;
  /** realClock's timer (set directly: no cancel closure), or the cancel function of another clock's. */
  timer: NodeJS.Timeout | undefined;
  cancel: (() => void) | undefined;

  constructor(
    readonly resolve: () => void,
    readonly list: Sleepers,
  ) {}
}

/** The sleepers of one signal, a doubly linked list. */
class Sleepers {
  private head: Sleeper | undefined;

  add(sleeper: Sleeper): void {
    sleeper.next = this.head;
    if (this.head) this.head.prev = sleeper;
    this.head = sleeper;
  }

  remove(sleeper: Sleeper): void {
    if (sleeper.prev) sleeper.prev.next = sleeper.next;
    else if (this.head === sleeper) this.head = sleeper.next;
    if (sleeper.next) sleeper.next.prev = sleeper.prev;
    sleeper.prev = sleeper.next = undefined;
  }

  /** Cancels every sleeper's timer and resolves it. */
  wakeAll(): void {
    for (let sleeper = this.head; sleeper; sleeper = sleeper.next) {
      clearTimeout(sleeper.timer);
      sleeper.cancel?.();
      sleeper.resolve();
    }
    this.head = undefined;
  }
}

const sleepersBySignal = new WeakMap<AbortSignal, Sleepers>();

function sleepersOf(signal: AbortSignal): Sleepers {
  let sleepers = sleepersBySignal.get(signal);
  if (!sleepers) {
    const created = new Sleepers();
    signal.addEventListener('abort', () => created.wakeAll(), { once: true });
    sleepersBySignal.set(signal, (sleepers = created));
  }
  return sleepers;
}

/** A sleeper's timer ran out. */
function timerEnded(sleeper: Sleeper): void {
  sleeper.list.remove(sleeper);
  sleeper.resolve();
}

/** Resolves after `ms` on `clock`, or at once when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) {
      clock.after(ms, resolve);
      return;
    }
    if (signal.aborted) return resolve();
    const list = sleepersOf(signal);
    const sleeper = new Sleeper(resolve, list);
    if (clock === realClock && ms <= maxTimerMs) {
      sleeper.timer = setTimeout(timerEnded, Math.max(0, ms), sleeper);
      sleeper.timer.unref();
    } else {
      sleeper.cancel = clock.after(ms, () => timerEnded(sleeper));
    }
    list.add(sleeper);
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
