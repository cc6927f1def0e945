/**
 * Long computations written as steps. A computation over a large object (ownership of 150,000
 * labels) is a generator that yields between its passes: each stretch between two yields is about
 * one linear pass over the object. Run with `runSteps` it is an ordinary synchronous function; run
 * with `runStepsYielding` its caller decides at every yield whether to let the event loop run
 * (a server does, so that one request never holds every other client for the whole computation).
 * One implementation serves both, so the two can never compute different results.
 *
 * A step function is written `function* name(...): Steps<T>` and calls other step functions with
 * `yield*`; errors propagate as they would from plain calls. Its loops over arrays are indexed, not
 * `for...of`: an array iterator that may live across a yield is not optimized away in a generator,
 * and costs about a third more per entry than the indexed loop (measured on Node 20), on every write.
 */

/** A computation that yields (nothing) between its passes and returns a T. */
export type Steps<T> = Generator<void, T, undefined>;

/** Runs every step at once. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs the steps, awaiting `boundary` between every two of them. */
export async function runStepsYielding<T>(steps: Steps<T>, boundary: () => Promise<void>): Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await boundary();
  }
}

/**
 * Entries a walk visits between two of its yields: about a millisecond of work on a large map, so
 * that a caller's slice (which yields only once its own budget is spent) can cut anywhere.
 */
export const entriesPerStep = 1024;

/**
 * Counts the entries (map entries, list items, set members) one walk visits, so that a walk over a
 * large value can yield every `entriesPerStep` of them wherever they lie: one counter per walk,
 * shared by every level of it. A walk checks it per entry (`if (work.tick()) yield;`).
 */
export class WorkCounter {
  private count = 0;

  /** Counts `n` entries; true once a step's worth has been counted since it last said true. */
  tick(n = 1): boolean {
    this.count += n;
    if (this.count < entriesPerStep) return false;
    this.count = 0;
    return true;
  }
}
