/**
 * The controller manager as an e2e test runs it: a child process (`controllers/main.ts`) against
 * one replica of a harness cluster, as system:kube-controller-manager through the kubeconfig the
 * API server writes, each controller under its service account identity, signing with the cluster
 * CA, its endpoint on a free port. Killed with the cluster's processes if the test process ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { freePort } from '../shared/net/free-ports.ts';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { registerCleanup, repoRoot, START_TIMEOUT_MS, terminate, writeKubeconfigFor, type Cluster } from './harness.ts';

export interface ControllerManagerProcess {
  child: ChildProcess;
  /** Port of its /healthz and /metrics. */
  port: number;
  logFile: string;
  /** The log so far. */
  log(): string;
  /** GET on its endpoint (self-signed: not verified), with an optional bearer token. */
  get(path: string, token?: string): Promise<{ status: number; text: string }>;
  /** SIGTERM and wait (graceful: the lease is released). */
  stop(): Promise<void>;
  /** SIGKILL: no chance to release anything. */
  kill(): void;
}

export interface ControllerManagerOptions {
  /** Extra flags, e.g. `--controllers=*,tokencleaner` or short leader-election timings. */
  args?: readonly string[];
  /** The API server replica it talks to (default 0). */
  replica?: number;
  /** Distinguishes the files of several managers of one cluster (default 0). */
  index?: number;
}

export async function startControllerManager(cluster: Cluster, opts: ControllerManagerOptions = {}): Promise<ControllerManagerProcess> {
  const index = opts.index ?? 0;
  const replica = cluster.replicas[opts.replica ?? 0];
  if (!replica) throw new Error(`no replica ${opts.replica}`);
  const kubeconfig = writeKubeconfigFor(
    join(cluster.dataDir, 'controller-manager.kubeconfig'),
    replica.url,
    join(cluster.dir, `controller-manager-${index}.kubeconfig`),
  );
  const port = await freePort();
  const logFile = join(cluster.dir, `controller-manager-${index}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'controllers/main.ts',
      `--kubeconfig=${kubeconfig}`,
      `--cluster-signing-cert-file=${join(cluster.dataDir, 'pki', 'ca.crt')}`,
      `--cluster-signing-key-file=${join(cluster.dataDir, 'pki', 'ca.key')}`,
      '--use-service-account-credentials=true',
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      ...(opts.args ?? []),
    ],
    { cwd: repoRoot, stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  const unregister = registerCleanup(() => [child], cluster.dir);
  const get = (path: string, token?: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end();
    });
  const log = (): string => readFileSync(logFile, 'utf8');
  await waitFor(
    `controller manager ${index} to serve /healthz`,
    async () => {
      if (child.exitCode !== null) throw new Error(`the controller manager exited (${child.exitCode}):\n${log()}`);
      return (await get('/healthz').catch(() => ({ status: 0 }))).status === 200;
    },
    { timeoutMs: START_TIMEOUT_MS, intervalMs: 200 },
  );
  return {
    child,
    port,
    logFile,
    log,
    get,
    async stop() {
      await terminate(child);
      unregister();
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
}
