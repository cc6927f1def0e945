/**
 * The one polling helper of the tests: waits until a check holds, with a generous deadline that
 * only turns a hang into a failure (never a timing assertion; loaded 2-core machines are slow).
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** How long before giving up; default a minute. */
  timeoutMs?: number;
  /** Pause between checks; default 50 ms. */
  intervalMs?: number;
  /**
   * An error thrown by the check counts as "not yet" and the check runs again (the last error is
   * in the failure message); by default it fails the wait at once.
   */
  retryErrors?: boolean;
  /** More context for the failure message (the last state seen, a log tail), read when it fails. */
  detail?: () => string;
}

/** What a check returns while the condition does not hold yet. */
type NotYet = false | undefined | null;

function holds<T>(value: T | NotYet): value is Exclude<T, NotYet> {
  return value !== false && value !== undefined && value !== null;
}

/**
 * Runs `check` until it returns something other than false, undefined or null, and returns that
 * (a boolean check: true). Fails with "timed out after N ms waiting for <what>".
 */
export async function waitFor<T>(what: string, check: () => T | NotYet | Promise<T | NotYet>, options: WaitOptions = {}): Promise<Exclude<T, NotYet>> {
  const { timeoutMs = 60_000, intervalMs = 50, retryErrors = false, detail } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (holds(value)) return value;
    } catch (err) {
      if (!retryErrors) throw err;
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const last = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      const more = detail ? `\n${detail()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}${more}`);
    }
    await sleep(intervalMs);
  }
}
