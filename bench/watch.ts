/**
 * corral's watch path and cached reads, beside raw etcd through the etcd3 client measured in the
 * same run:
 *
 *   1. write → watch event latency: ConfigMap creates and updates over HTTPS, one watch client on
 *      the API; raw: etcd puts, one etcd3 watcher.
 *   2. fan-out: many concurrent watchers on one replica (HTTP/2 streams over a few sessions) each
 *      receiving every event of a steady write stream, counted exactly once per watcher; raw: as
 *      many etcd3 watchers on one etcd client.
 *   3. lists of many 2 KiB ConfigMaps: resourceVersion=0 (the watch cache) and unset (quorum, etcd),
 *      as JSON and as protobuf; raw: one etcd range of the same keys.
 *   4. the API server's memory with those objects cached, before and after a full GC.
 *
 * Latency is receive time − send time of the write; the writer stamps its send time (wall clock,
 * sub-millisecond) into an annotation, so the fan-out watchers run in a child process of their own
 * (their CPU apart from the writer's) and need no shared clock but the machine's.
 *
 * Starts its own etcd (temp dir), one API server and a watcher child process; stops all of them
 * before exiting. Exits non-zero when an operation failed or a watcher missed or repeated an event.
 * Usage: npx tsx bench/watch.ts [--objects N] [--watchers W] [--events E] [--help for all flags]
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders, IncomingHttpStatusHeader } from 'node:http2';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Etcd3, IWatchResponse, Watcher } from 'etcd3';
import { connectEtcd, prefixEnd } from '../apiserver/storage/etcd/store.ts';
import { clientGoWindows } from '../shared/client/connection.ts';
import { benchMain, clusterFlagsUsage, clusterOptions, keepFlag, positiveInt, profileFlags } from './cli.ts';
import { clusterCpu, clusterCpuSince, reportProfile, startCluster, type ClusterCpu, type ClusterOptions, type Pids } from './cluster.ts';
import {
  configMapBody,
  configMapData,
  connectHttp2Session,
  expectStatus,
  fixed,
  formatTable,
  Http2Client,
  loadAverageAtStart,
  mib,
  ownCpuMs,
  percentile,
  readProcess,
  repoRoot,
  runPool,
  type ApiServerProcess,
  type Cleanup,
  type ClientTls,
  type HeapReading,
  type HttpClient,
} from './lib.ts';

/** Goals: API p99 ÷ raw p99 (1), fan-out p99 in ms (2), list time ÷ raw range time (3). */
const goals = { latencyP99Ratio: 2, fanoutP99Ms: 100, cachedListRatio: 1, quorumListRatio: 2 };

/** The environment variable that makes this file the fan-out watcher child (its FanoutPlan as JSON). */
const childRoleVariable = 'CORRAL_BENCH_WATCH_CHILD';
const protobufAccept = 'application/vnd.kubernetes.protobuf';

const usage =
  `Usage: npx tsx bench/watch.ts [flags]
  --objects N          ConfigMaps listed in phase 3 (default 10000)
  --watchers W         concurrent watchers in phase 2 (default 2000)
  --events E           updates each fan-out watcher must receive (default 200)
  --sessions S         HTTP/2 sessions the fan-out watchers share (default 20)
  --rate R             fan-out updates per second, steady (default 10)
  --latency-writes L   measured writes of phase 1, half creates, half updates (default 1000)
  --data-bytes B       bytes of ConfigMap data in every phase (default 2048)
  --list-rounds R      measured rounds of each list (default 7; the table shows the median)
  --timeout SECONDS    abort the whole run after this long (default 480)
  --skip-raw-fanout    no etcd3 fan-out baseline
  --phases LIST        which of latency,fanout,lists to run (default all; memory is always read)
` + clusterFlagsUsage(21);

interface Options extends ClusterOptions {
  objects: number;
  watchers: number;
  events: number;
  sessions: number;
  rate: number;
  latencyWrites: number;
  dataBytes: number;
  listRounds: number;
  timeoutMs: number;
  rawFanout: boolean;
  phases: ReadonlySet<PhaseName>;
}

function parsePhases(text: string): ReadonlySet<PhaseName> {
  const names = text.split(',').filter(Boolean);
  const unknown = names.filter((n) => !(phaseNames as readonly string[]).includes(n));
  if (unknown.length || !names.length) throw new Error(`--phases takes a comma-separated subset of ${phaseNames.join(',')}, got ${JSON.stringify(text)}`);
  return new Set(names as PhaseName[]);
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      objects: { type: 'string', default: '10000' },
      watchers: { type: 'string', default: '2000' },
      events: { type: 'string', default: '200' },
      sessions: { type: 'string', default: '20' },
      rate: { type: 'string', default: '10' },
      'latency-writes': { type: 'string', default: '1000' },
      'data-bytes': { type: 'string', default: '2048' },
      'list-rounds': { type: 'string', default: '7' },
      timeout: { type: 'string', default: '480' },
      'skip-raw-fanout': { type: 'boolean', default: false },
      phases: { type: 'string', default: phaseNames.join(',') },
      ...profileFlags,
      ...keepFlag,
    },
  });
  if (values.help) return undefined;
  const watchers = positiveInt(values.watchers, 'watchers');
  return {
    objects: positiveInt(values.objects, 'objects'),
    watchers,
    events: positiveInt(values.events, 'events'),
    sessions: Math.min(watchers, positiveInt(values.sessions, 'sessions')),
    rate: positiveInt(values.rate, 'rate'),
    latencyWrites: positiveInt(values['latency-writes'], 'latency-writes', 2),
    dataBytes: positiveInt(values['data-bytes'], 'data-bytes', 0),
    listRounds: positiveInt(values['list-rounds'], 'list-rounds'),
    timeoutMs: positiveInt(values.timeout, 'timeout') * 1000,
    rawFanout: !values['skip-raw-fanout'],
    phases: parsePhases(values.phases),
    ...clusterOptions(values),
  };
}

// ---------------------------------------------------------------------------------------------
// Event stamps: what a write carries so that a receiver can tell which write it sees and when it left

const seqAnnotation = 'bench.corral.dev/seq';
const sentAnnotation = 'bench.corral.dev/sent';
const seqMarker = `"${seqAnnotation}":"`;
const sentMarker = `"${sentAnnotation}":"`;
const typeMarker = '{"type":"';
/** The stamp is in the object's metadata, near the start of a line: this much is read first. */
const stampWindow = 512;
const timeOrigin = performance.timeOrigin;

/** Milliseconds since the epoch with sub-millisecond resolution; comparable across processes. */
function wallNow(): number {
  return timeOrigin + performance.now();
}

function stampAnnotations(seq: number, sentAt: number): Record<string, string> {
  return { [seqAnnotation]: String(seq), [sentAnnotation]: sentAt.toFixed(3) };
}

interface Stamp {
  /** The watch event type (`{"type":"…"` at the start), undefined for raw etcd values. */
  type: string | undefined;
  seq: number;
  sentAt: number;
}

/** The JSON string value after `marker` in `text`, without decoding the document. */
function stringAfter(text: string, marker: string): string | undefined {
  const at = text.indexOf(marker);
  if (at < 0) return undefined;
  const start = at + marker.length;
  const end = text.indexOf('"', start);
  return end < 0 ? undefined : text.slice(start, end);
}

function stampOf(text: string): Stamp | undefined {
  const seq = stringAfter(text, seqMarker);
  const sent = stringAfter(text, sentMarker);
  if (seq === undefined || sent === undefined) return undefined;
  const type = text.startsWith(typeMarker) ? stringAfter(text, typeMarker) : undefined;
  return { type, seq: Number(seq), sentAt: Number(sent) };
}

/**
 * The stamp of a JSON watch line or a stored value in buf[from, to); undefined when it has none.
 * The watcher child reads every delivery of the fan-out and its CPU time adds to the latencies it
 * measures, so this is cheap: V8's search in a short latin1 string of the line's head, not
 * Buffer.indexOf, whose search tables are built anew for every call.
 */
function readStamp(buf: Buffer, from: number, to: number): Stamp | undefined {
  const head = stampOf(buf.toString('latin1', from, Math.min(to, from + stampWindow)));
  return head ?? (to - from > stampWindow ? stampOf(buf.toString('latin1', from, to)) : undefined);
}

// ---------------------------------------------------------------------------------------------
// Watch clients

/** Splits a byte stream into lines (without their newline). */
class LineSplitter {
  private pending: Buffer | undefined;

  push(chunk: Buffer, onLine: (buf: Buffer, from: number, to: number) => void): void {
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    let from = 0;
    for (let nl = buf.indexOf(0x0a, from); nl >= 0; nl = buf.indexOf(0x0a, from)) {
      onLine(buf, from, nl);
      from = nl + 1;
    }
    if (from < buf.length) this.pending = buf.subarray(from);
  }
}

interface WatchHandlers {
  /** One watch event line, with the time its chunk arrived. */
  line(buf: Buffer, from: number, to: number, receivedAt: number): void;
  /** The stream ended or failed while it was meant to go on. */
  ended(reason: string): void;
}

/**
 * Opens a JSON watch on an HTTP/2 session; resolves once the response headers say 200 (rejects
 * with the status and body otherwise). `close` on the result ends it without calling `ended`.
 */
function openApiWatch(session: ClientHttp2Session, path: string, handlers: WatchHandlers): Promise<{ close(): void }> {
  return new Promise((resolve, reject) => {
    const stream: ClientHttp2Stream = session.request({ ':method': 'GET', ':path': path, accept: 'application/json' }, { endStream: true });
    const lines = new LineSplitter();
    let closing = false;
    let status = 0;
    const rejected: Buffer[] = [];
    stream.on('response', (h: IncomingHttpHeaders & IncomingHttpStatusHeader) => {
      status = Number(h[':status']);
      if (status !== 200) return;
      resolve({
        close: () => {
          closing = true;
          stream.close();
        },
      });
    });
    stream.on('data', (chunk: Buffer) => {
      if (status !== 200) return void rejected.push(chunk);
      const receivedAt = wallNow();
      lines.push(chunk, (buf, from, to) => handlers.line(buf, from, to, receivedAt));
    });
    stream.on('end', () => {
      if (status !== 200) reject(new Error(`watch ${path}: HTTP ${status}: ${Buffer.concat(rejected).toString('utf8').slice(0, 300)}`));
      else if (!closing) handlers.ended('the server ended the watch');
    });
    stream.on('error', (err: Error) => {
      if (status !== 200) reject(err);
      else if (!closing) handlers.ended(err.message);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Fan-out watchers (a child process)

interface FanoutPlan {
  watchers: number;
  events: number;
  /** Watch through the API: `sessions` HTTP/2 sessions, watchers spread round-robin. */
  api?: { url: string; tls: ClientTls; sessions: number; path: string };
  /** Watch etcd directly: every watcher on `key`, all over one etcd3 client. */
  etcd?: { endpoints: string[]; key: string };
}

/** The plan travels in the child's environment; this is what the parent says later. */
interface ToChild {
  type: 'finish';
  graceMs: number;
}

interface FanoutResult {
  /** Latency of event `seq` at watcher `w` at index w × events + seq; NaN when it never came. */
  latencies: Float64Array;
  /** Distinct (watcher, event) pairs received. */
  delivered: number;
  duplicates: number;
  /** Events with a type other than MODIFIED, no stamp, or a seq outside the stream. */
  unexpected: number;
  /** Watches that ended or failed before the stream was over. */
  streamFailures: number;
  firstProblem: string | undefined;
  /** Milliseconds from `finish` until every watcher had every event (NaN: never). */
  drainMs: number;
  /** CPU of the child from ready to result, milliseconds. */
  cpuMs: number;
}

type FromChild = { type: 'ready'; setupMs: number } | { type: 'failed'; error: string } | ({ type: 'result' } & FanoutResult);

/** Counts every (watcher, event) delivery; `complete` resolves once each watcher has each event. */
class Tally {
  readonly latencies: Float64Array;
  private readonly counts: Uint8Array;
  delivered = 0;
  duplicates = 0;
  unexpected = 0;
  streamFailures = 0;
  firstProblem: string | undefined;
  private onComplete: (() => void) | undefined;
  readonly complete: Promise<void>;

  constructor(
    private readonly watchers: number,
    private readonly events: number,
  ) {
    this.latencies = new Float64Array(watchers * events).fill(NaN);
    this.counts = new Uint8Array(watchers * events);
    this.complete = new Promise((resolve) => (this.onComplete = resolve));
  }

  problem(text: string): void {
    this.firstProblem ??= text;
  }

  record(watcher: number, stamp: Stamp | undefined, receivedAt: number, expectedType: string | undefined): void {
    if (!stamp || stamp.type !== expectedType || !Number.isInteger(stamp.seq) || stamp.seq < 0 || stamp.seq >= this.events) {
      this.unexpected++;
      this.problem(`watcher ${watcher}: unexpected event ${JSON.stringify(stamp)}`);
      return;
    }
    const i = watcher * this.events + stamp.seq;
    const count = this.counts[i] ?? 0;
    if (count > 0) {
      this.duplicates++;
      this.problem(`watcher ${watcher}: event ${stamp.seq} again`);
      return;
    }
    this.counts[i] = 1;
    this.latencies[i] = receivedAt - stamp.sentAt;
    if (++this.delivered === this.watchers * this.events) this.onComplete?.();
  }
}

function sendToParent(message: FromChild): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

function nextParentMessage(): Promise<ToChild> {
  return new Promise((resolve) => process.once('message', (m) => resolve(m as ToChild)));
}

/** The child's life: start watchers, report ready, wait for `finish`, report the tally, exit. */
async function fanoutChild(): Promise<void> {
  // An orphaned child has no one to report to.
  process.once('disconnect', () => process.exit(1));
  const plan = JSON.parse(process.env[childRoleVariable] ?? '') as FanoutPlan;
  const tally = new Tally(plan.watchers, plan.events);
  const closers: (() => Promise<void> | void)[] = [];
  const setupStart = performance.now();
  try {
    if (plan.api) {
      const { url, tls, sessions: sessionCount, path } = plan.api;
      const sessions = Array.from({ length: sessionCount }, () => {
        const session = connectHttp2Session(url, tls, clientGoWindows);
        session.on('error', (err: Error) => tally.problem(`session: ${err.message}`));
        closers.push(() => void session.destroy());
        return session;
      });
      const watches = await Promise.all(
        Array.from({ length: plan.watchers }, (_, w) =>
          openApiWatch(sessions[w % sessionCount]!, path, {
            line: (buf, from, to, receivedAt) => tally.record(w, readStamp(buf, from, to), receivedAt, 'MODIFIED'),
            ended: (reason) => {
              tally.streamFailures++;
              tally.problem(`watcher ${w}: ${reason}`);
            },
          }),
        ),
      );
      closers.push(() => watches.forEach((w) => w.close()));
    } else if (plan.etcd) {
      const client = connectEtcd({ endpoints: plan.etcd.endpoints });
      closers.push(() => client.close());
      const key = plan.etcd.key;
      const watchers: Watcher[] = await Promise.all(
        Array.from({ length: plan.watchers }, async (_, w) => {
          const watcher = await client.watch().key(key).create();
          watcher.on('data', (res: IWatchResponse) => {
            const receivedAt = wallNow();
            for (const event of res.events) tally.record(w, readStamp(event.kv.value, 0, event.kv.value.length), receivedAt, undefined);
          });
          watcher.on('error', (err: Error) => {
            tally.streamFailures++;
            tally.problem(`watcher ${w}: ${err.message}`);
          });
          return watcher;
        }),
      );
      closers.push(() => Promise.all(watchers.map((w) => w.cancel().catch(() => {}))).then(() => {}));
    }
  } catch (err) {
    await sendToParent({ type: 'failed', error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
  const cpuAtReady = ownCpuMs();
  const finishing = nextParentMessage();
  await sendToParent({ type: 'ready', setupMs: performance.now() - setupStart });
  const finish = await finishing;
  const finishAt = performance.now();
  let drainMs = NaN;
  await Promise.race([tally.complete.then(() => void (drainMs = performance.now() - finishAt)), new Promise((r) => setTimeout(r, finish.graceMs))]);
  const cpuMs = ownCpuMs() - cpuAtReady;
  // Last opened, first closed: watches before their sessions or client.
  for (const close of closers.reverse()) await close();
  await sendToParent({
    type: 'result',
    latencies: tally.latencies,
    delivered: tally.delivered,
    duplicates: tally.duplicates,
    unexpected: tally.unexpected,
    streamFailures: tally.streamFailures,
    firstProblem: tally.firstProblem,
    drainMs,
    cpuMs,
  });
  process.exit(0);
}

/** The parent's handle on a fan-out child. */
interface FanoutChild {
  pid: number;
  ready: Promise<{ setupMs: number }>;
  finish(graceMs: number): Promise<FanoutResult>;
}

function startFanoutChild(plan: FanoutPlan, cleanup: Cleanup): FanoutChild {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    cwd: repoRoot,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, [childRoleVariable]: JSON.stringify(plan) },
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`the watcher child exited (code ${code}, signal ${signal})`))),
  );
  exited.catch(() => {});
  const next = (): Promise<FromChild> => Promise.race([new Promise<FromChild>((resolve) => child.once('message', (m) => resolve(m as FromChild))), exited]);
  const ready = next().then((m) => {
    if (m.type === 'failed') throw new Error(`the watcher child failed: ${m.error}`);
    if (m.type !== 'ready') throw new Error(`the watcher child said ${m.type} before ready`);
    return { setupMs: m.setupMs };
  });
  return {
    pid: child.pid ?? 0,
    ready,
    async finish(graceMs) {
      const result = next();
      child.send({ type: 'finish', graceMs } satisfies ToChild);
      const m = await result;
      if (m.type !== 'result') throw new Error(`the watcher child said ${m.type} instead of its result`);
      const { type: _type, ...rest } = m;
      return rest;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Objects

const collection = (namespace: string): string => `/api/v1/namespaces/${namespace}/configmaps`;

async function createNamespace(client: HttpClient, name: string): Promise<void> {
  await expectStatus(
    client.request('POST', '/api/v1/namespaces', Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }))),
    201,
  );
}

function resourceVersionOf(body: Buffer): string {
  const rv = (JSON.parse(body.toString('utf8')) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
  if (!rv) throw new Error(`no metadata.resourceVersion in ${body.toString('utf8').slice(0, 200)}`);
  return rv;
}

/**
 * What corral stores for such a ConfigMap, as a template for raw etcd values of the same size:
 * the stored JSON of a probe object, with the name and stamp replaced per write.
 */
class RawValues {
  private readonly template: Record<string, unknown> & { metadata: Record<string, unknown> };

  constructor(stored: Buffer) {
    this.template = JSON.parse(stored.toString('utf8')) as RawValues['template'];
  }

  value(name: string, seq: number, sentAt: number): Buffer {
    const metadata = { ...this.template.metadata, name, annotations: stampAnnotations(seq, sentAt) };
    return Buffer.from(JSON.stringify({ ...this.template, metadata }));
  }
}

// ---------------------------------------------------------------------------------------------
// Measurement helpers

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Rejects after `ms` with `what` unless `p` settles first. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

interface Latencies {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

/** Percentiles of the finite values (NaN marks what never came). */
function latencies(values: Float64Array): Latencies {
  const sorted = values.filter(Number.isFinite).sort();
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.length ? sorted[sorted.length - 1]! : NaN, count: sorted.length };
}

function median(values: readonly number[]): number {
  return percentile(Float64Array.from(values).sort(), 0.5);
}

interface PhaseCpu {
  name: string;
  wallMs: number;
  cpu: ClusterCpu;
  /** The fan-out child's CPU, when one ran. */
  watchersMs?: number;
}

interface Context {
  opts: Options;
  api: ApiServerProcess;
  pids: Pids;
  etcd: Etcd3;
  etcdEndpoints: string[];
  /** Writes and setup requests. */
  client: Http2Client;
  data: Record<string, string>;
  raw: RawValues;
  phases: PhaseCpu[];
  failures: string[];
  log(text: string): void;
}

async function measured<T>(ctx: Context, name: string, work: () => Promise<T>, watchersMs?: (result: T) => number): Promise<T> {
  const before = clusterCpu(ctx.pids);
  const start = performance.now();
  const result = await work();
  const wallMs = performance.now() - start;
  ctx.phases.push({ name, wallMs, cpu: clusterCpuSince(ctx.pids, before), ...(watchersMs ? { watchersMs: watchersMs(result) } : {}) });
  return result;
}

// ---------------------------------------------------------------------------------------------
// Phase 1: write → watch event latency

/** Events that one watcher is waiting for, by seq. */
class Arrivals {
  private readonly waiting = new Map<number, (receivedAt: number) => void>();
  unexpected = 0;

  expect(seq: number): Promise<number> {
    return new Promise((resolve) => this.waiting.set(seq, resolve));
  }

  arrived(stamp: Stamp | undefined, receivedAt: number): void {
    const resolve = stamp ? this.waiting.get(stamp.seq) : undefined;
    if (!stamp || !resolve) return void this.unexpected++;
    this.waiting.delete(stamp.seq);
    resolve(receivedAt);
  }
}

interface LatencyTarget {
  name: string;
  /** Creates object `name` carrying the stamp, or updates it when it `exists`. */
  write(name: string, exists: boolean, seq: number, sentAt: number): Promise<void>;
  arrivals: Arrivals;
  close(): Promise<void> | void;
}

async function apiLatencyTarget(ctx: Context, namespace: string): Promise<LatencyTarget> {
  await createNamespace(ctx.client, namespace);
  const list = await expectStatus(ctx.client.request('GET', collection(namespace)), 200);
  const session = connectHttp2Session(ctx.api.url, ctx.api.tls, clientGoWindows);
  session.on('error', () => {});
  const arrivals = new Arrivals();
  const watch = await openApiWatch(session, `${collection(namespace)}?watch=1&resourceVersion=${resourceVersionOf(list.body)}&timeoutSeconds=3600`, {
    line: (buf, from, to, receivedAt) => arrivals.arrived(readStamp(buf, from, to), receivedAt),
    ended: (reason) => ctx.failures.push(`latency watch ended: ${reason}`),
  });
  return {
    name: 'corral',
    arrivals,
    async write(name, exists, seq, sentAt) {
      const body = configMapBody(name, ctx.data, stampAnnotations(seq, sentAt));
      if (exists) await expectStatus(ctx.client.request('PUT', `${collection(namespace)}/${name}`, body), 200);
      else await expectStatus(ctx.client.request('POST', collection(namespace), body), 201);
    },
    close: () => {
      watch.close();
      session.destroy();
    },
  };
}

async function rawLatencyTarget(ctx: Context, prefix: string): Promise<LatencyTarget> {
  const arrivals = new Arrivals();
  const watcher = await ctx.etcd.watch().prefix(prefix).create();
  watcher.on('data', (res: IWatchResponse) => {
    const receivedAt = wallNow();
    for (const e of res.events) arrivals.arrived(readStamp(e.kv.value, 0, e.kv.value.length), receivedAt);
  });
  watcher.on('error', (err: Error) => ctx.failures.push(`raw latency watcher: ${err.message}`));
  return {
    name: 'etcd',
    arrivals,
    write: async (name, _exists, seq, sentAt) => void (await ctx.etcd.put(`${prefix}${name}`).value(ctx.raw.value(name, seq, sentAt))),
    close: () => watcher.cancel(),
  };
}

/** What phase 1 measures per write: send → watch event, and send → the write's own response. */
interface WriteToEvent {
  event: Float64Array;
  response: Float64Array;
}

/**
 * `warmup + count` writes to each target, one write at a time, each waiting for its watch event
 * and its response: the first half create objects, the rest update them in turn. The targets take
 * turns write by write (alternating who goes first), so that a burst of load from elsewhere on
 * the machine hits all of them alike. Results are in the order of `targets`.
 */
async function writeToEvent(ctx: Context, targets: readonly LatencyTarget[], count: number, warmup: number): Promise<WriteToEvent[]> {
  const results = targets.map(() => ({ event: new Float64Array(count).fill(NaN), response: new Float64Array(count).fill(NaN) }));
  const errors = targets.map(() => 0);
  const names = Math.max(1, Math.floor((warmup + count) / 2));
  for (let seq = 0; seq < warmup + count; seq++) {
    for (let k = 0; k < targets.length; k++) {
      const t = seq % 2 === 0 ? k : targets.length - 1 - k;
      const target = targets[t]!;
      if (errors[t]! >= 10) continue;
      const arrival = target.arrivals.expect(seq);
      const sentAt = wallNow();
      const answered = target.write(`lat-${seq % names}`, seq >= names, seq, sentAt).then(wallNow);
      try {
        const [receivedAt, answeredAt] = await within(Promise.all([arrival, answered]), 10_000, `write ${seq} and its event`);
        if (seq >= warmup) {
          results[t]!.event[seq - warmup] = receivedAt - sentAt;
          results[t]!.response[seq - warmup] = answeredAt - sentAt;
        }
      } catch (err) {
        if (++errors[t]! === 1) ctx.failures.push(`${target.name} write→event ${seq}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  for (const target of targets) {
    if (target.arrivals.unexpected) ctx.failures.push(`${target.name} latency watch: ${target.arrivals.unexpected} unexpected events`);
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Phase 2: fan-out

interface FanoutRun {
  result: FanoutResult;
  setupMs: number;
  writeLatencies: Float64Array;
  writeErrors: number;
  /** Achieved write rate, per second. */
  writeRate: number;
}

/** `count` writes at `rate` per second, on schedule whether or not earlier ones have answered. */
async function steadyWrites(
  count: number,
  rate: number,
  write: (seq: number) => Promise<void>,
): Promise<{ latencies: Float64Array; errors: number; firstError: string | undefined; rate: number }> {
  const latenciesMs = new Float64Array(count);
  let errors = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let seq = 0; seq < count; seq++) {
    const wait = start + (seq * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const t0 = performance.now();
    pending.push(
      write(seq).then(
        () => void (latenciesMs[seq] = performance.now() - t0),
        (err: unknown) => {
          errors++;
          firstError ??= err instanceof Error ? err.message : String(err);
          latenciesMs[seq] = NaN;
        },
      ),
    );
  }
  const issuedMs = performance.now() - start;
  await Promise.all(pending);
  return { latencies: latenciesMs, errors, firstError, rate: count > 1 ? ((count - 1) * 1000) / issuedMs : count };
}

async function fanout(ctx: Context, name: string, plan: FanoutPlan, write: (seq: number) => Promise<void>, cleanup: Cleanup): Promise<FanoutRun> {
  const { opts } = ctx;
  ctx.log(`${name}: starting ${plan.watchers} watchers`);
  const child = startFanoutChild(plan, cleanup);
  const { setupMs } = await within(child.ready, 120_000, `starting ${plan.watchers} watchers`);
  ctx.log(`${name}: ${plan.watchers} watchers ready in ${fixed(setupMs, 0)} ms; ${opts.events} updates at ${opts.rate}/s`);
  // Let the server finish subscribing the last streams.
  await sleep(500);
  return measured(
    ctx,
    `${name} fan-out`,
    async () => {
      const writes = await steadyWrites(opts.events, opts.rate, write);
      if (writes.errors) ctx.failures.push(`${name} fan-out: ${writes.errors} failed writes; first: ${writes.firstError}`);
      const result = await child.finish(30_000);
      return { result, setupMs, writeLatencies: writes.latencies, writeErrors: writes.errors, writeRate: writes.rate };
    },
    (run) => run.result.cpuMs,
  );
}

function checkFanout(ctx: Context, name: string, run: FanoutRun): void {
  const { result } = run;
  const expected = ctx.opts.watchers * ctx.opts.events;
  if (result.delivered !== expected || result.duplicates || result.unexpected || result.streamFailures) {
    ctx.failures.push(
      `${name} fan-out: ${result.delivered} of ${expected} deliveries, ${result.duplicates} duplicates, ${result.unexpected} unexpected events, ` +
        `${result.streamFailures} failed watches; first: ${result.firstProblem}`,
    );
  }
}

/** For each event, the latency to its last watcher. */
function lastWatcherLatencies(result: FanoutResult, watchers: number, events: number): Float64Array {
  const out = new Float64Array(events).fill(NaN);
  for (let e = 0; e < events; e++) {
    let worst = -Infinity;
    for (let w = 0; w < watchers; w++) {
      const v = result.latencies[w * events + e] ?? NaN;
      if (!Number.isFinite(v)) {
        worst = NaN;
        break;
      }
      worst = Math.max(worst, v);
    }
    out[e] = worst;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Phase 3: lists

interface ListVariant {
  name: string;
  /** Runs one list; resolves with the bytes received. */
  run(): Promise<number>;
}

interface ListFigures {
  name: string;
  medianMs: number;
  minMs: number;
  bytes: number;
  apiserverCpuMs: number;
  etcdCpuMs: number;
}

async function populate(ctx: Context, namespace: string): Promise<void> {
  await createNamespace(ctx.client, namespace);
  const count = ctx.opts.objects;
  ctx.log(`creating ${count} ConfigMaps of ${ctx.opts.dataBytes} B in ${namespace}`);
  const width = String(count - 1).length;
  const result = await measured(ctx, `create ${count} (HTTP/2, 64 in flight)`, () =>
    runPool(
      count,
      64,
      async (i) =>
        void (await expectStatus(ctx.client.request('POST', collection(namespace), configMapBody(`list-${String(i).padStart(width, '0')}`, ctx.data)), 201)),
    ),
  );
  if (result.errors) throw new Error(`${result.errors} of ${count} creates failed; first: ${result.firstError}`);
  ctx.log(`created in ${fixed(result.elapsedMs / 1000, 1)} s (${fixed((count * 1000) / result.elapsedMs, 0)}/s)`);
}

function listVariants(ctx: Context, client: HttpClient, namespace: string): ListVariant[] {
  const path = collection(namespace);
  const prefix = `/registry/configmaps/${namespace}/`;
  const count = ctx.opts.objects;
  const apiList =
    (query: string, accept: string): (() => Promise<number>) =>
    async () => {
      const res = await expectStatus(client.request('GET', `${path}${query}`, undefined, { accept }), 200);
      if (!res.contentType?.startsWith(accept)) throw new Error(`GET ${path}${query} (Accept ${accept}) answered ${res.contentType}`);
      return res.body.length;
    };
  return [
    {
      name: 'raw etcd range',
      run: async () => {
        const res = await ctx.etcd.kv.range({ key: Buffer.from(prefix), range_end: prefixEnd(prefix) });
        if (res.kvs.length !== count) throw new Error(`the etcd range returned ${res.kvs.length} of ${count} keys`);
        return res.kvs.reduce((n, kv) => n + kv.key.length + kv.value.length, 0);
      },
    },
    { name: 'resourceVersion=0, JSON', run: apiList('?resourceVersion=0', 'application/json') },
    { name: 'quorum, JSON', run: apiList('', 'application/json') },
    { name: 'resourceVersion=0, protobuf', run: apiList('?resourceVersion=0', protobufAccept) },
    { name: 'quorum, protobuf', run: apiList('', protobufAccept) },
  ];
}

/** Checks that the JSON lists hold every object (waiting for the cache to catch up). */
async function verifyLists(ctx: Context, client: HttpClient, namespace: string): Promise<void> {
  const count = ctx.opts.objects;
  const items = async (query: string): Promise<number> => {
    const res = await expectStatus(client.request('GET', `${collection(namespace)}${query}`), 200);
    return ((JSON.parse(res.body.toString('utf8')) as { items?: unknown[] }).items ?? []).length;
  };
  const quorum = await items('');
  if (quorum !== count) throw new Error(`the quorum list has ${quorum} of ${count} ConfigMaps`);
  const until = Date.now() + 10_000;
  for (let cached = await items('?resourceVersion=0'); cached !== count; cached = await items('?resourceVersion=0')) {
    if (Date.now() > until) throw new Error(`the resourceVersion=0 list still has ${cached} of ${count} ConfigMaps after 10 s`);
    await sleep(200);
  }
}

async function measureLists(ctx: Context, variants: ListVariant[]): Promise<ListFigures[]> {
  const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const cpu = new Map<string, { apiserver: number; etcd: number }>(variants.map((v) => [v.name, { apiserver: 0, etcd: 0 }]));
  const bytes = new Map<string, number>();
  // One unmeasured run of each first: connections, code paths and the cache's sorted keys warm.
  for (const v of variants) bytes.set(v.name, await v.run());
  for (let r = 0; r < ctx.opts.listRounds; r++) {
    for (const v of variants) {
      const before = clusterCpu(ctx.pids);
      const t0 = performance.now();
      bytes.set(v.name, await v.run());
      times.get(v.name)!.push(performance.now() - t0);
      const used = clusterCpuSince(ctx.pids, before);
      const c = cpu.get(v.name)!;
      c.apiserver += used.apiserver;
      c.etcd += used.etcd;
    }
  }
  return variants.map((v) => {
    const t = times.get(v.name)!;
    const c = cpu.get(v.name)!;
    return {
      name: v.name,
      medianMs: median(t),
      minMs: Math.min(...t),
      bytes: bytes.get(v.name) ?? 0,
      apiserverCpuMs: c.apiserver / t.length,
      etcdCpuMs: c.etcd / t.length,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The run

function met(ok: boolean): string {
  return ok ? 'met' : 'MISSED';
}

/** Phase 1: measures, then returns its report section. */
async function latencyPhase(ctx: Context): Promise<string> {
  const { opts } = ctx;
  const warmup = Math.min(100, opts.latencyWrites);
  ctx.log(
    `phase 1: ${opts.latencyWrites} writes to each of etcd and corral, in turn, one at a time (after ${warmup} unmeasured), each until its watch event arrives`,
  );
  const rawTarget = await rawLatencyTarget(ctx, '/bench-raw/latency/');
  const apiTarget = await apiLatencyTarget(ctx, 'bench-latency');
  const [rawLatency, apiLatency] = await measured(ctx, 'write → watch (etcd and corral in turn)', () =>
    writeToEvent(ctx, [rawTarget, apiTarget], opts.latencyWrites, warmup),
  );
  await rawTarget.close();
  await apiTarget.close();
  if (!rawLatency || !apiLatency) throw new Error('phase 1 measured no target');
  const raw = latencies(rawLatency.event);
  const api = latencies(apiLatency.event);
  const rawWrite = latencies(rawLatency.response);
  const apiWrite = latencies(apiLatency.response);
  ctx.log(`  etcd p50 ${fixed(raw.p50, 2)} ms p99 ${fixed(raw.p99, 2)} ms; corral p50 ${fixed(api.p50, 2)} ms p99 ${fixed(api.p99, 2)} ms`);
  const ratio = api.p99 / raw.p99;
  return (
    `1. write → watch event latency: ${opts.latencyWrites} writes one at a time (half creates, half updates), 1 watcher; etcd and corral take turns write by write\n\n` +
    formatTable(
      ['path', 'p50 ms', 'p99 ms', 'max ms', 'events', '|', 'ratio p50', 'ratio p99', 'goal', '|', 'write p50', 'write p99'],
      [
        [
          'etcd3 put → etcd3 watcher',
          fixed(raw.p50, 2),
          fixed(raw.p99, 2),
          fixed(raw.max, 2),
          String(raw.count),
          '|',
          '1.00',
          '1.00',
          '',
          '|',
          fixed(rawWrite.p50, 2),
          fixed(rawWrite.p99, 2),
        ],
        [
          'corral POST/PUT (HTTP/2) → watch (HTTP/2, JSON)',
          fixed(api.p50, 2),
          fixed(api.p99, 2),
          fixed(api.max, 2),
          String(api.count),
          '|',
          fixed(api.p50 / raw.p50, 2),
          fixed(ratio, 2),
          `p99 ≤ ${goals.latencyP99Ratio}× ${met(ratio <= goals.latencyP99Ratio)}`,
          '|',
          fixed(apiWrite.p50, 2),
          fixed(apiWrite.p99, 2),
        ],
      ],
    ) +
    "\n  write p50/p99: send → the write's own response (for comparison: the event may arrive before it)\n"
  );
}

/** Phase 2: measures, then returns its report section. */
async function fanoutPhase(ctx: Context, cleanup: Cleanup): Promise<string> {
  const { opts, etcd, client, data, api } = ctx;
  ctx.log(`phase 2: ${opts.watchers} watchers × ${opts.events} events`);
  let rawFan: FanoutRun | undefined;
  if (opts.rawFanout) {
    const key = '/bench-raw/fanout/fan';
    await etcd.put(key).value(ctx.raw.value('fan', -1, wallNow()));
    rawFan = await fanout(
      ctx,
      'etcd',
      { watchers: opts.watchers, events: opts.events, etcd: { endpoints: ctx.etcdEndpoints, key } },
      async (seq) => void (await etcd.put(key).value(ctx.raw.value('fan', seq, wallNow()))),
      cleanup,
    );
    checkFanout(ctx, 'etcd', rawFan);
  }
  await createNamespace(client, 'bench-fanout');
  const fanPath = `${collection('bench-fanout')}/fan`;
  const created = await expectStatus(client.request('POST', collection('bench-fanout'), configMapBody('fan', data, stampAnnotations(-1, wallNow()))), 201);
  const apiFan = await fanout(
    ctx,
    'corral',
    {
      watchers: opts.watchers,
      events: opts.events,
      api: {
        url: api.url,
        tls: api.tls,
        sessions: opts.sessions,
        path: `${collection('bench-fanout')}?watch=1&resourceVersion=${resourceVersionOf(created.body)}&timeoutSeconds=3600`,
      },
    },
    async (seq) => void (await expectStatus(client.request('PUT', fanPath, configMapBody('fan', data, stampAnnotations(seq, wallNow()))), 200)),
    cleanup,
  );
  checkFanout(ctx, 'corral', apiFan);

  const deliveries = opts.watchers * opts.events;
  const row = (label: string, r: FanoutRun, serverCpuMs: number, goal: string): string[] => {
    const all = latencies(r.result.latencies);
    const last = latencies(lastWatcherLatencies(r.result, opts.watchers, opts.events));
    const writes = latencies(r.writeLatencies);
    return [
      label,
      `${r.result.delivered}/${deliveries}`,
      String(r.result.duplicates),
      String(r.result.unexpected + r.result.streamFailures),
      '|',
      fixed(all.p50, 1),
      fixed(all.p99, 1),
      fixed(all.max, 1),
      '|',
      fixed(last.p50, 1),
      fixed(last.p99, 1),
      '|',
      fixed(writes.p99, 1),
      fixed(r.writeRate, 1),
      fixed(r.setupMs / 1000, 1),
      fixed(r.result.drainMs, 0),
      '|',
      fixed((1000 * serverCpuMs) / deliveries, 1),
      fixed((1000 * r.result.cpuMs) / deliveries, 1),
      '|',
      goal,
    ];
  };
  const cpuOf = (name: string): ClusterCpu | undefined => ctx.phases.find((p) => p.name === name)?.cpu;
  const apiP99 = latencies(apiFan.result.latencies).p99;
  const apiServerMs = cpuOf('corral fan-out')?.apiserver ?? NaN;
  const perDeliveryUs = (1000 * apiServerMs) / deliveries;
  return (
    `2. fan-out: ${opts.watchers} watchers (corral: HTTP/2, ${opts.sessions} sessions × ${Math.ceil(opts.watchers / opts.sessions)} streams; etcd: one etcd3 client), ` +
    `${opts.events} updates at ${opts.rate}/s; latency per (watcher, event)\n\n` +
    formatTable(
      [
        'target',
        'delivered',
        'dup',
        'bad',
        '|',
        'p50 ms',
        'p99 ms',
        'max ms',
        '|',
        'last p50',
        'last p99',
        '|',
        'write p99',
        'writes/s',
        'setup s',
        'drain ms',
        '|',
        'server µs',
        'client µs',
        '|',
        'goal',
      ],
      [
        ...(rawFan ? [row('etcd3 watchers', rawFan, cpuOf('etcd fan-out')?.etcd ?? NaN, '')] : []),
        row('corral watches', apiFan, apiServerMs, `p99 ≤ ${goals.fanoutP99Ms} ms ${met(apiP99 <= goals.fanoutP99Ms)}`),
      ],
    ) +
    '\n' +
    '  delivered: distinct (watcher, event) pairs of all expected; dup: repeats; bad: other events, failed or ended watches;\n' +
    '  last: per event, the latency to its last watcher; write p99: the update requests themselves; setup: opening every watch;\n' +
    "  drain: from the last write's response until every watcher had every event;\n" +
    '  server µs: CPU of etcd (etcd3 row) or the API server (corral row) per delivery, its share of the writes included;\n' +
    "  client µs: the watcher child's CPU per delivery\n" +
    `  at ${fixed(perDeliveryUs, 1)} µs per delivery, one core sustains ${fixed(1e6 / (perDeliveryUs * opts.watchers), 1)} events/s to ${opts.watchers} watchers\n`
  );
}

/** Phase 3: measures, then returns its report section. */
async function listPhase(ctx: Context, cleanup: Cleanup): Promise<string> {
  const { opts, api } = ctx;
  ctx.log(`phase 3: lists of ${opts.objects} ConfigMaps`);
  await populate(ctx, 'bench-list');
  const listClient = new Http2Client(api.url, api.tls, clientGoWindows);
  cleanup.push(() => listClient.close());
  await verifyLists(ctx, listClient, 'bench-list');
  const variants = listVariants(ctx, listClient, 'bench-list');
  const lists = await measured(ctx, `lists (${opts.listRounds} rounds × ${variants.length})`, () => measureLists(ctx, variants));
  const raw = lists[0]!;
  const byName = new Map(lists.map((l) => [l.name, l]));
  const goalOf = (l: ListFigures): string => {
    const ratio = l.medianMs / raw.medianMs;
    if (l.name === 'resourceVersion=0, JSON') return `≤ ${goals.cachedListRatio}× ${met(ratio <= goals.cachedListRatio)}`;
    if (l.name === 'quorum, JSON') return `≤ ${goals.quorumListRatio}× ${met(ratio <= goals.quorumListRatio)}`;
    return '';
  };
  const pb = (kind: string): string => {
    const json = byName.get(`${kind}, JSON`);
    const proto = byName.get(`${kind}, protobuf`);
    return json && proto ? `${fixed(proto.medianMs / json.medianMs, 2)}× the time, ${fixed(proto.bytes / json.bytes, 2)}× the bytes` : '-';
  };
  return (
    `3. list of ${opts.objects} ConfigMaps (${opts.listRounds} rounds, median shown; one client, HTTP/2 with client-go windows)\n\n` +
    formatTable(
      ['list', 'median ms', 'min ms', 'MiB', '|', 'apiserver CPU ms', 'etcd CPU ms', '|', '÷ raw', 'goal'],
      lists.map((l) => [
        l.name,
        fixed(l.medianMs, 1),
        fixed(l.minMs, 1),
        fixed(l.bytes / (1 << 20), 1),
        '|',
        l === raw ? '-' : fixed(l.apiserverCpuMs, 0),
        fixed(l.etcdCpuMs, 0),
        '|',
        fixed(l.medianMs / raw.medianMs, 2),
        goalOf(l),
      ]),
    ) +
    '\n' +
    `  protobuf vs JSON: resourceVersion=0 ${pb('resourceVersion=0')}; quorum ${pb('quorum')}\n` +
    '  time: request sent → last byte received (raw: range call → response decoded by the etcd3 client, values not parsed);\n' +
    '  CPU columns: per list, from /proc (10 ms ticks, averaged over the rounds)\n'
  );
}

type PhaseName = 'latency' | 'fanout' | 'lists';
const phaseNames: readonly PhaseName[] = ['latency', 'fanout', 'lists'];

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  const startLoad = loadavg();
  const log = (text: string): void => void process.stderr.write(`${text}\n`);
  const { etcd: etcdProcess, api, pids } = await startCluster(opts, cleanup, 'corral-bench-', { gcProbe: true });
  const memory: [string, ReturnType<typeof readProcess>][] = [['after start', readProcess(api.pid)]];

  const etcd = connectEtcd({ endpoints: etcdProcess.endpoints });
  cleanup.push(() => etcd.close());
  const client = new Http2Client(api.url, api.tls, clientGoWindows);
  cleanup.push(() => client.close());

  // Raw etcd values are shaped and sized exactly as corral stores such a ConfigMap.
  const data = configMapData(opts.dataBytes);
  await createNamespace(client, 'bench-probe');
  await expectStatus(client.request('POST', collection('bench-probe'), configMapBody('probe', data, stampAnnotations(0, wallNow()))), 201);
  const stored = await etcd.kv.range({ key: Buffer.from('/registry/configmaps/bench-probe/probe') });
  const storedValue = stored.kvs[0]?.value;
  if (!storedValue) throw new Error('the probe ConfigMap is not at /registry/configmaps/bench-probe/probe in etcd');

  const ctx: Context = {
    opts,
    api,
    pids,
    etcd,
    etcdEndpoints: etcdProcess.endpoints,
    client,
    data,
    raw: new RawValues(storedValue),
    phases: [],
    failures: [],
    log,
  };

  const sections: string[] = [];
  if (opts.phases.has('latency')) sections.push(await latencyPhase(ctx));
  if (opts.phases.has('fanout')) {
    sections.push(await fanoutPhase(ctx, cleanup));
    memory.push([`after the fan-out (${opts.watchers} watches closed)`, readProcess(api.pid)]);
  }
  if (opts.phases.has('lists')) {
    sections.push(await listPhase(ctx, cleanup));
    memory.push([`after the lists (${opts.objects} listed ConfigMaps cached)`, readProcess(api.pid)]);
  }

  // 4. memory.
  let heap: HeapReading | undefined;
  try {
    heap = await api.collectGarbage();
  } catch (err) {
    log(`no GC reading: ${err instanceof Error ? err.message : String(err)}`);
  }
  const afterGc = readProcess(api.pid);
  const memRows = memory.map(([when, r]) => [when, mib(r.rssKiB * 1024), '', '']);
  if (heap) memRows.push(['after a full GC', mib(afterGc.rssKiB * 1024), mib(heap.heapUsed), mib(heap.external)]);
  memRows.push(['peak RSS', mib(afterGc.hwmKiB * 1024), '', '']);
  sections.push(
    '4. API server memory\n\n' +
      formatTable(['when', 'RSS', 'heap used', 'external'], memRows) +
      '\n  external: memory of Buffers and other native objects held by JavaScript (process.memoryUsage().external)\n',
  );

  const pct = (ms: number, wallMs: number): string => fixed((100 * ms) / wallMs, 0);
  sections.push(
    formatTable(
      ['phase', 'wall s', 'CPU %: apiserver', 'etcd', 'bench', 'watcher child', 'other'],
      ctx.phases.map((p) => [
        p.name,
        fixed(p.wallMs / 1000, 2),
        pct(p.cpu.apiserver, p.wallMs),
        pct(p.cpu.etcd, p.wallMs),
        pct(p.cpu.bench, p.wallMs),
        p.watchersMs !== undefined ? pct(p.watchersMs, p.wallMs) : '-',
        pct(Math.max(0, p.cpu.machine - p.cpu.apiserver - p.cpu.etcd - p.cpu.bench - (p.watchersMs ?? 0)), p.wallMs),
      ]),
    ) + `\n  (100% = one core of ${cpus().length}; the API server runs its JavaScript on one thread; other: the rest of the machine)\n`,
  );

  const out = process.stdout;
  out.write(
    `\ncorral watch benchmark: node ${process.version}, ${cpus().length} CPUs shared by the bench client, the watcher child, the API server and etcd; ` +
      `${loadAverageAtStart(startLoad)}; ConfigMaps with ${opts.dataBytes} B of data (stored value ${storedValue.length} B)\n\n`,
  );
  out.write(sections.join('\n'));

  for (const f of ctx.failures) process.stderr.write(`FAILED: ${f}\n`);

  await reportProfile(api, opts.cpuProfileDir, 'start and every phase run');
  return ctx.failures.length === 0;
}

if (process.env[childRoleVariable]) {
  await fanoutChild().catch((err: unknown) => {
    process.stderr.write(`watcher child: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
} else {
  await benchMain(usage, parseOptions, run);
}
