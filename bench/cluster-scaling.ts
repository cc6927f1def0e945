/**
 * How ConfigMap creates and gets scale with API server replicas: for each replica count of
 * --replicas (1, then 2, then 3 by default), a fresh process topology (cluster/topology.ts: a
 * 3-member etcd, the replicas, haproxy in TCP mode in front of them, 2 controller managers) in a
 * temp dir of its own, stopped before the next one starts. Per replica count, in the same run:
 *
 * - raw etcd at the same concurrency on that same 3-member etcd (its own key prefix, the etcd3
 *   client as the store calls it: a create is a txn guarded by ModRevision = 0, a get one range),
 *   then creates and gets through the load balancer over HTTP/1.1 keep-alive with as many sockets
 *   as the concurrency (haproxy balances connections, not requests: one HTTP/2 connection would
 *   reach one replica);
 * - throughput, p50 and p99 of each, the ratio corral ÷ raw etcd and the ratio to the first
 *   replica count of the run;
 * - CPU seconds (and share of the wall time) of each API server, etcd member, haproxy, the
 *   controller managers and this process during each measured phase, and the rest of the machine;
 * - each replica's share of the ConfigMap requests (its own apiserver_request_total, read from its
 *   /metrics directly) beside the even share;
 * - a summary of how it scales and what limits it.
 *
 * Usage: npx tsx bench/cluster-scaling.ts [--count N] [--concurrency C] [--data-bytes B]
 *          [--replicas 1,2,3] [--warmup W] [--timeout SECONDS] [--keep]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Etcd3 } from 'etcd3';
import { connectEtcd } from '../apiserver/storage/etcd/store.ts';
import { startTopology, type Topology } from '../cluster/topology.ts';
import { benchMain, keepFlag, positiveInt } from './cli.ts';
import {
  Cleanup,
  configMapBody,
  configMapData,
  expectStatus,
  fixed,
  formatTable,
  Http1Client,
  loadAverageAtStart,
  machineBusyMs,
  ownCpuMs,
  readProcess,
  runPool,
  summarize,
  type ClientTls,
  type HttpClient,
  type Summary,
} from './lib.ts';

const namespace = 'default';
const collection = `/api/v1/namespaces/${namespace}/configmaps`;
const rawPrefix = '/bench-raw/configmaps/default/';
/** A process at this share of one core or more is taken as saturated, and so is the machine at this share of all cores. */
const saturated = 0.9;

const usage = `Usage: npx tsx bench/cluster-scaling.ts [flags]
  --count N           creates, then as many gets, per measured phase (default 2000)
  --concurrency C     operations in flight, and HTTP/1.1 keep-alive sockets to the balancer (default 32)
  --data-bytes B      bytes of ConfigMap data (default 1024)
  --replicas LIST     API server replica counts to measure, in order, comma-separated, 1 to 9 (default 1,2,3)
  --warmup W          unmeasured operations of each kind first, per target and replica count (default 200)
  --timeout SECONDS   abort the whole run after this long (default 1800)
  --keep              keep the temp dirs (etcd data, every component's log)
`;

/** The options of the command line (undefined for --help). */
function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      replicas: { type: 'string', default: '1,2,3' },
      count: { type: 'string', default: '2000' },
      concurrency: { type: 'string', default: '32' },
      'data-bytes': { type: 'string', default: '1024' },
      warmup: { type: 'string', default: '200' },
      timeout: { type: 'string', default: '1800' },
      help: { type: 'boolean', default: false },
      ...keepFlag,
    },
  });
  if (values.help) return undefined;
  const replicas = values.replicas.split(',').map((r) => positiveInt(r.trim(), 'replicas'));
  if (replicas.some((r) => r > 9)) throw new Error(`--replicas: at most 9 API servers, got ${values.replicas}`);
  return {
    replicas,
    count: positiveInt(values.count, 'count'),
    concurrency: positiveInt(values.concurrency, 'concurrency'),
    dataBytes: positiveInt(values['data-bytes'], 'data-bytes', 0),
    warmup: positiveInt(values.warmup, 'warmup', 0),
    timeoutMs: positiveInt(values.timeout, 'timeout') * 1000,
    keep: values.keep,
  };
}

type Options = NonNullable<ReturnType<typeof parseOptions>>;

// ---------------------------------------------------------------------------------------------
// Operations

type Op = (i: number) => Promise<void>;

/** Create and get of object `i` of one series of names. */
interface Ops {
  create: Op;
  get: Op;
}

function corralOps(client: HttpClient, series: string, data: Record<string, string>): Ops {
  const name = (i: number): string => `${series}-${i}`;
  return {
    create: async (i) => void (await expectStatus(client.request('POST', collection, configMapBody(name(i), data)), 201)),
    get: async (i) => void (await expectStatus(client.request('GET', `${collection}/${name(i)}`), 200)),
  };
}

/** What the store sends etcd for such a ConfigMap create and get, on keys of `rawPrefix`. */
function rawOps(etcd: Etcd3, series: string, value: Buffer): Ops {
  const key = (i: number): Buffer => Buffer.from(`${rawPrefix}${series}-${i}`);
  return {
    create: async (i) => {
      const k = key(i);
      const put = await etcd.kv.txn({ compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: 0 }], success: [{ request_put: { key: k, value } }] });
      if (!put.succeeded) throw new Error(`${k.toString()} exists already`);
    },
    get: async (i) => {
      if ((await etcd.kv.range({ key: key(i) })).kvs.length !== 1) throw new Error(`${key(i).toString()} is missing`);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Processes, CPU and request counts

interface Proc {
  name: string;
  kind: 'apiserver' | 'etcd' | 'haproxy' | 'controller-manager';
  pid: number;
}

function pidOf(name: string, pid: number | undefined): number {
  if (pid === undefined) throw new Error(`${name} is not running`);
  return pid;
}

function topologyProcs(t: Topology): Proc[] {
  return [
    ...t.apiServers.map((a, i): Proc => ({ name: `apiserver-${i}`, kind: 'apiserver', pid: pidOf(`apiserver-${i}`, a.process.child?.pid) })),
    ...t.etcd.members.map((m, i): Proc => ({ name: `etcd-${i}`, kind: 'etcd', pid: pidOf(`etcd-${i}`, m?.child.pid) })),
    { name: 'haproxy', kind: 'haproxy', pid: pidOf('haproxy', t.haproxy.process.child?.pid) },
    ...t.controllerManagers.map((c, i): Proc => ({ name: `cm-${i}`, kind: 'controller-manager', pid: pidOf(`cm-${i}`, c.process.child?.pid) })),
  ];
}

/** CPU time so far, in milliseconds: of each process of a topology, of this process, of the whole machine. */
interface CpuReading {
  procs: number[];
  bench: number;
  machine: number;
}

function readCpu(procs: readonly Proc[]): CpuReading {
  return { procs: procs.map((p) => readProcess(p.pid).cpuMs), bench: ownCpuMs(), machine: machineBusyMs() };
}

function cpuSince(procs: readonly Proc[], before: CpuReading): CpuReading {
  const now = readCpu(procs);
  return { procs: now.procs.map((ms, i) => ms - (before.procs[i] ?? 0)), bench: now.bench - before.bench, machine: now.machine - before.machine };
}

/** ConfigMap requests (every verb and code) a replica counted in its apiserver_request_total. */
async function configMapRequests(client: HttpClient): Promise<number> {
  const text = (await expectStatus(client.request('GET', '/metrics', undefined, { accept: 'text/plain' }), 200)).body.toString('utf8');
  let total = 0;
  for (const m of text.matchAll(/^apiserver_request_total\{([^}]*)\} (\S+)$/gm)) {
    if (m[1]?.includes('resource="configmaps"')) total += Number(m[2]);
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// Measuring

interface Phase {
  summary: Summary;
  firstError: string | undefined;
  wallMs: number;
  cpu: CpuReading;
  /** ConfigMap requests each replica served during the phase (corral phases only). */
  requests: number[];
}

interface Round {
  replicas: number;
  procs: Proc[];
  load: number[];
  raw: { create: Phase; get: Phase };
  corral: { create: Phase; get: Phase };
}

async function measure(label: string, procs: readonly Proc[], opts: Options, op: Op, metrics: readonly HttpClient[] = []): Promise<Phase> {
  const requestsBefore = await Promise.all(metrics.map(configMapRequests));
  const before = readCpu(procs);
  const result = await runPool(opts.count, opts.concurrency, op);
  const cpu = cpuSince(procs, before);
  const requestsAfter = await Promise.all(metrics.map(configMapRequests));
  const summary = summarize(result);
  process.stderr.write(
    `  ${label.padEnd(14)} ${fixed(summary.opsPerSec, 0).padStart(7)} ops/s  p50 ${fixed(summary.p50Ms, 2)} ms  p99 ${fixed(summary.p99Ms, 2)} ms` +
      `${result.errors ? `  ${result.errors} errors, first: ${result.firstError}` : ''}\n`,
  );
  return { summary, firstError: result.firstError, wallMs: result.elapsedMs, cpu, requests: requestsAfter.map((n, i) => n - (requestsBefore[i] ?? 0)) };
}

async function warmUp(ops: Ops, opts: Options): Promise<void> {
  if (opts.warmup === 0) return;
  for (const op of [ops.create, ops.get]) {
    const r = await runPool(opts.warmup, opts.concurrency, op);
    if (r.errors) throw new Error(`warm-up failed ${r.errors} times; first: ${r.firstError}`);
  }
}

/** One replica count: its own topology, raw etcd, then corral through the balancer; stops it all before returning. */
async function measureRound(replicas: number, opts: Options, cleanup: Cleanup): Promise<Round> {
  const scope = new Cleanup();
  cleanup.push(() => scope.run());
  try {
    const load = loadavg();
    const dir = mkdtempSync(join(tmpdir(), `corral-bench-cluster-${replicas}-`));
    if (!opts.keep) scope.push(() => rmSync(dir, { recursive: true, force: true }));
    process.stderr.write(`\n${replicas} API server replica(s): temp dir ${dir}, ${loadAverageAtStart(load)}\n`);
    const topology = await startTopology({
      dir,
      apiServers: replicas,
      nodes: 0,
      prometheus: false,
      runtime: 'source',
      log: (m) => process.stderr.write(`  ${m}\n`),
    });
    scope.push(() => topology.stop());
    const procs = topologyProcs(topology);
    const { pki } = topology.files;
    const tls: ClientTls = { ca: readFileSync(pki.caCert, 'utf8'), cert: readFileSync(pki.adminCert, 'utf8'), key: readFileSync(pki.adminKey, 'utf8') };
    const client = (url: string, sockets: number): HttpClient => {
      const c = new Http1Client(url, tls, sockets);
      scope.push(() => c.close());
      return c;
    };
    const metrics = topology.apiServers.map((a) => client(a.url, 1));
    const etcd = connectEtcd({ endpoints: topology.etcd.endpoints });
    scope.push(() => etcd.close());

    // Raw etcd stores what corral stores for such a ConfigMap: create one and read it back from etcd.
    const data = configMapData(opts.dataBytes);
    const series = `bench-${replicas}r`;
    const probe = client(topology.url, 1);
    await expectStatus(probe.request('POST', collection, configMapBody(`${series}-probe`, data)), 201);
    await probe.close();
    const value = (await etcd.kv.range({ key: Buffer.from(`/registry/configmaps/${namespace}/${series}-probe`) })).kvs[0]?.value;
    if (!value) throw new Error(`the probe ConfigMap is not at /registry/configmaps/${namespace}/${series}-probe in etcd`);

    // Raw etcd first: the balancer's keep-alive connections then go straight from warm-up to measurement.
    await warmUp(rawOps(etcd, `${series}-warm`, value), opts);
    const raw = rawOps(etcd, series, value);
    const rawCreate = await measure('etcd create', procs, opts, raw.create);
    const rawGet = await measure('etcd get', procs, opts, raw.get);

    const lb = client(topology.url, opts.concurrency);
    await warmUp(corralOps(lb, `${series}-warm`, data), opts);
    const corral = corralOps(lb, series, data);
    const corralCreate = await measure('corral create', procs, opts, corral.create, metrics);
    const corralGet = await measure('corral get', procs, opts, corral.get, metrics);
    return { replicas, procs, load, raw: { create: rawCreate, get: rawGet }, corral: { create: corralCreate, get: corralGet } };
  } finally {
    await scope.run();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const pct = (ms: number, wallMs: number): number => (100 * ms) / wallMs;

/** The CPU of a phase by process, this process (`bench`) and the rest of the machine (`other`), in milliseconds. */
function cpuByName(round: Round, phase: Phase): Map<string, number> {
  const byName = new Map(round.procs.map((p, i) => [p.name, phase.cpu.procs[i] ?? 0]));
  byName.set('bench', phase.cpu.bench);
  const known = phase.cpu.procs.reduce((a, b) => a + b, 0) + phase.cpu.bench;
  byName.set('other', Math.max(0, phase.cpu.machine - known));
  return byName;
}

/** What limited a phase, from its CPU figures: the machine's cores, one process's core, or neither. */
function verdict(round: Round, phase: Phase, cores: number, concurrency: number): string {
  const share = (ms: number): number => pct(ms, phase.wallMs);
  const kind = (k: Proc['kind']): number => round.procs.reduce((sum, p, i) => (p.kind === k ? sum + (phase.cpu.procs[i] ?? 0) : sum), 0);
  const groups: [string, number][] = [
    ['API servers', share(kind('apiserver'))],
    ['etcd', share(kind('etcd'))],
    ['haproxy', share(kind('haproxy'))],
    ['controller managers', share(kind('controller-manager'))],
    ['bench', share(phase.cpu.bench)],
    ['other processes', share(cpuByName(round, phase).get('other') ?? 0)],
  ];
  const shares = groups
    .filter(([, p]) => p >= 5)
    .sort((a, b) => b[1] - a[1])
    .map(([name, p]) => `${name} ${fixed(p, 0)}%`)
    .join(', ');
  const machine = `machine ${fixed(share(phase.cpu.machine), 0)}% of ${100 * cores}%`;
  const busiest = round.procs.map((p, i): [string, number] => [p.name, share(phase.cpu.procs[i] ?? 0)]).reduce((a, b) => (b[1] > a[1] ? b : a));
  if (share(phase.cpu.machine) >= saturated * 100 * cores) return `CPU-bound, ${machine}: ${shares}; busiest process ${busiest[0]} ${fixed(busiest[1], 0)}%`;
  if (busiest[1] >= saturated * 100) return `${busiest[0]} at ${fixed(busiest[1], 0)}%, one core (${machine}: ${shares})`;
  const inFlight = (phase.summary.opsPerSec * phase.summary.p50Ms) / 1000;
  return `no core saturated (${machine}: ${shares}): latency-bound, ~${fixed(inFlight, 0)} of ${concurrency} in flight at p50`;
}

function report(rounds: readonly Round[], opts: Options, startLoad: number[]): void {
  const cores = cpus().length;
  const base = rounds[0];
  if (!base) return;
  const out = process.stdout;
  out.write(
    `\nConfigMap create/get through haproxy (TCP, roundrobin per connection) to N API server replicas on a 3-member etcd, ` +
      `beside raw etcd on that same etcd: ${opts.count} of each, concurrency ${opts.concurrency} (HTTP/1.1 keep-alive sockets), ` +
      `${opts.dataBytes} B of data; node ${process.version}, ${cores} CPUs shared by every process, ${loadAverageAtStart(startLoad)}\n\n`,
  );

  const ops = ['create', 'get'] as const;
  const figures = (s: Summary): string[] => [fixed(s.opsPerSec, 0), fixed(s.p50Ms, 2), fixed(s.p99Ms, 2)];
  const rows = rounds.flatMap((r) =>
    ops.map((op): string[] => {
      const c = r.corral[op].summary;
      const e = r.raw[op].summary;
      const c1 = base.corral[op].summary;
      const e1 = base.raw[op].summary;
      return [
        `${r.replicas} ${op}`,
        ...figures(c),
        '|',
        ...figures(e),
        '|',
        fixed(c.opsPerSec / e.opsPerSec, 2),
        fixed(c.p99Ms / e.p99Ms, 1),
        '|',
        fixed(c.opsPerSec / c1.opsPerSec, 2),
        fixed(e.opsPerSec / e1.opsPerSec, 2),
        fixed(c.opsPerSec / e.opsPerSec / (c1.opsPerSec / e1.opsPerSec), 2),
      ];
    }),
  );
  out.write(
    formatTable(
      [
        'replicas op',
        'corral ops/s',
        'p50 ms',
        'p99 ms',
        '|',
        'raw etcd ops/s',
        'p50 ms',
        'p99 ms',
        '|',
        'corral/raw ops',
        'p99',
        '|',
        `corral vs ${base.replicas}r`,
        `raw vs ${base.replicas}r`,
        'corral/raw vs',
      ],
      rows,
    ) + '\n',
  );
  out.write(
    `  vs ${base.replicas}r: ops/s ÷ the same figure with ${base.replicas} replica(s); raw etcd's should stay near 1 (a drift is machine noise),\n` +
      `  and "corral/raw vs" divides corral's by it: the scaling with the noise taken out.\n\n`,
  );

  const most = Math.max(...rounds.map((r) => r.replicas));
  const columns = [...Array.from({ length: most }, (_, i) => `apiserver-${i}`), 'etcd-0', 'etcd-1', 'etcd-2', 'haproxy', 'cm-*', 'bench', 'other', 'machine'];
  const cpuRows = rounds.flatMap((r) =>
    (['raw', 'corral'] as const).flatMap((target) =>
      ops.map((op): string[] => {
        const phase = r[target][op];
        const byName = cpuByName(r, phase);
        const managers = r.procs.filter((p) => p.kind === 'controller-manager').reduce((sum, p) => sum + (byName.get(p.name) ?? 0), 0);
        const cell = (ms: number | undefined): string => (ms === undefined ? '-' : `${fixed(ms / 1000, 2)} (${fixed(pct(ms, phase.wallMs), 0)}%)`);
        return [
          `${r.replicas} ${target === 'raw' ? 'etcd' : 'corral'} ${op}`,
          fixed(phase.wallMs / 1000, 2),
          ...columns.map((n) => cell(n === 'cm-*' ? managers : n === 'machine' ? phase.cpu.machine : byName.get(n))),
        ];
      }),
    ),
  );
  out.write(formatTable(['replicas phase', 'wall s', ...columns], cpuRows) + '\n');
  out.write(
    `  CPU seconds during the phase (% of its wall time; 100% = one core, the machine's ${cores} cores = ${100 * cores}%). cm-*: both controller\n` +
      `  managers; bench: this process (HTTP and etcd3 clients); other: the rest of the machine; machine: all of it.\n\n`,
  );

  const spreadRows = rounds.flatMap((r) => {
    const apiservers = r.procs.filter((p) => p.kind === 'apiserver');
    const requests = apiservers.map((_, i) => (r.corral.create.requests[i] ?? 0) + (r.corral.get.requests[i] ?? 0));
    const total = requests.reduce((a, b) => a + b, 0);
    const cpuMs = apiservers.map((p) => [r.corral.create, r.corral.get].reduce((sum, phase) => sum + (cpuByName(r, phase).get(p.name) ?? 0), 0));
    const cpuTotal = cpuMs.reduce((a, b) => a + b, 0);
    const even = 1 / apiservers.length;
    return apiservers.map((p, i): string[] => [
      `${r.replicas} ${p.name}`,
      fixed(r.load[0] ?? NaN, 1),
      String(requests[i] ?? 0),
      `${fixed((100 * (requests[i] ?? 0)) / total, 0)}%`,
      `${fixed(100 * even, 0)}%`,
      fixed((requests[i] ?? 0) / total / even, 2),
      '|',
      fixed((cpuMs[i] ?? 0) / 1000, 2),
      `${fixed((100 * (cpuMs[i] ?? 0)) / cpuTotal, 0)}%`,
      fixed((cpuMs[i] ?? 0) / cpuTotal / even, 2),
    ]);
  });
  out.write(
    formatTable(['replicas replica', 'load 1m', 'ConfigMap requests', 'share', 'even share', 'ratio', '|', 'CPU s', 'CPU share', 'ratio'], spreadRows) + '\n',
  );
  const split = (n: number): string =>
    n === 1 ? '' : ` (${opts.concurrency} sockets over ${n}: ${Array.from({ length: n }, (_, i) => Math.floor((opts.concurrency + n - 1 - i) / n)).join('/')})`;
  out.write(
    `  Requests: the replica's own apiserver_request_total{resource="configmaps"} over the measured corral create and get phases. haproxy\n` +
      `  deals connections round robin, so the best spread is the sockets' split${rounds.map((r) => split(r.replicas)).join('')}.\n\n`,
  );

  const last = rounds[rounds.length - 1] ?? base;
  const scale = (op: (typeof ops)[number]): string =>
    `${op} ${fixed(base.corral[op].summary.opsPerSec, 0)} → ${fixed(last.corral[op].summary.opsPerSec, 0)} ops/s ` +
    `(×${fixed(last.corral[op].summary.opsPerSec / base.corral[op].summary.opsPerSec, 2)}; raw etcd ×${fixed(last.raw[op].summary.opsPerSec / base.raw[op].summary.opsPerSec, 2)})`;
  const limit = (r: Round): string =>
    `at ${r.replicas} replica(s): create: ${verdict(r, r.corral.create, cores, opts.concurrency)}; get: ${verdict(r, r.corral.get, cores, opts.concurrency)}`;
  out.write(`Summary: from ${base.replicas} to ${last.replicas} replicas, corral ${scale('create')}, ${scale('get')}.\n`);
  out.write(`  Limit ${limit(base)}.\n`);
  if (last !== base) out.write(`  Limit ${limit(last)}.\n`);
}

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  const startLoad = loadavg();
  const rounds: Round[] = [];
  for (const replicas of opts.replicas) rounds.push(await measureRound(replicas, opts, cleanup));
  report(rounds, opts, startLoad);
  const failed = rounds.flatMap((r) =>
    [r.raw.create, r.raw.get, r.corral.create, r.corral.get]
      .filter((p) => p.summary.errors > 0)
      .map((p) => `${r.replicas} replica(s): ${p.summary.errors} errors; first: ${p.firstError}`),
  );
  for (const f of failed) process.stderr.write(`${f}\n`);
  return failed.length === 0;
}

await benchMain(usage, parseOptions, run);
