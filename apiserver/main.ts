/**
 * One API server replica: flags → config → start. SIGTERM or SIGINT starts a graceful shutdown
 * (see RunningApiServer.shutdown) and the process exits 0 once it is done; a second signal exits
 * at once with 1.
 */
import { configFromFlags, flagsOrUsage } from './config.ts';
import { startApiServer } from './app.ts';
import { createLogger } from './server/logging.ts';
import { keepRunningOnStrayErrors } from '../shared/process/stray-errors.ts';

async function main(): Promise<void> {
  const values = flagsOrUsage(process.argv.slice(2), 'npm run apiserver --');
  if (!values) return;
  const config = configFromFlags(values);
  const logger = createLogger(config.logLevel, 'apiserver');
  keepRunningOnStrayErrors(logger);
  const server = await startApiServer(config, logger);
  process.stdout.write(`corral API server listening on ${server.url}\nadmin kubeconfig: ${server.kubeconfigPath}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(1);
    stopping = true;
    server.shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
