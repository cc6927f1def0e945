/**
 * Process-level handlers for errors that escaped every boundary of their own. A long-running
 * process serves many clients: one stray rejection or exception from a socket, a timer or a
 * library callback must not take all of them down. Requests have their own boundary (the API
 * server answers 500 for that request alone), so what arrives here is logged with its stack, as a
 * bug to fix, and the process keeps serving. Errors that leave the process in no state to go on
 * (out of memory, a failed assertion in Node itself) abort it before any handler runs.
 */
import type { Logger } from 'pino';

let installed = false;

/** Logs unhandled rejections and uncaught exceptions instead of exiting; once per process. */
export function keepRunningOnStrayErrors(logger: Logger): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));
  process.on('uncaughtException', (err, origin) => logger.error({ err, origin }, 'uncaught exception'));
}
