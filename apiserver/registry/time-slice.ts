/**
 * Cooperative time slicing of a request's synchronous steps. A write of a few MiB (120,000 labels)
 * spends hundreds of milliseconds in steps that are each synchronous (ownership, validation,
 * encoding): run back to back they would hold the event loop, and every other client, for all of
 * that. Between steps the store asks its slice, which yields to the event loop once the work since
 * the last yield exceeds a budget, and costs nothing for the small requests that never reach it.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work of one turn after which a step boundary yields; well under the loop delay worth noticing. */
const defaultBudgetMs = 10;

export class TimeSlice {
  private turnStart = performance.now();

  constructor(private readonly budgetMs = defaultBudgetMs) {}

  /** At a step boundary: yields (after I/O waiting in the loop) when this turn has run past the budget. */
  async boundary(): Promise<void> {
    if (performance.now() - this.turnStart < this.budgetMs) return;
    await nextTurn();
    this.turnStart = performance.now();
  }
}
