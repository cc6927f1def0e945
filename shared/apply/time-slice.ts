/**
 * Cooperative time slicing of a request's synchronous steps. A write of a few MiB (120,000 labels)
 * spends hundreds of milliseconds in steps that are each synchronous (decoding, ownership,
 * validation, encoding): run back to back they would hold the event loop, and every other client,
 * for all of that. One slice serves one request from its first step (decoding the body) to its
 * last; between steps the request asks its slice, which yields to the event loop once the work
 * since the last yield exceeds a budget, and costs nothing for the small requests that never
 * reach it.
 *
 * A turn is the request's own work since it last resumed: time the request spent suspended (its
 * etcd call, its body still arriving, other clients served meanwhile) is not its work. Counting it
 * made nearly every request yield at its first boundary after a wait, which under load costs a
 * whole loop iteration each, so the busier the server the slower every request, even the smallest.
 * A request that was suspended has crossed into a later loop iteration, which `LoopIterations`
 * notices; its turn then starts at its first look at the clock in that iteration.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { runStepsYielding, type Steps } from './steps.ts';

/** Work of one turn after which a step boundary yields; well under the loop delay worth noticing. */
const defaultBudgetMs = 10;

/**
 * Tells loop iterations apart, cheaply: the count advances in the check phase of any iteration in
 * which someone asked for it (one immediate per such iteration, none while nobody asks).
 */
class LoopIterations {
  private count = 0;
  private advancing = false;

  current(): number {
    if (!this.advancing) {
      this.advancing = true;
      setImmediate(() => {
        this.count++;
        this.advancing = false;
      });
    }
    return this.count;
  }
}

const iterations = new LoopIterations();

export class TimeSlice {
  private turnStart: number;
  /** The loop iteration of the turn, to tell a resumed request from one still running. */
  private turnIteration: number;
  /** How many times this slice has let the event loop run. */
  yields = 0;

  constructor(
    private readonly budgetMs = defaultBudgetMs,
    /** Milliseconds from any origin; injected by tests. */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.turnStart = now();
    this.turnIteration = iterations.current();
  }

  /** Whether this turn has run past the budget: a boundary now would yield (for loops that check often). */
  get due(): boolean {
    const iteration = iterations.current();
    if (iteration !== this.turnIteration) {
      // Resumed since the last look: a new turn, whatever the wall clock says.
      this.turnIteration = iteration;
      this.turnStart = this.now();
      return false;
    }
    return this.now() - this.turnStart >= this.budgetMs;
  }

  /**
   * At a step boundary: yields when this turn has run past the budget, and resumes only after the
   * loop has polled for I/O. One immediate is not enough: scheduled from an I/O callback (a request
   * body's last chunk) it runs in the check phase of the same loop iteration, before any other
   * client's I/O, so two steps would hold the loop as one. The second immediate is scheduled from
   * the check phase, which runs it only after the next poll.
   */
  async boundary(): Promise<void> {
    if (!this.due) return;
    await nextTurn();
    await nextTurn();
    this.yields++;
    this.turnStart = this.now();
    this.turnIteration = iterations.current();
  }

  /** Runs `steps` (steps.ts) with a boundary between every two of them. */
  run<T>(steps: Steps<T>): Promise<T> {
    return runStepsYielding(steps, () => this.boundary());
  }
}
