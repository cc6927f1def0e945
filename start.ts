/**
 * `npm start`: a single-node control plane on this machine, with nothing else installed: one API
 * server on https://127.0.0.1:<secure-port> keeping its data in the embedded store
 * (`<data-dir>/db`), or in an etcd when --etcd-servers is given, and `<data-dir>/admin.kubeconfig`.
 * SIGINT or SIGTERM shuts it down gracefully; starting again on the same data dir resumes the same
 * cluster. Besides the three lines for people below, everything logged is JSON.
 *
 * Run as a program (`node dist/start.js`, or `node --import tsx start.ts` from source) it reads
 * process.argv; `corral start` (cli.ts) imports it and calls runStart instead.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { configFromFlags, flagsOrUsage } from './apiserver/config.ts';
import { startApiServer } from './apiserver/app.ts';
import { createLogger } from './apiserver/server/logging.ts';
import { keepRunningOnStrayErrors } from './shared/process/stray-errors.ts';
import { isProgram, runCommand } from './shared/process/program.ts';

/** What a single-node cluster on this machine needs that the apiserver command leaves off: nodes join with bootstrap tokens. */
const singleNodeDefaults = { 'enable-bootstrap-token-auth': 'true' };

/** The control plane for the flags `argv`; `command` is how usage messages name the command. */
async function main(argv: string[], command: string): Promise<void> {
  const values = flagsOrUsage(argv, command, singleNodeDefaults);
  if (!values) return;
  const dataDir = resolve(typeof values['data-dir'] === 'string' ? values['data-dir'] : '.corral');
  values['data-dir'] = dataDir;
  if (values['bind-address'] === '0.0.0.0') values['bind-address'] = '127.0.0.1';
  const config = configFromFlags(values);
  const logger = createLogger(config.logLevel, 'corral');
  keepRunningOnStrayErrors(logger);
  // Earlier versions ran an etcd child on <data-dir>/etcd; its data is not read any more.
  if (!config.etcdServers.length && existsSync(join(dataDir, 'etcd'))) {
    logger.warn(
      { etcdDataDir: join(dataDir, 'etcd') },
      'this data dir holds the etcd of an earlier corral, which npm start no longer runs: the cluster now starts from the embedded store in <data-dir>/db; to keep using that data, run etcd on it and pass --etcd-servers',
    );
  }
  const server = await startApiServer(config);
  process.stdout.write(
    `corral is running at ${server.url}\n` +
      `admin kubeconfig: ${server.kubeconfigPath}\n` +
      `try: kubectl --kubeconfig ${server.kubeconfigPath} get namespaces\n`,
  );
  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(1);
    stopping = true;
    server.shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/**
 * Starts the control plane for `argv` (the flags, without the command) and keeps the process
 * running until a signal stops it; a failure to start prints `Error: …` and exits 1.
 */
export function runStart(argv: string[], command: string): void {
  runCommand(() => main(argv, command));
}

if (isProgram(import.meta.url)) runStart(process.argv.slice(2), 'npm start --');
