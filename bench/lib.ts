/**
 * Shared machinery of the benchmarks: a fixed-concurrency load loop with per-operation latencies,
 * HTTPS clients shaped like real Kubernetes clients, an API server child process, per-process CPU
 * and memory readings, table printing, and a CPU profile summary that maps tsx-transpiled
 * positions back to the TypeScript sources.
 *
 * Benchmarks print figures; they never assert timings.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { connect as connectHttp2, type ClientHttp2Session, type IncomingHttpHeaders, type IncomingHttpStatusHeader } from 'node:http2';
import { Agent, request as httpsRequest } from 'node:https';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Http2Windows } from '../shared/client/connection.ts';
import { freePort } from '../shared/net/free-ports.ts';
import { poolSizeFlag, sharedHostNodeFlags } from '../shared/process/shared-host.ts';

/** The repository root (this file lives in `<root>/bench`). */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

// ---------------------------------------------------------------------------------------------
// Load loop and statistics

export interface PoolResult {
  /** Operations attempted. */
  total: number;
  errors: number;
  firstError: string | undefined;
  elapsedMs: number;
  /** Latency of every attempted operation, in milliseconds, indexed by operation number. */
  latenciesMs: Float64Array;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Runs `op(0) … op(total - 1)` with exactly `concurrency` operations in flight (until fewer remain).
 * A failed operation counts as an error and the loop goes on; it never throws.
 */
export async function runPool(total: number, concurrency: number, op: (i: number) => Promise<void>): Promise<PoolResult> {
  const latenciesMs = new Float64Array(total);
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < total; i = next++) {
      const t0 = performance.now();
      try {
        await op(i);
      } catch (err) {
        errors++;
        firstError ??= errorText(err);
      }
      latenciesMs[i] = performance.now() - t0;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, worker));
  return { total, errors, firstError, elapsedMs: performance.now() - start, latenciesMs };
}

export interface Summary {
  /** Successful operations per second of wall time. */
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
}

/** The value at quantile `q` (0..1) of ascending `sorted`, nearest-rank. */
export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(result: PoolResult): Summary {
  const sorted = Float64Array.from(result.latenciesMs).sort();
  return {
    opsPerSec: ((result.total - result.errors) * 1000) / result.elapsedMs,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
    errors: result.errors,
  };
}

// ---------------------------------------------------------------------------------------------
// Tables

/** Right-aligns every column but the first; a cell `|` becomes a column separator. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  const line = (r: readonly string[]): string =>
    r
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function fixed(n: number, digits: number): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

/** `bytes` in MiB, one decimal. */
export function mib(bytes: number): string {
  return `${fixed(bytes / (1 << 20), 1)} MiB`;
}

/** `load average 1.0 0.8 0.5 at start`, for report headers. */
export function loadAverageAtStart(load: readonly number[]): string {
  return `load average ${load.map((l) => fixed(l, 1)).join(' ')} at start`;
}

// ---------------------------------------------------------------------------------------------
// Objects

/** ConfigMap data of `bytes` bytes in 256-byte values, random so that nothing compresses it away. */
export function configMapData(bytes: number): Record<string, string> {
  const data: Record<string, string> = {};
  const text = randomBytes(bytes).toString('base64url').slice(0, bytes);
  for (let i = 0; i * 256 < bytes; i++) data[`key-${i}`] = text.slice(i * 256, (i + 1) * 256);
  return data;
}

/** A ConfigMap create or update body, labelled `app: corral-bench`. */
export function configMapBody(name: string, data: Record<string, string>, annotations?: Record<string, string>): Buffer {
  return Buffer.from(
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'corral-bench' }, ...(annotations ? { annotations } : {}) }, data }),
  );
}

// ---------------------------------------------------------------------------------------------
// HTTPS clients

export interface ClientTls {
  ca: string;
  cert: string;
  key: string;
}

export interface HttpResult {
  status: number;
  body: Buffer;
  /** The response's content-type header, when it had one. */
  contentType?: string;
}

/** Request headers that replace the defaults (`accept: application/json`, and a JSON content-type for a body). */
export type RequestHeaders = Readonly<Record<string, string>>;

export interface HttpClient {
  request(method: string, path: string, body?: Buffer, headers?: RequestHeaders): Promise<HttpResult>;
  close(): Promise<void>;
}

/** Opens an HTTP/2 session with the client's TLS credentials and, if given, its receive windows. */
export function connectHttp2Session(url: string, tls: ClientTls, windows?: Http2Windows): ClientHttp2Session {
  const session = connectHttp2(url, {
    ca: tls.ca,
    cert: tls.cert,
    key: tls.key,
    ...(windows ? { settings: { initialWindowSize: windows.stream } } : {}),
  });
  if (windows) session.once('connect', () => session.setLocalWindowSize(windows.connection));
  return session;
}

/** What client-go does by default: every request a stream of one HTTP/2 connection. */
export class Http2Client implements HttpClient {
  private readonly session: ClientHttp2Session;

  /** Without `windows`, Node's default (64 KiB) receive windows. */
  constructor(url: string, tls: ClientTls, windows?: Http2Windows) {
    this.session = connectHttp2Session(url, tls, windows);
    // A session failure fails its open streams, which report it.
    this.session.on('error', () => {});
  }

  request(method: string, path: string, body?: Buffer, extraHeaders?: RequestHeaders): Promise<HttpResult> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ':method': method, ':path': path, accept: 'application/json' };
      if (body) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = body.length;
      }
      Object.assign(headers, extraHeaders);
      const stream = this.session.request(headers, { endStream: !body });
      let status = 0;
      let contentType: string | undefined;
      const chunks: Buffer[] = [];
      stream.on('response', (h: IncomingHttpHeaders & IncomingHttpStatusHeader) => {
        status = Number(h[':status']);
        contentType = h['content-type'];
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => resolve({ status, body: Buffer.concat(chunks), ...(contentType !== undefined ? { contentType } : {}) }));
      stream.on('error', reject);
      if (body) stream.end(body);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.session.closed || this.session.destroyed) return resolve();
      this.session.close(() => resolve());
    });
  }
}

/** HTTP/1.1 with a keep-alive pool of up to `maxSockets` connections (@kubernetes/client-node's shape). */
export class Http1Client implements HttpClient {
  private readonly agent: Agent;
  private readonly url: URL;

  constructor(url: string, tls: ClientTls, maxSockets: number) {
    this.url = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets, ca: tls.ca, cert: tls.cert, key: tls.key });
  }

  request(method: string, path: string, body?: Buffer, extraHeaders?: RequestHeaders): Promise<HttpResult> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { accept: 'application/json' };
      if (body) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = body.length;
      }
      Object.assign(headers, extraHeaders);
      const req = httpsRequest({ host: this.url.hostname, port: this.url.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        const contentType = res.headers['content-type'];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ...(contentType !== undefined ? { contentType } : {}) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}

/** Resolves with the response, or rejects naming the status and the start of the body. */
export async function expectStatus(pending: Promise<HttpResult>, expected: number): Promise<HttpResult> {
  const res = await pending;
  if (res.status !== expected) {
    throw new Error(`HTTP ${res.status} (want ${expected}): ${res.body.toString('utf8').slice(0, 300)}`);
  }
  return res;
}

// ---------------------------------------------------------------------------------------------
// Processes

export interface ProcessReading {
  /** User + system CPU time of every thread, in milliseconds. */
  cpuMs: number;
  rssKiB: number;
  /** Peak resident set size. */
  hwmKiB: number;
}

/**
 * TCP connections established to a local listening port, from /proc/net/tcp and tcp6 (Linux): the
 * server's side of each connection is a socket whose local port is `port`.
 */
export function establishedConnections(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      // State 01 is ESTABLISHED.
      if (state === '01' && local?.endsWith(`:${hexPort}`)) count++;
    }
  }
  return count;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on every Linux ABI node runs on). */
const userHz = 100;

/** CPU time and memory of a running process, from /proc (Linux). */
export function readProcess(pid: number): ProcessReading {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name, which may itself contain spaces: state is first.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { cpuMs: (ticks * 1000) / userHz, rssKiB: kib('VmRSS'), hwmKiB: kib('VmHWM') };
}

/** Busy CPU time of the whole machine (every core, every process), in milliseconds, from /proc/stat. */
export function machineBusyMs(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user and nice).
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return ((total - idle) * 1000) / userHz;
}

/** CPU time of this process, in milliseconds. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * A preload for the profiled API server: turns source maps on before any project module loads and,
 * at exit, writes the source map of every loaded project module (keyed by file URL) to
 * $CORRAL_BENCH_SOURCEMAPS. tsx emits whitespace-minified code, so a CPU profile's positions mean
 * nothing without these maps. Plain JavaScript, passed as a data: URL to `--import`.
 */
const sourceMapDumper = `
import { findSourceMap } from 'node:module';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
process.setSourceMapsEnabled(true);
const root = process.env.CORRAL_BENCH_ROOT;
const out = process.env.CORRAL_BENCH_SOURCEMAPS;
process.on('exit', () => {
  const maps = {};
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) {
        const url = pathToFileURL(p).href;
        const map = findSourceMap(url);
        if (map) maps[url] = map.payload;
      }
    }
  };
  walk(root);
  writeFileSync(out, JSON.stringify(maps));
});
`;

/**
 * A preload for an API server started with `gcProbe`: on SIGUSR2 it runs a full garbage
 * collection (the process runs with --expose-gc) and writes process.memoryUsage() as JSON to
 * $CORRAL_BENCH_GC_FILE (through a rename, so a reader never sees half a file).
 */
const gcProbe = `
import { renameSync, writeFileSync } from 'node:fs';
const out = process.env.CORRAL_BENCH_GC_FILE;
process.on('SIGUSR2', () => {
  globalThis.gc();
  writeFileSync(out + '.tmp', JSON.stringify(process.memoryUsage()));
  renameSync(out + '.tmp', out);
});
`;

/** What process.memoryUsage() reports, in bytes. */
export interface HeapReading {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/**
 * Runs this benchmark again in a child started with the shared host's Node flags
 * (shared/process/shared-host.ts) and `ownFlags`, unless this process was started with a V8 pool
 * size of its own, and exits with the child's status: for a benchmark whose own process does part of
 * the work (the simulated agents) beside the processes it starts. Flags this process was started
 * with come after them and win. Returns only in the process that runs the benchmark.
 */
export function rerunAsSharedHostProcess(ownFlags: readonly string[] = []): void {
  if (poolSizeFlag() !== undefined) return;
  const child = spawnSync(process.execPath, [...sharedHostNodeFlags(), ...ownFlags, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  process.exit(child.status ?? 1);
}

export interface ApiServerProcessOptions {
  etcdEndpoints: readonly string[];
  dataDir: string;
  /** The child's stdout and stderr go here. */
  logFile: string;
  /** Extra API server flags. */
  flags?: readonly string[];
  /** Extra Node and V8 flags (before the script). */
  nodeFlags?: readonly string[];
  /** Write a V8 CPU profile (and the source maps to read it) into this directory at exit. */
  cpuProfileDir?: string;
  /** Let `collectGarbage` force a full collection in the server (a preload and --expose-gc). */
  gcProbe?: boolean;
  readyTimeoutMs?: number;
}

export interface ApiServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** The admin client credentials and the cluster CA, from the data dir. */
  tls: ClientTls;
  /** Where the source maps of a profiled run are written (when profiling). */
  sourceMapsFile: string | undefined;
  /** SIGTERM (the server closes cleanly and writes its profile), SIGKILL after a grace period. */
  stop(): Promise<void>;
  /**
   * Forces a full garbage collection in the server and resolves with its memory usage just after;
   * rejects unless started with `gcProbe`, or when no answer comes within `timeoutMs`.
   */
  collectGarbage(timeoutMs?: number): Promise<HeapReading>;
}

function httpsStatus(url: string, ca: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpsRequest(url, { ca, timeout: 1000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** Starts `apiserver/main.ts` as a child node process on a free loopback port and waits for /readyz. */
export async function startApiServerProcess(opts: ApiServerProcessOptions): Promise<ApiServerProcess> {
  const port = await freePort();
  const nodeArgs = [...(opts.nodeFlags ?? []), '--import', 'tsx'];
  const env: NodeJS.ProcessEnv = { ...process.env };
  let sourceMapsFile: string | undefined;
  if (opts.cpuProfileDir) {
    sourceMapsFile = join(opts.cpuProfileDir, 'sourcemaps.json');
    nodeArgs.push(`--import=data:text/javascript,${encodeURIComponent(sourceMapDumper)}`, '--cpu-prof', `--cpu-prof-dir=${opts.cpuProfileDir}`);
    env.CORRAL_BENCH_ROOT = repoRoot;
    env.CORRAL_BENCH_SOURCEMAPS = sourceMapsFile;
  }
  const gcFile = opts.gcProbe ? join(opts.dataDir, 'gc-probe.json') : undefined;
  if (gcFile) {
    nodeArgs.push('--expose-gc', `--import=data:text/javascript,${encodeURIComponent(gcProbe)}`);
    env.CORRAL_BENCH_GC_FILE = gcFile;
  }
  const args = [
    ...nodeArgs,
    'apiserver/main.ts',
    '--etcd-servers',
    opts.etcdEndpoints.join(','),
    '--secure-port',
    String(port),
    '--bind-address',
    '127.0.0.1',
    '--data-dir',
    opts.dataDir,
    ...(opts.flags ?? []),
  ];
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const stop = async (): Promise<void> => {
    await stopChild(child, 10_000);
    log.end();
  };

  const failure = async (what: string): Promise<Error> => {
    await stop();
    const tail = existsSync(opts.logFile) ? readFileSync(opts.logFile, 'utf8').trimEnd().split('\n').slice(-20).join('\n') : '';
    return new Error(`${what}; log ${opts.logFile}:\n${tail}`);
  };
  const url = `https://127.0.0.1:${port}`;
  const caFile = join(opts.dataDir, 'pki', 'ca.crt');
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw await failure(`the API server exited during start (code ${child.exitCode}, signal ${child.signalCode})`);
    }
    if (existsSync(caFile) && (await httpsStatus(`${url}/readyz`, readFileSync(caFile, 'utf8'))) === 200) break;
    if (Date.now() > deadline) throw await failure(`the API server was not ready within ${opts.readyTimeoutMs ?? 60_000} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const pki = join(opts.dataDir, 'pki');
  const tls = {
    ca: readFileSync(caFile, 'utf8'),
    cert: readFileSync(join(pki, 'admin.crt'), 'utf8'),
    key: readFileSync(join(pki, 'admin.key'), 'utf8'),
  };
  const collectGarbage = async (timeoutMs = 10_000): Promise<HeapReading> => {
    if (!gcFile) throw new Error('the API server was started without gcProbe');
    rmSync(gcFile, { force: true });
    child.kill('SIGUSR2');
    const until = Date.now() + timeoutMs;
    while (!existsSync(gcFile)) {
      if (Date.now() > until) throw new Error(`the API server wrote no memory reading within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return JSON.parse(readFileSync(gcFile, 'utf8')) as HeapReading;
  };
  return { url, pid: child.pid!, child, tls, sourceMapsFile, stop, collectGarbage };
}

/** Things to undo, last first; running it twice undoes nothing twice. */
export class Cleanup {
  private readonly steps: (() => Promise<void> | void)[] = [];

  push(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    while (this.steps.length) {
      const step = this.steps.pop()!;
      try {
        await step();
      } catch (err) {
        process.stderr.write(`cleanup: ${errorText(err)}\n`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// CPU profiles

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  function: string;
  /** `path:line` (1-based, relative to the repository for its own files), or a pseudo-frame name. */
  location: string;
  ms: number;
  /** Share of the busy (non-idle) time. */
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Time the thread waited for work (the `(idle)` pseudo-frame); every other figure excludes it. */
  idleMs: number;
  /** Functions by self time. */
  self: HotSpot[];
  /**
   * The repository's own functions by inclusive time (each counted once per sample). A function
   * counts only while it is on the stack: after an await, an async function resumes from the
   * microtask queue without its callers, so callers of async code are undercounted.
   */
  inclusive: HotSpot[];
  /** Self time by area: a repository file, a package, a node: internal module, or a pseudo-frame. */
  areas: HotSpot[];
}

/**
 * The profile of process `pid`'s main thread in `dir`. Node writes one profile per thread, named
 * `CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile`; the main thread is thread 0 (tsx's
 * module loader runs on a worker thread of its own).
 */
export function mainThreadProfile(dir: string, pid: number): string | undefined {
  const name = readdirSync(dir).find((f) => new RegExp(`^CPU\\.\\d+\\.\\d+\\.${pid}\\.0\\.\\d+\\.cpuprofile$`).test(f));
  return name ? join(dir, name) : undefined;
}

/**
 * Summarizes a V8 `.cpuprofile`: self and inclusive time per function, self time per area.
 * With `sourceMapsFile` (written by a profiled `startApiServerProcess`), positions in repository
 * files are those of the TypeScript source.
 */
export function summarizeCpuProfile(profileFile: string, sourceMapsFile: string | undefined, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
  const payloads: Record<string, SourceMapPayload> =
    sourceMapsFile && existsSync(sourceMapsFile) ? (JSON.parse(readFileSync(sourceMapsFile, 'utf8')) as Record<string, SourceMapPayload>) : {};
  const maps = new Map<string, SourceMap>();
  const mapFor = (url: string): SourceMap | undefined => {
    const payload = payloads[url];
    if (!payload) return undefined;
    let map = maps.get(url);
    if (!map) maps.set(url, (map = new SourceMap(payload)));
    return map;
  };
  const rootUrl = `file://${repoRoot}`;

  const locate = (frame: CallFrame): { location: string; area: string; own: boolean } => {
    const { url } = frame;
    if (!url) return { location: frame.functionName, area: frame.functionName, own: false };
    if (url.startsWith(rootUrl)) {
      const path = relative(repoRoot, fileURLToPath(url));
      const entry = mapFor(url)?.findEntry(frame.lineNumber, frame.columnNumber);
      const line = entry && 'originalLine' in entry ? entry.originalLine + 1 : frame.lineNumber + 1;
      const nm = path.lastIndexOf('node_modules/');
      if (nm >= 0) {
        const rest = path.slice(nm + 'node_modules/'.length).split('/');
        const pkg = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
        return { location: `${path.slice(nm)}:${line}`, area: pkg, own: false };
      }
      return { location: `${path}:${line}${entry && 'originalLine' in entry ? '' : ' (generated)'}`, area: path, own: true };
    }
    return { location: `${url}:${frame.lineNumber + 1}`, area: url, own: false };
  };

  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  interface Resolved {
    key: string;
    fn: string;
    location: string;
    area: string;
    own: boolean;
  }
  const resolved = new Map<number, Resolved>();
  const resolve = (id: number): Resolved => {
    let r = resolved.get(id);
    if (!r) {
      const frame = byId.get(id)!.callFrame;
      const { location, area, own } = locate(frame);
      const fn = frame.functionName || '(anonymous)';
      r = { key: `${fn}\u0000${location}`, fn, location, area, own };
      resolved.set(id, r);
    }
    return r;
  };

  const self = new Map<string, { r: Resolved; us: number }>();
  const inclusive = new Map<string, { r: Resolved; us: number }>();
  const areas = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  // A sample's time is the delta to the next sample.
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i + 1] ?? 0;
    const id = profile.samples[i]!;
    totalUs += us;
    const leaf = resolve(id);
    if (leaf.fn === '(idle)' && !leaf.own) {
      idleUs += us;
      continue;
    }
    const s = self.get(leaf.key) ?? { r: leaf, us: 0 };
    s.us += us;
    self.set(leaf.key, s);
    areas.set(leaf.area, (areas.get(leaf.area) ?? 0) + us);
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const r = resolve(n);
      if (!r.own || seen.has(r.key)) continue;
      seen.add(r.key);
      const e = inclusive.get(r.key) ?? { r, us: 0 };
      e.us += us;
      inclusive.set(r.key, e);
    }
  }
  const busyUs = totalUs - idleUs;
  const hot = (entries: Iterable<{ r: Resolved; us: number }>): HotSpot[] =>
    [...entries]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map(({ r, us }) => ({ function: r.fn, location: r.location, ms: us / 1000, percent: (100 * us) / busyUs }));
  return {
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    self: hot(self.values()),
    inclusive: hot(inclusive.values()),
    areas: [...areas]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([area, us]) => ({ function: '', location: area, ms: us / 1000, percent: (100 * us) / busyUs })),
  };
}

/** A profile summary as three tables. */
export function formatProfileSummary(summary: ProfileSummary): string {
  const rows = (spots: HotSpot[], withFunction: boolean): string[][] =>
    spots.map((s) => [withFunction && s.function !== s.location ? `${s.function}  ${s.location}` : s.location, fixed(s.ms, 0), fixed(s.percent, 1)]);
  return [
    `profiled ${fixed(summary.totalMs / 1000, 1)} s, of which idle ${fixed(summary.idleMs / 1000, 1)} s; % below are of the busy ${fixed((summary.totalMs - summary.idleMs) / 1000, 1)} s`,
    '',
    formatTable(['self time by function', 'ms', '%'], rows(summary.self, true)),
    '',
    formatTable(['self time by area', 'ms', '%'], rows(summary.areas, false)),
    '',
    formatTable(['inclusive time, repository functions', 'ms', '%'], rows(summary.inclusive, true)),
  ].join('\n');
}
