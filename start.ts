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
import { configFromFlags, flags as apiServerFlags, usageTrailer } from './apiserver/config.ts';
import { startApiServer, type RunningApiServer } from './apiserver/app.ts';
import { pkiPaths } from './apiserver/auth/pki-setup.ts';
import { createLogger } from './apiserver/server/logging.ts';
import { flags as controllerManagerFlags } from './controllers/config.ts';
import { controllerManagerConfig } from './controllers/main.ts';
import { startControllerManager, type RunningControllerManager } from './controllers/manager.ts';
import { flagsOrUsage, parseFlagTable, withDefaults, type FlagSpec } from './shared/process/flags.ts';
import { keepRunningOnStrayErrors } from './shared/process/stray-errors.ts';
import { isProgram, runCommand, stopOnSignals } from './shared/process/program.ts';
import type { Logger } from 'pino';

/** What a single-node cluster on this machine needs that the apiserver command leaves off: nodes join with bootstrap tokens. */
const singleNodeDefaults = { 'enable-bootstrap-token-auth': 'true' };

/** npm start's own flags, beside the API server's. */
const startFlags: Record<string, FlagSpec> = {
  'controller-manager-secure-port': {
    type: 'string',
    default: '0',
    help: "HTTPS port of the controller manager's /healthz and /metrics (kube-controller-manager's is 10257); 0 serves none.",
  },
  controllers: {
    type: 'string',
    default: '*,bootstrapsigner,tokencleaner',
    help: "Controllers the controller manager runs ('*' the default ones, 'foo', '-foo'); '-*' alone runs none. kubeadm's selection by default.",
  },
};

/** The control plane for the flags `argv`; `command` is how usage messages name the command. */
async function main(argv: string[], command: string): Promise<void> {
  const values = flagsOrUsage(argv, command, { ...withDefaults(apiServerFlags, singleNodeDefaults), ...startFlags }, usageTrailer());
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
      'this data dir holds the etcd of an earlier corral, which npm start no longer runs: the cluster now starts from the embedded store in <data-dir>/db; to keep using that data, run etcd on it and pass --etcd-servers, or copy it into the embedded store with corral migrate (README: Migrating between the embedded store and etcd)',
    );
  }
  const server = await startApiServer(config);
  // Signals are handled from here on: a SIGTERM while the controller manager starts still shuts down gracefully.
  let controllers: Promise<RunningControllerManager | undefined> = Promise.resolve(undefined);
  stopOnSignals(
    async () => {
      await (await controllers.catch(() => undefined))?.stop();
      await server.shutdown();
    },
    (err) => logger.error({ err }, 'shutdown failed'),
  );
  controllers = startControllers(server, dataDir, values, logger);
  try {
    await controllers;
  } catch (err) {
    await server.close();
    throw err;
  }
  process.stdout.write(
    `corral is running at ${server.url}\n` +
      `admin kubeconfig: ${server.kubeconfigPath}\n` +
      `try: kubectl --kubeconfig ${server.kubeconfigPath} get namespaces\n`,
  );
}

/**
 * The controller manager beside the API server, in this process, as kubeadm configures it: its
 * own identity (controller-manager.kubeconfig), each controller as its service account, the
 * cluster CA signing certificates, the bootstrap token controllers on.
 */
function startControllers(
  server: RunningApiServer,
  dataDir: string,
  values: Record<string, string | boolean | undefined>,
  logger: Logger,
): Promise<RunningControllerManager> {
  const pki = pkiPaths(dataDir);
  const argv = [
    `--kubeconfig=${server.controllerManagerKubeconfigPath}`,
    `--controllers=${String(values['controllers'])}`,
    `--cluster-signing-cert-file=${pki.caCert}`,
    `--cluster-signing-key-file=${pki.caKey}`,
    '--use-service-account-credentials=true',
    `--secure-port=${String(values['controller-manager-secure-port'])}`,
    '--bind-address=127.0.0.1',
  ];
  const config = controllerManagerConfig(parseFlagTable(argv, controllerManagerFlags));
  return startControllerManager(config, logger.child({ component: 'controller-manager' }));
}

/**
 * Starts the control plane for `argv` (the flags, without the command) and keeps the process
 * running until a signal stops it; a failure to start prints `Error: …` and exits 1.
 */
export function runStart(argv: string[], command: string): void {
  runCommand(() => main(argv, command));
}

if (isProgram(import.meta.url)) runStart(process.argv.slice(2), 'npm start --');
