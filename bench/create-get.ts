/**
 * ConfigMap create and get through corral's API, beside the same operations on raw etcd through
 * the etcd3 client (the physical limit: every create is one guarded txn, every get one range),
 * measured in the same run at the same concurrency.
 *
 * Starts its own etcd (temp dir) and one API server child process; stops both before exiting.
 * Usage: npx tsx bench/create-get.ts [--count N] [--concurrency C] [--data-bytes B] [--warmup W]
 *          [--timeout SECONDS] [--rounds R] [--skip-http1] [--cpu-prof] [--cpu-prof-dir DIR] [--keep]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Etcd3 } from 'etcd3';
import { connectEtcd } from '../apiserver/storage/etcd/store.ts';
import { benchMain, clusterFlagsUsage, clusterOptions, keepFlag, positiveInt, profileFlags } from './cli.ts';
import { clusterCpu, clusterCpuSince, reportProfile, startCluster, type ClusterCpu, type ClusterOptions, type Pids } from './cluster.ts';
import {
  configMapBody,
  configMapData,
  expectStatus,
  fixed,
  formatTable,
  Http1Client,
  Http2Client,
  loadAverageAtStart,
  mib,
  readProcess,
  runPool,
  summarize,
  type Cleanup,
  type HttpClient,
  type PoolResult,
  type Summary,
} from './lib.ts';

/** corral's throughput ÷ raw etcd's that this benchmark aims at. */
const goalRatio = 0.6;
const namespace = 'default';
const rawPrefix = '/bench-raw/configmaps/default/';

const usage =
  `Usage: npx tsx bench/create-get.ts [flags]
  --count N           creates, then as many gets, per measured phase (default 5000)
  --concurrency C     operations in flight (default 64)
  --data-bytes B      bytes of ConfigMap data (default 2048)
  --warmup W          unmeasured operations of each kind first (default 500)
  --timeout SECONDS   abort the whole run after this long (default 300)
  --rounds R          repeat the measured phases R times, interleaved; report each one's best (default 1)
  --skip-http1        measure HTTP/2 only
` + clusterFlagsUsage(20);

interface Options extends ClusterOptions {
  count: number;
  concurrency: number;
  dataBytes: number;
  warmup: number;
  timeoutMs: number;
  rounds: number;
  http1: boolean;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      count: { type: 'string', default: '5000' },
      concurrency: { type: 'string', default: '64' },
      'data-bytes': { type: 'string', default: '2048' },
      warmup: { type: 'string', default: '500' },
      timeout: { type: 'string', default: '300' },
      rounds: { type: 'string', default: '1' },
      'skip-http1': { type: 'boolean', default: false },
      ...profileFlags,
      ...keepFlag,
    },
  });
  if (values.help) return undefined;
  return {
    count: positiveInt(values.count, 'count'),
    concurrency: positiveInt(values.concurrency, 'concurrency'),
    dataBytes: positiveInt(values['data-bytes'], 'data-bytes', 0),
    warmup: positiveInt(values.warmup, 'warmup', 0),
    timeoutMs: positiveInt(values.timeout, 'timeout') * 1000,
    rounds: positiveInt(values.rounds, 'rounds'),
    http1: !values['skip-http1'],
    ...clusterOptions(values),
  };
}

const collection = `/api/v1/namespaces/${namespace}/configmaps`;

/** The operations of one measured target: create and get of object `i` of a named series. */
interface Target {
  create: (series: string, i: number) => Promise<void>;
  get: (series: string, i: number) => Promise<void>;
}

function corralTarget(client: HttpClient, data: Record<string, string>): Target {
  return {
    create: async (series, i) => void (await expectStatus(client.request('POST', collection, configMapBody(`${series}-${i}`, data)), 201)),
    get: async (series, i) => void (await expectStatus(client.request('GET', `${collection}/${series}-${i}`), 200)),
  };
}

/** Raw etcd, exactly as the store calls it: a create is a txn guarded by ModRevision(key) = 0. */
function etcdTarget(client: Etcd3, value: Buffer): Target {
  return {
    create: async (series, i) => {
      const key = Buffer.from(`${rawPrefix}${series}-${i}`);
      const res = await client.kv.txn({
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
        success: [{ request_put: { key, value } }],
      });
      if (!res.succeeded) throw new Error(`key ${key.toString()} already exists`);
    },
    get: async (series, i) => {
      const res = await client.kv.range({ key: Buffer.from(`${rawPrefix}${series}-${i}`) });
      if (res.kvs.length !== 1) throw new Error(`key ${rawPrefix}${series}-${i} not found`);
    },
  };
}

interface Phase {
  name: string;
  summary: Summary;
  firstError: string | undefined;
  wallMs: number;
  /** CPU time during the phase, milliseconds. */
  cpuMs: ClusterCpu;
}

async function measure(name: string, pids: Pids, count: number, concurrency: number, op: (i: number) => Promise<void>): Promise<Phase> {
  const before = clusterCpu(pids);
  const result: PoolResult = await runPool(count, concurrency, op);
  const cpuMs = clusterCpuSince(pids, before);
  const phase: Phase = { name, summary: summarize(result), firstError: result.firstError, wallMs: result.elapsedMs, cpuMs };
  process.stderr.write(
    `  ${name.padEnd(28)} ${fixed(phase.summary.opsPerSec, 0).padStart(7)} ops/s  p50 ${fixed(phase.summary.p50Ms, 2)} ms  p99 ${fixed(phase.summary.p99Ms, 2)} ms${result.errors ? `  ${result.errors} errors, first: ${result.firstError}` : ''}\n`,
  );
  return phase;
}

async function warmUp(target: Target, series: string, opts: Options): Promise<void> {
  if (opts.warmup === 0) return;
  for (const op of [target.create, target.get]) {
    const r = await runPool(opts.warmup, opts.concurrency, (i) => op(series, i));
    if (r.errors) throw new Error(`warm-up of ${series} failed ${r.errors} times; first: ${r.firstError}`);
  }
}

/** Measured create then get of `count` objects. */
async function createThenGet(label: string, target: Target, series: string, pids: Pids, opts: Options): Promise<[Phase, Phase]> {
  const create = await measure(`${label} create`, pids, opts.count, opts.concurrency, (i) => target.create(series, i));
  const get = await measure(`${label} get`, pids, opts.count, opts.concurrency, (i) => target.get(series, i));
  return [create, get];
}

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  const startLoad = loadavg();
  const { etcd, api, pids } = await startCluster(opts, cleanup, 'corral-bench-');
  const idle = readProcess(api.pid);

  const etcdClient = connectEtcd({ endpoints: etcd.endpoints });
  cleanup.push(() => etcdClient.close());
  const h2 = new Http2Client(api.url, api.tls);
  cleanup.push(() => h2.close());
  const h1 = new Http1Client(api.url, api.tls, opts.concurrency);
  cleanup.push(() => h1.close());

  // Raw etcd stores exactly what corral stores for such a ConfigMap: read one back from etcd.
  const data = configMapData(opts.dataBytes);
  await expectStatus(h2.request('POST', collection, configMapBody('probe', data)), 201);
  const stored = await etcdClient.kv.range({ key: Buffer.from(`/registry/configmaps/${namespace}/probe`) });
  const value = stored.kvs[0]?.value;
  if (!value) throw new Error('the probe ConfigMap is not at /registry/configmaps/default/probe in etcd');

  const corralH2 = corralTarget(h2, data);
  const corralH1 = corralTarget(h1, data);
  const raw = etcdTarget(etcdClient, value);
  process.stderr.write(`warming up (${opts.warmup} of each operation)\n`);
  await warmUp(raw, 'warm', opts);
  await warmUp(corralH2, 'warm-h2', opts);
  if (opts.http1) await warmUp(corralH1, 'warm-h1', opts);

  process.stderr.write(`measuring ${opts.count} creates then ${opts.count} gets at concurrency ${opts.concurrency}\n`);
  // Rounds interleave the targets, so that a burst of load from elsewhere on the machine hits all
  // of them alike; each phase reports its best round.
  const measured = new Map<string, Phase[]>();
  for (let r = 1; r <= opts.rounds; r++) {
    if (opts.rounds > 1) process.stderr.write(`round ${r} of ${opts.rounds}\n`);
    const phases = [
      ...(await createThenGet('etcd', raw, `obj-r${r}`, pids, opts)),
      ...(await createThenGet('corral HTTP/2', corralH2, `h2-r${r}`, pids, opts)),
      ...(opts.http1 ? await createThenGet('corral HTTP/1.1', corralH1, `h1-r${r}`, pids, opts) : []),
    ];
    for (const p of phases) measured.set(p.name, [...(measured.get(p.name) ?? []), p]);
  }
  const best = (name: string): Phase => {
    const all = measured.get(name) ?? [];
    if (!all.length) throw new Error(`no phase ${name} was measured`);
    return all.reduce((a, b) => (b.summary.opsPerSec > a.summary.opsPerSec ? b : a));
  };
  const after = readProcess(api.pid);

  const rows: string[][] = [];
  const perOp = (cpuMs: number): number => (1000 * cpuMs) / opts.count;
  const row = (operation: string, corral: Phase, baseline: Phase, etcdOp: string): void => {
    const ratio = corral.summary.opsPerSec / baseline.summary.opsPerSec;
    const cpuRatio = perOp(baseline.cpuMs.bench) / perOp(corral.cpuMs.apiserver);
    rows.push([
      operation,
      fixed(corral.summary.opsPerSec, 0),
      fixed(corral.summary.p50Ms, 2),
      fixed(corral.summary.p99Ms, 2),
      '|',
      etcdOp,
      fixed(baseline.summary.opsPerSec, 0),
      fixed(baseline.summary.p50Ms, 2),
      fixed(baseline.summary.p99Ms, 2),
      '|',
      fixed(ratio, 2),
      `≥ ${goalRatio} ${ratio >= goalRatio ? 'met' : 'MISSED'}`,
      '|',
      fixed(cpuRatio, 2),
    ]);
  };
  row('create (HTTP/2, 1 connection)', best('corral HTTP/2 create'), best('etcd create'), 'txn-create');
  row('get (HTTP/2, 1 connection)', best('corral HTTP/2 get'), best('etcd get'), 'get');
  if (opts.http1) {
    row(`create (HTTP/1.1, ${opts.concurrency} keep-alive)`, best('corral HTTP/1.1 create'), best('etcd create'), 'txn-create');
    row(`get (HTTP/1.1, ${opts.concurrency} keep-alive)`, best('corral HTTP/1.1 get'), best('etcd get'), 'get');
  }

  const phases = [...measured.keys()].map(best);
  const pct = (ms: number, wallMs: number): string => fixed((100 * ms) / wallMs, 0);
  const cpuRows = phases.map((p): string[] => [
    p.name,
    fixed(p.wallMs / 1000, 2),
    pct(p.cpuMs.apiserver, p.wallMs),
    pct(p.cpuMs.etcd, p.wallMs),
    pct(p.cpuMs.bench, p.wallMs),
    pct(Math.max(0, p.cpuMs.machine - p.cpuMs.apiserver - p.cpuMs.etcd - p.cpuMs.bench), p.wallMs),
    '|',
    fixed(perOp(p.cpuMs.apiserver), 0),
    fixed(perOp(p.cpuMs.etcd), 0),
    fixed(perOp(p.cpuMs.bench), 0),
  ]);

  const out = process.stdout;
  out.write(
    `\nConfigMap create/get: ${opts.count} of each${opts.rounds > 1 ? ` (best of ${opts.rounds} rounds)` : ''}, concurrency ${opts.concurrency}, ${opts.dataBytes} B of data ` +
      `(stored value ${value.length} B), node ${process.version}, ${cpus().length} CPUs (client, API server and etcd share them), ${loadAverageAtStart(startLoad)}\n\n`,
  );
  out.write(
    formatTable(['operation', 'corral ops/s', 'p50 ms', 'p99 ms', '|', 'etcd op', 'ops/s', 'p50 ms', 'p99 ms', '|', 'ratio', 'goal', '|', 'CPU ratio'], rows) +
      '\n',
  );
  out.write(
    "  CPU ratio: CPU per raw op of the bench process (the etcd3 client, the baseline's busiest thread) ÷ CPU per op of the\n" +
      '  API server: the throughput ratio if each side ran alone, bound by its busiest thread; less sensitive to other load.\n\n',
  );
  out.write(
    formatTable(
      ['phase', 'wall s', 'CPU %: apiserver', 'etcd', 'bench client', 'other processes', '|', 'CPU µs/op: apiserver', 'etcd', 'bench client'],
      cpuRows,
    ) + '\n',
  );
  out.write(`  (100% = one core of ${cpus().length}; the API server runs its JavaScript on one thread; "other processes" is the rest of the machine)\n\n`);
  out.write(`API server RSS: ${mib(idle.rssKiB * 1024)} after start, ${mib(after.rssKiB * 1024)} after the run, peak ${mib(after.hwmKiB * 1024)}\n`);

  const failed = [...measured.values()].flat().filter((p) => p.summary.errors > 0);
  for (const p of failed) process.stderr.write(`${p.name}: ${p.summary.errors} errors; first: ${p.firstError}\n`);

  await reportProfile(api, opts.cpuProfileDir, 'start, warm-up and every phase');
  return failed.length === 0;
}

await benchMain(usage, parseOptions, run);
