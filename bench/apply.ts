/**
 * Server-side apply beside a plain update (PUT) in the same run, for two objects where field
 * ownership is large: a ConfigMap with 100 keys, and a Node's status with 20 conditions (a list
 * keyed by type, written through the status subresource). Every write changes one value:
 *
 *   - apply: PATCH application/apply-patch+yaml (a JSON body) of the whole configuration, with a
 *     fieldManager, as a controller applying its desired state does;
 *   - update: PUT of the object as the previous write answered it (resourceVersion and
 *     managedFields included), as a controller updating what it read does.
 *
 * Each series writes its own object of the same shape, sequentially (writes to one object are
 * serialized by resourceVersion anyway), so the figures are per-write latency and API server CPU
 * per write. Rounds interleave the four series so that load from elsewhere on the machine hits all
 * of them alike; each series reports its best round (lowest mean).
 *
 * Starts its own etcd (temp dir) and one API server child process; stops both before exiting,
 * also on --timeout, SIGINT and SIGTERM. Exits non-zero when a write failed or the objects do not
 * end as written.
 * Usage: npx tsx bench/apply.ts [--count N] [--warmup W] [--rounds R] [--timeout SECONDS]
 *          [--cpu-prof] [--cpu-prof-dir DIR] [--keep]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { benchMain, clusterFlagsUsage, clusterOptions, keepFlag, positiveInt, profileFlags } from './cli.ts';
import { reportProfile, startCluster, type ClusterOptions } from './cluster.ts';
import {
  expectStatus,
  fixed,
  formatTable,
  Http2Client,
  loadAverageAtStart,
  mib,
  readProcess,
  runPool,
  summarize,
  type Cleanup,
  type HttpClient,
  type Summary,
} from './lib.ts';

const usage =
  `Usage: npx tsx bench/apply.ts [options]
  --count N           measured writes per series and round (default 300)
  --warmup W          unmeasured writes per series first (default 100)
  --rounds R          repeat the measured series R times, interleaved; report each one's best (default 3)
  --timeout SECONDS   abort the whole run after this long (default 300)
` + clusterFlagsUsage(20);

interface Options extends ClusterOptions {
  count: number;
  warmup: number;
  rounds: number;
  timeoutMs: number;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      count: { type: 'string', default: '300' },
      warmup: { type: 'string', default: '100' },
      rounds: { type: 'string', default: '3' },
      timeout: { type: 'string', default: '300' },
      ...profileFlags,
      ...keepFlag,
    },
  });
  if (values.help) return undefined;
  return {
    count: positiveInt(values.count, 'count'),
    warmup: positiveInt(values.warmup, 'warmup', 0),
    rounds: positiveInt(values.rounds, 'rounds'),
    timeoutMs: positiveInt(values.timeout, 'timeout') * 1000,
    ...clusterOptions(values),
  };
}

// ---------------------------------------------------------------------------------------------
// The objects.

type Json = Record<string, unknown>;

const namespace = 'default';
const configMapKeys = 100;
const nodeConditions = 20;
const applyHeaders = { 'content-type': 'application/apply-patch+yaml' };

/**
 * One value of write `seq` for slot `slot`: the same length every time, so that request and stored
 * sizes stay constant through the run.
 */
const valueOf = (slot: number, seq: number): string => `value-${String(slot).padStart(3, '0')}-${String(seq).padStart(9, '0')}`;

/** The ConfigMap as written by write `seq`: key `seq mod 100` carries the new value. */
function configMap(name: string, seq: number): Json {
  const data: Record<string, string> = {};
  const changed = seq % configMapKeys;
  for (let k = 0; k < configMapKeys; k++) data[`key-${String(k).padStart(3, '0')}`] = valueOf(k, k === changed ? seq : 0);
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

/** A kubelet-like condition list as written by write `seq`: condition `seq mod 20` gets a new message. */
function conditions(seq: number): Json[] {
  const changed = seq % nodeConditions;
  return Array.from({ length: nodeConditions }, (_, k) => ({
    type: `Condition${String(k).padStart(2, '0')}`,
    status: 'False',
    lastHeartbeatTime: '2026-01-01T00:00:00Z',
    lastTransitionTime: '2026-01-01T00:00:00Z',
    reason: 'Nominal',
    message: `condition ${k}: ${valueOf(k, k === changed ? seq : 0)}`,
  }));
}

function nodeStatus(name: string, seq: number): Json {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { conditions: conditions(seq) } };
}

/** What a series writes and where; `expected` checks the object at the end against the last write. */
interface SeriesTarget {
  label: string;
  /** Writes number `seq`; resolves with the request body's size. */
  write(seq: number): Promise<number>;
  read(): Promise<Json>;
  expected(obj: Json, seq: number): string | undefined;
}

const bytes = (body: Json): Buffer => Buffer.from(JSON.stringify(body));

async function jsonOf(pending: ReturnType<HttpClient['request']>, status: number): Promise<Json> {
  const res = await expectStatus(pending, status);
  return JSON.parse(res.body.toString('utf8')) as Json;
}

const metadataOf = (obj: Json): Json => (obj.metadata ?? {}) as Json;
const managersOf = (obj: Json): string[] =>
  ((metadataOf(obj).managedFields ?? []) as Json[]).map(
    (e) => `${String(e.manager)} ${String(e.operation)}${e.subresource ? ` ${String(e.subresource)}` : ''}`,
  );

function sameManagers(obj: Json, expected: string[]): string | undefined {
  const actual = managersOf(obj);
  return JSON.stringify(actual) === JSON.stringify(expected) ? undefined : `managedFields ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`;
}

/** Server-side apply of the whole ConfigMap by one manager. */
async function configMapApply(client: HttpClient, name: string): Promise<SeriesTarget> {
  const path = `/api/v1/namespaces/${namespace}/configmaps/${name}`;
  await expectStatus(client.request('PATCH', `${path}?fieldManager=bench-apply`, bytes(configMap(name, 0)), applyHeaders), 201);
  return {
    label: 'ConfigMap, 100 keys',
    async write(seq) {
      const body = bytes(configMap(name, seq));
      await expectStatus(client.request('PATCH', `${path}?fieldManager=bench-apply`, body, applyHeaders), 200);
      return body.length;
    },
    read: () => jsonOf(client.request('GET', path), 200),
    expected: (obj, seq) =>
      JSON.stringify(obj.data) !== JSON.stringify(configMap(name, seq).data) ? 'data differs from the last write' : sameManagers(obj, ['bench-apply Apply']),
  };
}

/** PUT of the ConfigMap as last answered, with one value changed. */
async function configMapUpdate(client: HttpClient, name: string): Promise<SeriesTarget> {
  const collection = `/api/v1/namespaces/${namespace}/configmaps`;
  const path = `${collection}/${name}`;
  let current = await jsonOf(client.request('POST', `${collection}?fieldManager=bench-put`, bytes(configMap(name, 0))), 201);
  return {
    label: 'ConfigMap, 100 keys',
    async write(seq) {
      const body = bytes({ ...current, data: configMap(name, seq).data });
      current = await jsonOf(client.request('PUT', `${path}?fieldManager=bench-put`, body), 200);
      return body.length;
    },
    read: () => jsonOf(client.request('GET', path), 200),
    expected: (obj, seq) =>
      JSON.stringify(obj.data) !== JSON.stringify(configMap(name, seq).data) ? 'data differs from the last write' : sameManagers(obj, ['bench-put Update']),
  };
}

/**
 * A Node registered with a label, as a kubelet registers it: an object whose creator owns nothing
 * has no managedFields, and updates never start tracking such an object (upstream's rule), which
 * would leave the PUT series without the managedFields work the apply series does.
 */
async function createNode(client: HttpClient, name: string): Promise<Json> {
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } };
  return jsonOf(client.request('POST', '/api/v1/nodes?fieldManager=bench-create', bytes(node)), 201);
}

const conditionsMatch = (obj: Json, seq: number): boolean => JSON.stringify((obj.status as Json | undefined)?.conditions) === JSON.stringify(conditions(seq));

/** Server-side apply of the Node's status conditions through the status subresource. */
async function nodeStatusApply(client: HttpClient, name: string): Promise<SeriesTarget> {
  const path = `/api/v1/nodes/${name}`;
  await createNode(client, name);
  await expectStatus(client.request('PATCH', `${path}/status?fieldManager=bench-apply`, bytes(nodeStatus(name, 0)), applyHeaders), 200);
  return {
    label: 'Node status, 20 conditions',
    async write(seq) {
      const body = bytes(nodeStatus(name, seq));
      await expectStatus(client.request('PATCH', `${path}/status?fieldManager=bench-apply`, body, applyHeaders), 200);
      return body.length;
    },
    read: () => jsonOf(client.request('GET', path), 200),
    expected: (obj, seq) =>
      conditionsMatch(obj, seq) ? sameManagers(obj, ['bench-apply Apply status', 'bench-create Update']) : 'conditions differ from the last write',
  };
}

/** PUT of the Node's status as last answered, with one condition changed. */
async function nodeStatusUpdate(client: HttpClient, name: string): Promise<SeriesTarget> {
  const path = `/api/v1/nodes/${name}`;
  const created = await createNode(client, name);
  let current = await jsonOf(client.request('PUT', `${path}/status?fieldManager=bench-put`, bytes({ ...created, status: { conditions: conditions(0) } })), 200);
  return {
    label: 'Node status, 20 conditions',
    async write(seq) {
      const body = bytes({ ...current, status: { ...(current.status as Json), conditions: conditions(seq) } });
      current = await jsonOf(client.request('PUT', `${path}/status?fieldManager=bench-put`, body), 200);
      return body.length;
    },
    read: () => jsonOf(client.request('GET', path), 200),
    expected: (obj, seq) =>
      conditionsMatch(obj, seq) ? sameManagers(obj, ['bench-create Update', 'bench-put Update status']) : 'conditions differ from the last write',
  };
}

// ---------------------------------------------------------------------------------------------
// Measurement.

interface Series {
  name: string;
  target: SeriesTarget;
  /** The next write's sequence number (writes never repeat a value). */
  next: number;
  requestBytes: number;
}

interface Phase {
  summary: Summary;
  meanMs: number;
  /** API server CPU per write, microseconds. */
  cpuUsPerOp: number;
  firstError: string | undefined;
}

async function runSeries(series: Series, count: number, pid: number): Promise<Phase> {
  const start = series.next;
  series.next += count;
  const cpuBefore = readProcess(pid).cpuMs;
  const result = await runPool(count, 1, async (i) => {
    series.requestBytes = await series.target.write(start + i);
  });
  const cpuAfter = readProcess(pid).cpuMs;
  const summary = summarize(result);
  const meanMs = result.latenciesMs.reduce((a, b) => a + b, 0) / count;
  return { summary, meanMs, cpuUsPerOp: ((cpuAfter - cpuBefore) * 1000) / count, firstError: result.firstError };
}

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  const startLoad = loadavg();
  const { api } = await startCluster(opts, cleanup, 'corral-bench-apply-');
  const client = new Http2Client(api.url, api.tls);
  cleanup.push(() => client.close());

  const series: Series[] = [
    { name: 'ConfigMap apply', target: await configMapApply(client, 'bench-apply'), next: 1, requestBytes: 0 },
    { name: 'ConfigMap PUT', target: await configMapUpdate(client, 'bench-put'), next: 1, requestBytes: 0 },
    { name: 'Node status apply', target: await nodeStatusApply(client, 'bench-apply-node'), next: 1, requestBytes: 0 },
    { name: 'Node status PUT', target: await nodeStatusUpdate(client, 'bench-put-node'), next: 1, requestBytes: 0 },
  ];

  if (opts.warmup > 0) {
    process.stderr.write(`warming up (${opts.warmup} writes per series)\n`);
    for (const s of series) {
      const phase = await runSeries(s, opts.warmup, api.pid);
      if (phase.summary.errors) throw new Error(`warm-up of ${s.name} failed ${phase.summary.errors} times; first: ${phase.firstError}`);
    }
  }

  const measured = new Map<string, Phase[]>();
  let failures = 0;
  for (let r = 1; r <= opts.rounds; r++) {
    for (const s of series) {
      const phase = await runSeries(s, opts.count, api.pid);
      measured.set(s.name, [...(measured.get(s.name) ?? []), phase]);
      failures += phase.summary.errors;
      process.stderr.write(
        `  round ${r} ${s.name.padEnd(18)} mean ${fixed(phase.meanMs, 2)} ms  p50 ${fixed(phase.summary.p50Ms, 2)} ms  p99 ${fixed(phase.summary.p99Ms, 2)} ms  ` +
          `${fixed(phase.cpuUsPerOp, 0)} µs CPU/write${phase.summary.errors ? `  ${phase.summary.errors} errors, first: ${phase.firstError}` : ''}\n`,
      );
    }
  }

  // The objects end as the last writes left them, with one manager each.
  const wrong: string[] = [];
  for (const s of series) {
    const problem = s.target.expected(await s.target.read(), s.next - 1);
    if (problem) wrong.push(`${s.name}: ${problem}`);
  }
  const stored = await Promise.all(series.map(async (s) => Buffer.byteLength(JSON.stringify(await s.target.read()))));
  const rss = readProcess(api.pid);

  const best = (name: string): Phase => (measured.get(name) ?? []).reduce((a, b) => (b.meanMs < a.meanMs ? b : a));
  const rows: string[][] = [];
  for (let i = 0; i < series.length; i += 2) {
    const apply = series[i]!;
    const put = series[i + 1]!;
    const a = best(apply.name);
    const p = best(put.name);
    rows.push([
      apply.target.label,
      fixed(a.meanMs, 2),
      fixed(a.summary.p50Ms, 2),
      fixed(a.summary.p99Ms, 2),
      fixed(a.cpuUsPerOp, 0),
      '|',
      fixed(p.meanMs, 2),
      fixed(p.summary.p50Ms, 2),
      fixed(p.summary.p99Ms, 2),
      fixed(p.cpuUsPerOp, 0),
      '|',
      fixed(a.meanMs / p.meanMs, 2),
      fixed(a.summary.p50Ms / p.summary.p50Ms, 2),
      fixed(a.cpuUsPerOp / p.cpuUsPerOp, 2),
      '|',
      `${apply.requestBytes} / ${put.requestBytes}`,
      `${stored[i]} / ${stored[i + 1]}`,
    ]);
  }

  const out = process.stdout;
  out.write(
    `\nServer-side apply vs update (PUT): ${opts.count} sequential writes per series and round, best of ${opts.rounds} rounds (lowest mean), ` +
      `one value changed per write; node ${process.version}, ${cpus().length} CPUs (client, API server and etcd share them), ` +
      `${loadAverageAtStart(startLoad)}\n\n`,
  );
  out.write(
    formatTable(
      [
        'object',
        'apply mean ms',
        'p50 ms',
        'p99 ms',
        'CPU µs/write',
        '|',
        'PUT mean ms',
        'p50 ms',
        'p99 ms',
        'CPU µs/write',
        '|',
        'apply÷PUT mean',
        'p50',
        'CPU',
        '|',
        'request B apply / PUT',
        'stored JSON B apply / PUT',
      ],
      rows,
    ) + '\n',
  );
  out.write(
    '  CPU µs/write: API server process CPU (all threads) during the series ÷ writes. A PUT body carries the object as\n' +
      '  answered (managedFields included); an apply body only the configuration. Both objects of a row carry the same\n' +
      "  number of managedFields entries (the Nodes: the creator's and the status writer's).\n\n",
  );
  out.write(`API server RSS ${mib(rss.rssKiB * 1024)}, peak ${mib(rss.hwmKiB * 1024)}\n`);

  for (const w of wrong) process.stderr.write(`wrong final state: ${w}\n`);
  if (failures) process.stderr.write(`${failures} writes failed\n`);

  await reportProfile(api, opts.cpuProfileDir, 'start, warm-up and every series');
  return failures === 0 && wrong.length === 0;
}

await benchMain(usage, parseOptions, run);
