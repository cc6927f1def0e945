/**
 * What every process entry point (start.ts, apiserver/main.ts, controllers/main.ts) shares:
 * telling whether node was started with the module as its program (rather than cli.ts importing
 * it), running a command so that a failure to start prints `Error: …` and exits 1, and stopping
 * gracefully on a signal.
 */
import { existsSync, realpathSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useSmallBufferPool } from './buffer-pool.ts';

/** Whether node's program (argv[1]) is the module at `moduleUrl` (its `import.meta.url`). */
export function isProgram(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  // node resolves symlinks in the program path, so the module's URL holds the real path; it also
  // accepts the program without its extension (`node dist/start`).
  const self = fileURLToPath(moduleUrl);
  const program = existsSync(script) ? realpathSync(script) : resolve(script);
  return program === self || program + extname(self) === self;
}

/**
 * Runs a command's start-up; a failure prints `Error: <message>` and exits 1. Every command runs
 * with the small Buffer pool (buffer-pool.ts).
 */
export function runCommand(start: () => Promise<void>): void {
  useSmallBufferPool();
  start().catch((err: unknown) => {
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

/**
 * On SIGINT or SIGTERM runs `stop` (a graceful shutdown) and exits 0 once it is done, 1 if it
 * fails (reported through `onError`); a second signal exits at once with 1.
 */
export function stopOnSignals(stop: () => Promise<void>, onError: (err: unknown) => void): void {
  let stopping = false;
  const handle = (): void => {
    if (stopping) process.exit(1);
    stopping = true;
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        onError(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}
