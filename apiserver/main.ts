/**
 * One API server replica: flags → config → start. SIGTERM or SIGINT starts a graceful shutdown
 * (see RunningApiServer.shutdown) and the process exits 0 once it is done; a second signal exits
 * at once with 1.
 *
 * Run as a program (`node dist/apiserver/main.js`, or `node --import tsx apiserver/main.ts` from
 * source) it reads process.argv; `corral apiserver` (cli.ts) imports it and calls runApiServer instead.
 */
import { configFromFlags, flagsOrUsage } from './config.ts';
import { startApiServer } from './app.ts';
import { createLogger } from './server/logging.ts';
import { keepRunningOnStrayErrors } from '../shared/process/stray-errors.ts';
import { isProgram, runCommand, stopOnSignals } from '../shared/process/program.ts';

/** One replica for the flags `argv`; `command` is how usage messages name the command. */
async function main(argv: string[], command: string): Promise<void> {
  const values = flagsOrUsage(argv, command);
  if (!values) return;
  const config = configFromFlags(values);
  const logger = createLogger(config.logLevel, 'apiserver');
  keepRunningOnStrayErrors(logger);
  const server = await startApiServer(config, logger);
  process.stdout.write(`corral API server listening on ${server.url}\nadmin kubeconfig: ${server.kubeconfigPath}\n`);
  stopOnSignals(
    () => server.shutdown(),
    (err) => process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`),
  );
}

/**
 * Starts a replica for `argv` (the flags, without the command) and keeps the process running until
 * a signal stops it; a failure to start prints `Error: …` and exits 1.
 */
export function runApiServer(argv: string[], command: string): void {
  runCommand(() => main(argv, command));
}

if (isProgram(import.meta.url)) runApiServer(process.argv.slice(2), 'npm run apiserver --');
