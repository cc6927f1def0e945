/**
 * End-to-end harness: N API server child processes on free loopback ports, on the embedded store
 * (one replica, the default of `npm start`) or on one etcd child process (replicas, or when asked),
 * all in one temporary directory under os.tmpdir(), with helpers to drive them through kubectl,
 * @kubernetes/client-node and raw HTTPS.
 *
 * A single replica runs on the embedded store unless the test asks for etcd (`storage: 'etcd'`) or
 * CORRAL_E2E_STORAGE=etcd runs every cluster on etcd; so the suites that do not need etcd itself
 * run on a machine without it. Those that do skip there (`skipUnlessEtcd`).
 *
 * Every replica gets the same --data-dir, so they share (and race to create) one PKI. A cluster is
 * torn down by `stop()`; clusters still running when the test process exits, or when it is told to
 * stop by SIGINT/SIGTERM, are killed and their directories removed, so a failing test never leaks
 * processes.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { startEtcd, type EtcdProcess } from '../shared/etcd/process.ts';
import { freePort } from '../shared/net/free-ports.ts';
import { waitFor } from '../apiserver/testing/wait-for.ts';

/** The repository root: where `apiserver/main.ts` and `start.ts` live. */
export const repoRoot = dirname(dirname(fileURLToPath(import.meta.url)));

/** How long a process (etcd, an API server, start.ts) may take to become ready on a loaded machine. */
export const START_TIMEOUT_MS = 60_000;
/** How long one kubectl invocation may take before it is killed. */
const KUBECTL_TIMEOUT_MS = 60_000;

/** Where a cluster keeps its data: the embedded store in its data dir, or an etcd child process. */
export type ClusterStorage = 'embedded' | 'etcd';

export interface ClusterOptions {
  /** Number of API server replicas (default 1). */
  replicas?: number;
  /**
   * The backend (default: the embedded store for one replica, etcd for more, which the embedded
   * store does not serve; CORRAL_E2E_STORAGE=etcd makes etcd the default for one replica too).
   */
  storage?: ClusterStorage;
  /** Extra flags for every replica, e.g. `--runtime-config=networking.k8s.io/v1alpha1=true`. */
  apiserverArgs?: string[];
  /** Extra flags of one replica (by index), after apiserverArgs, e.g. its own `--advertise-address`. */
  replicaArgs?: (index: number) => readonly string[];
  /** Static tokens, one CSV line each (`token,user,uid[,"groups"]`): written into the cluster's dir for --token-auth-file. */
  tokens?: readonly string[];
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A kubectl run that must succeed: its stdout (the assertion names the exit code and output otherwise). */
export function succeeded(result: CommandResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}):\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** A kubectl run that must fail: its stderr. */
export function failed(result: CommandResult): string {
  assert.notEqual(result.code, 0, `kubectl unexpectedly succeeded:\n${result.stdout}`);
  return result.stderr;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (for `-f -`). */
  input?: string;
  /** Which replica's kubeconfig to use (default 0). */
  replica?: number;
  /**
   * Other credentials than the admin kubeconfig's: a bearer token (`''`: none, an anonymous
   * request) or a client certificate and key (files).
   */
  credentials?: { token: string } | { certFile: string; keyFile: string };
}

export interface HttpRequest {
  method?: string;
  /** Path with query, e.g. `/api/v1/namespaces/default/configmaps?limit=1`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Which replica to call (default 0). */
  replica?: number;
  /** Present the admin client certificate (default true). */
  authenticate?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON; throws when it is not JSON. */
  json(): unknown;
}

export interface Replica {
  url: string;
  port: number;
  /** A kubeconfig whose server is this replica. */
  kubeconfig: string;
  child: ChildProcess;
  /** stdout and stderr of the replica. */
  logFile: string;
}

export interface Cluster {
  /** The temporary directory holding everything of this cluster. */
  dir: string;
  /** The API servers' shared --data-dir (PKI and admin.kubeconfig; the embedded store in `db/`). */
  dataDir: string;
  storage: ClusterStorage;
  /** The etcd of a cluster on etcd; reading it on the embedded store throws. */
  etcd: EtcdProcess;
  replicas: Replica[];
  /** Per replica, in order. */
  kubeconfigs: string[];
  urls: string[];
  /** PEM of the cluster CA (`<dataDir>/pki/ca.crt`). */
  caPem: string;
  kubectl(args: readonly string[], opts?: KubectlOptions): Promise<CommandResult>;
  /** A @kubernetes/client-node configuration for one replica (default 0). */
  kubeConfig(replica?: number): KubeConfig;
  /** One raw HTTPS request, trusting the cluster CA. */
  request(req: HttpRequest): Promise<HttpResponse>;
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Cleanup of whatever is still running when the process goes away.

const live = new Set<{ children: () => ChildProcess[]; dir: string }>();
let exitHooksInstalled = false;

/**
 * SIGTERM, not SIGKILL: this process cannot wait any more, and a start.ts child must still get the
 * chance to stop the etcd it started itself.
 */
function killEverythingNow(): void {
  for (const entry of live) {
    for (const child of entry.children()) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    }
    rmSync(entry.dir, { recursive: true, force: true });
  }
  live.clear();
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.once('exit', killEverythingNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killEverythingNow();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}

/** Registers processes (and a directory) to kill and remove if the test process ends first. */
export function registerCleanup(children: () => ChildProcess[], dir: string): () => void {
  installExitHooks();
  const entry = { children, dir };
  live.add(entry);
  return () => void live.delete(entry);
}

// ---------------------------------------------------------------------------------------------
// Processes.

/** Runs a command to completion; never rejects for a non-zero exit. */
export function run(
  command: string,
  args: readonly string[],
  opts: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd ?? repoRoot, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? KUBECTL_TIMEOUT_MS);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

/** Processes whose command line mentions `text` (a data dir, say), as `pid command` lines. */
export async function processesMentioning(text: string): Promise<string[]> {
  const result = await run('pgrep', ['-a', '-f', text]);
  return result.stdout.split('\n').filter(Boolean);
}

/** Waits for a child to exit, sending SIGTERM and, after `graceMs`, SIGKILL. */
export async function terminate(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------
// HTTPS.

export interface TlsMaterial {
  ca: string;
  cert?: string;
  key?: string;
}

/** The admin client certificate and the CA of a data dir, as node:https wants them. */
export function adminTls(dataDir: string): Required<TlsMaterial> {
  const pki = join(dataDir, 'pki');
  return {
    ca: readFileSync(join(pki, 'ca.crt'), 'utf8'),
    cert: readFileSync(join(pki, 'admin.crt'), 'utf8'),
    key: readFileSync(join(pki, 'admin.key'), 'utf8'),
  };
}

/** One HTTPS request over HTTP/1.1 to `url` + `req.path`, verifying the server against `tls.ca`. */
export function httpsCall(url: string, tls: TlsMaterial, req: Omit<HttpRequest, 'replica' | 'authenticate'>): Promise<HttpResponse> {
  const target = new URL(req.path, url);
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    const framed = Object.keys(headers).some((h) => ['content-length', 'transfer-encoding'].includes(h.toLowerCase()));
    if (body !== undefined && !framed) headers['content-length'] = String(body.length);
    const r = httpsRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method ?? 'GET',
        headers,
        ca: tls.ca,
        ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
        agent: false,
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as unknown });
        });
        res.once('error', reject);
      },
    );
    r.once('timeout', () => r.destroy(new Error(`request ${req.method ?? 'GET'} ${req.path} timed out`)));
    r.once('error', reject);
    // The server may answer (413) and close before the whole body is sent; the answer still counts.
    r.end(body);
  });
}

/** Polls `<url>/readyz` (verifying the server against the CA in `dataDir`) until it answers 200. */
export async function waitReady(url: string, dataDir: string, child: ChildProcess | undefined, timeoutMs = START_TIMEOUT_MS, describe = url): Promise<void> {
  const caFile = join(dataDir, 'pki', 'ca.crt');
  let last = 'no answer';
  await waitFor(
    `${describe} to be ready`,
    async () => {
      if (child && (child.exitCode !== null || child.signalCode !== null))
        throw new Error(`${describe} exited (${child.exitCode ?? child.signalCode}) before it was ready`);
      if (!existsSync(caFile)) return false;
      try {
        const res = await httpsCall(url, { ca: readFileSync(caFile, 'utf8') }, { path: '/readyz' });
        last = `${res.status} ${res.text}`;
        return res.status === 200;
      } catch (err) {
        last = err instanceof Error ? err.message : String(err);
        return false;
      }
    },
    { timeoutMs, intervalMs: 200, detail: () => `last answer: ${last}` },
  );
}

// ---------------------------------------------------------------------------------------------
// Kubeconfigs.

/** Writes a copy of `source` whose (every) cluster server is `server`. */
export function writeKubeconfigFor(source: string, server: string, target: string): string {
  const config = parseYaml(readFileSync(source, 'utf8')) as { clusters?: { cluster?: { server?: string } }[] };
  for (const entry of config.clusters ?? []) if (entry.cluster) entry.cluster.server = server;
  writeFileSync(target, toYaml(config, { lineWidth: 0 }));
  return target;
}

/** A @kubernetes/client-node configuration read from a kubeconfig file. */
export function kubeConfigFrom(file: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  return kc;
}

/**
 * Environment for kubectl: the given kubeconfig, and HOME inside the cluster's directory so that
 * discovery caches of earlier clusters on a reused port are never consulted.
 */
export function kubectlEnv(kubeconfig: string, home: string): NodeJS.ProcessEnv {
  return { ...process.env, KUBECONFIG: kubeconfig, HOME: home };
}

// ---------------------------------------------------------------------------------------------
// The cluster.

/** Attempts at starting one replica: a port found free can be taken by another process before the replica binds it. */
const PORT_ATTEMPTS = 3;

async function startReplica(
  index: number,
  etcd: EtcdProcess | undefined,
  dir: string,
  dataDir: string,
  args: readonly string[],
  track: (c: ChildProcess) => void,
): Promise<Replica> {
  const logFile = join(dir, `apiserver-${index}.log`);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const fd = openSync(logFile, 'a');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'apiserver/main.ts',
        ...(etcd ? ['--etcd-servers', etcd.endpoints.join(',')] : []),
        '--secure-port',
        String(port),
        '--bind-address',
        '127.0.0.1',
        '--data-dir',
        dataDir,
        ...args,
      ],
      { cwd: repoRoot, stdio: ['ignore', fd, fd] },
    );
    closeSync(fd);
    track(child);
    const url = `https://127.0.0.1:${port}`;
    try {
      await waitReady(url, dataDir, child, START_TIMEOUT_MS, `API server replica ${index}`);
    } catch (err) {
      const log = tail(logFile);
      if (attempt < PORT_ATTEMPTS && child.exitCode !== null && log.includes('EADDRINUSE')) continue;
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- ${logFile} ---\n${log}`);
    }
    const kubeconfig = writeKubeconfigFor(join(dataDir, 'admin.kubeconfig'), url, join(dir, `replica-${index}.kubeconfig`));
    return { url, port, kubeconfig, child, logFile };
  }
}

/** The backend of a cluster that did not choose one. */
function defaultStorage(replicas: number): ClusterStorage {
  return replicas > 1 || process.env.CORRAL_E2E_STORAGE === 'etcd' ? 'etcd' : 'embedded';
}

/** Starts etcd (unless on the embedded store) and `replicas` API servers at the same moment, and waits until every one is ready. */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const replicaCount = opts.replicas ?? 1;
  const storage = opts.storage ?? defaultStorage(replicaCount);
  if (storage === 'embedded' && replicaCount > 1) throw new Error('startCluster: the embedded store serves one API server; replicas need storage: etcd');
  const dir = mkdtempSync(join(tmpdir(), 'corral-e2e-'));
  const dataDir = join(dir, 'data');
  const children: ChildProcess[] = [];
  const unregister = registerCleanup(() => children, dir);
  let etcd: EtcdProcess | undefined;
  let stopped = false;

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    const servers = children.filter((c) => c !== etcd?.child);
    await Promise.all(servers.map((c) => terminate(c)));
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
    unregister();
  };

  try {
    const args = [...(opts.apiserverArgs ?? [])];
    if (opts.tokens) {
      const tokenFile = join(dir, 'tokens.csv');
      writeFileSync(tokenFile, `${opts.tokens.join('\n')}\n`);
      args.push(`--token-auth-file=${tokenFile}`);
    }
    if (storage === 'etcd') {
      etcd = await startEtcd({ dataDir: join(dir, 'etcd') });
      children.push(etcd.child);
    }
    const started = await Promise.allSettled(
      Array.from({ length: replicaCount }, (_, i) => startReplica(i, etcd, dir, dataDir, [...args, ...(opts.replicaArgs?.(i) ?? [])], (c) => children.push(c))),
    );
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const replicas = started.map((s) => (s as PromiseFulfilledResult<Replica>).value);
    const tls = adminTls(dataDir);
    const caFile = join(dir, 'ca.crt');
    writeFileSync(caFile, tls.ca);
    const replicaAt = (i: number | undefined): Replica => {
      const r = replicas[i ?? 0];
      if (!r) throw new Error(`no replica ${i}`);
      return r;
    };
    const etcdOfCluster = etcd;
    return {
      dir,
      dataDir,
      storage,
      get etcd(): EtcdProcess {
        if (!etcdOfCluster) throw new Error('this cluster runs on the embedded store: startCluster({ storage: "etcd" }) for one on etcd');
        return etcdOfCluster;
      },
      replicas,
      kubeconfigs: replicas.map((r) => r.kubeconfig),
      urls: replicas.map((r) => r.url),
      caPem: tls.ca,
      kubectl: (args, kopts = {}) => {
        const input = kopts.input !== undefined ? { input: kopts.input } : {};
        const { credentials } = kopts;
        if (!credentials) return run('kubectl', args, { env: kubectlEnv(replicaAt(kopts.replica).kubeconfig, dir), ...input });
        const given =
          'token' in credentials
            ? credentials.token
              ? ['--token', credentials.token]
              : []
            : ['--client-certificate', credentials.certFile, '--client-key', credentials.keyFile];
        // No kubeconfig: nothing of the admin's may leak into the request.
        return run('kubectl', ['--server', replicaAt(kopts.replica).url, '--certificate-authority', caFile, ...given, ...args], {
          env: kubectlEnv('/dev/null', dir),
          ...input,
        });
      },
      kubeConfig: (i) => kubeConfigFrom(replicaAt(i).kubeconfig),
      request: (req) => httpsCall(replicaAt(req.replica).url, req.authenticate === false ? { ca: tls.ca } : tls, req),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
