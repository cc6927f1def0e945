/**
 * What one client's large requests cost everyone else: GETs of a small ConfigMap alone, then the
 * same GETs while another client sends large writes, then large reads, then small updates of a
 * large stored object, in the same run. The large writes are Node creates of about 3 MiB (the request body limit, ~150,000
 * labels), each object over etcd's request limit once stored (the server answers 413 and must stay
 * healthy), in turn with `?dryRun=All` creates of the same body (the whole write path without the
 * storage write) and `?dryRun=All` server-side applies of it (decoding, merging and ownership of an
 * apply that creates). The large reads are a stored ConfigMap of 40,000 keys read as YAML, as
 * pretty JSON and as protobuf, in turn with a `?dryRun=All` update of it from YAML: the encodings
 * and the decoding that no slicing reaches (see shared/codec/offload). The stored updates change
 * one label of a stored Node of 40,000 labels (1.3 MiB with its managedFields) by merge patch: the
 * whole update path on a large object, and the watch cache decoding what was stored.
 *
 * Figures per phase: GET latency (p50, p99, max, from this client) and the server's event-loop
 * delay (p99 and max over the phase, from its own `nodejs_eventloop_lag_p99_seconds` and
 * `nodejs_eventloop_lag_max_seconds`, which prom-client resets at every scrape: the bench scrapes
 * once as a phase starts and once as it ends, and nothing else scrapes this server). The ratio
 * columns are each figure under large requests as a multiple of the same figure alone.
 *
 * Starts its own etcd (temp dir) and one API server child process; stops both before exiting,
 * also on --timeout, SIGINT and SIGTERM. Exits non-zero when a GET fails, a large write gets
 * anything but 201 (dry run) or 413, or a large read or stored update anything but 200.
 * Usage: npx tsx bench/large-writes.ts [--seconds S] [--labels N] [--configmap-keys N] [--get-concurrency C]
 *          [--timeout SECONDS] [--cpu-prof] [--cpu-prof-dir DIR] [--keep]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { benchMain, clusterFlagsUsage, clusterOptions, keepFlag, positiveInt, profileFlags } from './cli.ts';
import { reportProfile, startCluster, type ClusterOptions } from './cluster.ts';
import { expectStatus, fixed, formatTable, Http2Client, loadAverageAtStart, mib, percentile, type Cleanup, type HttpClient } from './lib.ts';

const usage =
  `Usage: npx tsx bench/large-writes.ts [options]
  --seconds S          length of each phase (default 20)
  --labels N           labels of each large Node (default 150000: a body just under 3 MiB)
  --configmap-keys N   keys of the large ConfigMap read back (default 40000: about 0.6 MiB in YAML)
  --stored-labels N    labels of the large stored Node that is labelled over and over (default 40000: about
                       1.3 MiB stored with its managedFields, under etcd's 1.5 MiB)
  --get-concurrency C  GETs in flight at once (default 4)
  --timeout SECONDS    abort the whole run after this long (default 300)
` + clusterFlagsUsage(21);

interface Options extends ClusterOptions {
  seconds: number;
  labels: number;
  configMapKeys: number;
  storedLabels: number;
  getConcurrency: number;
  timeoutMs: number;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '20' },
      labels: { type: 'string', default: '150000' },
      'configmap-keys': { type: 'string', default: '40000' },
      'stored-labels': { type: 'string', default: '40000' },
      'get-concurrency': { type: 'string', default: '4' },
      timeout: { type: 'string', default: '300' },
      ...profileFlags,
      ...keepFlag,
    },
  });
  if (values.help) return undefined;
  return {
    seconds: positiveInt(values.seconds, 'seconds'),
    labels: positiveInt(values.labels, 'labels'),
    configMapKeys: positiveInt(values['configmap-keys'], 'configmap-keys'),
    storedLabels: positiveInt(values['stored-labels'], 'stored-labels'),
    getConcurrency: positiveInt(values['get-concurrency'], 'get-concurrency'),
    timeoutMs: positiveInt(values.timeout, 'timeout') * 1000,
    ...clusterOptions(values),
  };
}

const smallPath = '/api/v1/namespaces/default/configmaps/small';

/** A Node create body named `name` with `labels` labels `l<i>: v<i>`. */
function largeNode(labels: number, name = 'large'): Buffer {
  const map: Record<string, string> = {};
  for (let i = 0; i < labels; i++) map[`l${i}`] = `v${i}`;
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: map } }));
}

const storedNodePath = '/api/v1/nodes/stored';

/**
 * The stored updates: one label of the large stored Node changed by a small merge patch, as
 * `kubectl label` does; every update decodes, merges, tracks ownership of and encodes the whole
 * object, and every replica's watch cache decodes the stored result.
 */
function storedUpdates(): LargeRequest[] {
  let n = 0;
  return [
    (client) =>
      client.request('PATCH', `${storedNodePath}?fieldManager=bench`, Buffer.from(JSON.stringify({ metadata: { labels: { changed: String(n++) } } })), {
        'content-type': 'application/merge-patch+json',
      }),
  ];
}

/** The server's event-loop delay since its last scrape, in milliseconds (`undefined` when not exposed). */
async function loopDelay(client: HttpClient): Promise<{ p99Ms: number; maxMs: number }> {
  const text = (await expectStatus(client.request('GET', '/metrics', undefined, { accept: 'text/plain' }), 200)).body.toString('utf8');
  const gauge = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p99Ms: gauge('nodejs_eventloop_lag_p99_seconds'), maxMs: gauge('nodejs_eventloop_lag_max_seconds') };
}

interface PhaseResult {
  gets: number;
  getErrors: number;
  firstError: string | undefined;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  loopP99Ms: number;
  loopMaxMs: number;
  /** Large writes answered, and how: `201` (dry runs), `413` (too large for etcd), anything else. */
  writes: Map<number, number>;
}

/** One large request of a phase, answered with its status. */
type LargeRequest = (client: HttpClient) => Promise<{ status: number }>;

/** The large writes: a Node create dry run, a create (413: too large for etcd), an apply dry run. */
function largeWrites(body: Buffer): LargeRequest[] {
  return [
    (client) => client.request('POST', '/api/v1/nodes?dryRun=All', body),
    (client) => client.request('POST', '/api/v1/nodes', body),
    (client) => client.request('PATCH', '/api/v1/nodes/large?dryRun=All&fieldManager=bench', body, { 'content-type': 'application/apply-patch+yaml' }),
  ];
}

const largeConfigMapPath = '/api/v1/namespaces/default/configmaps/large';

/** A ConfigMap in YAML with `keys` keys `k<i>: v<i>` (small enough for etcd: its answers are read back). */
function largeConfigMapYaml(keys: number): Buffer {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: large', 'data:'];
  for (let i = 0; i < keys; i++) lines.push(`  k${i}: v${i}`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

/**
 * The large reads, and YAML: the large ConfigMap read as YAML, as pretty JSON and as protobuf, and
 * an update dry run of it in YAML. Each is one uncut call of the YAML library, JSON.stringify or the
 * protobuf writer, unless done off the event loop.
 */
function largeReads(yaml: Buffer): LargeRequest[] {
  return [
    (client) => client.request('GET', largeConfigMapPath, undefined, { accept: 'application/yaml' }),
    (client) => client.request('GET', `${largeConfigMapPath}?pretty=true`, undefined, { accept: 'application/json' }),
    (client) => client.request('GET', largeConfigMapPath, undefined, { accept: 'application/vnd.kubernetes.protobuf' }),
    (client) => client.request('PUT', `${largeConfigMapPath}?dryRun=All`, yaml, { 'content-type': 'application/yaml' }),
  ];
}

/**
 * GETs with `concurrency` in flight for `seconds`; with `large`, its requests one after another
 * alongside, in turn, on their own connection.
 */
async function phase(getter: HttpClient, opts: Options, large?: { client: HttpClient; requests: LargeRequest[] }): Promise<PhaseResult> {
  await loopDelay(getter);
  const deadline = performance.now() + opts.seconds * 1000;
  const latencies: number[] = [];
  let getErrors = 0;
  let firstError: string | undefined;
  const getLoop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        await expectStatus(getter.request('GET', smallPath), 200);
      } catch (err) {
        getErrors++;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
      latencies.push(performance.now() - t0);
    }
  };
  const writes = new Map<number, number>();
  const writeLoop = async (): Promise<void> => {
    if (!large) return;
    for (let i = 0; performance.now() < deadline; i++) {
      const request = large.requests[i % large.requests.length];
      if (!request) return;
      const res = await request(large.client);
      writes.set(res.status, (writes.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all([...Array.from({ length: opts.getConcurrency }, getLoop), writeLoop()]);
  const loop = await loopDelay(getter);
  const sorted = Float64Array.from(latencies).sort();
  return {
    gets: latencies.length,
    getErrors,
    firstError,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length ? (sorted[sorted.length - 1] ?? NaN) : NaN,
    loopP99Ms: loop.p99Ms,
    loopMaxMs: loop.maxMs,
    writes,
  };
}

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  const startLoad = loadavg();
  const { api } = await startCluster(opts, cleanup, 'corral-bench-large-writes-');
  const getter = new Http2Client(api.url, api.tls);
  const writer = new Http2Client(api.url, api.tls);
  cleanup.push(() => getter.close());
  cleanup.push(() => writer.close());
  const small = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'small' }, data: { a: 'b' } };
  await expectStatus(getter.request('POST', '/api/v1/namespaces/default/configmaps', Buffer.from(JSON.stringify(small))), 201);
  const body = largeNode(opts.labels);
  const yaml = largeConfigMapYaml(opts.configMapKeys);
  await expectStatus(getter.request('POST', '/api/v1/namespaces/default/configmaps', yaml, { 'content-type': 'application/yaml' }), 201);
  await expectStatus(getter.request('POST', '/api/v1/nodes', largeNode(opts.storedLabels, 'stored')), 201);
  process.stderr.write(
    `large write body ${mib(body.length)} (${opts.labels} labels); large ConfigMap ${mib(yaml.length)} in YAML (${opts.configMapKeys} keys); ${opts.seconds} s per phase\n`,
  );
  const writes = { client: writer, requests: largeWrites(body) };
  const reads = { client: writer, requests: largeReads(yaml) };
  const updates = { client: writer, requests: storedUpdates() };

  // A short warm-up of every path, so that no phase pays for first-call compilation.
  await phase(getter, { ...opts, seconds: 2 }, writes);
  await phase(getter, { ...opts, seconds: 2 }, reads);
  await phase(getter, { ...opts, seconds: 2 }, updates);

  const alone = await phase(getter, opts);
  const written = await phase(getter, opts, writes);
  const read = await phase(getter, opts, reads);
  const updated = await phase(getter, opts, updates);

  const ratio = (a: number, b: number): string => (Number.isFinite(a) && Number.isFinite(b) && a > 0 ? `${fixed(b / a, 1)}x` : '-');
  const row = (label: string, pick: (p: PhaseResult) => number, digits = 1): string[] => [
    label,
    fixed(pick(alone), digits),
    fixed(pick(written), digits),
    ratio(pick(alone), pick(written)),
    fixed(pick(read), digits),
    ratio(pick(alone), pick(read)),
    fixed(pick(updated), digits),
    ratio(pick(alone), pick(updated)),
  ];
  process.stdout.write(
    `\nlarge writes: ${mib(body.length)} Node writes in turn: create dry run, create (413: too large for etcd), apply dry run;\n` +
      `large reads: a ${mib(yaml.length)} ConfigMap read as YAML, pretty JSON and protobuf, and updated (dry run) from YAML, in turn;\n` +
      `stored updates: one label of a stored Node of ${opts.storedLabels} labels changed by a merge patch, over and over; ${loadAverageAtStart(startLoad)}\n\n`,
  );
  process.stdout.write(
    formatTable(
      ['', 'GETs alone', 'GETs + large writes', 'ratio', 'GETs + large reads', 'ratio', 'GETs + stored updates', 'ratio'],
      [
        row('GETs', (p) => p.gets, 0),
        row('GET p50 ms', (p) => p.p50Ms),
        row('GET p99 ms', (p) => p.p99Ms),
        row('GET max ms', (p) => p.maxMs),
        row('event-loop delay p99 ms', (p) => p.loopP99Ms),
        row('event-loop delay max ms', (p) => p.loopMaxMs),
      ],
    ) + '\n',
  );
  const answers = (p: PhaseResult): string => [...p.writes].map(([status, n]) => `${n}× ${status}`).join(', ') || 'none';
  process.stdout.write(`\nlarge writes answered: ${answers(written)}\nlarge reads answered: ${answers(read)}\nstored updates answered: ${answers(updated)}\n`);

  await reportProfile(api, opts.cpuProfileDir, 'every phase and the warm-up');
  let ok = true;
  for (const [name, p] of [
    ['alone', alone],
    ['with large writes', written],
    ['with large reads', read],
    ['with stored updates', updated],
  ] as const) {
    if (p.getErrors) {
      process.stderr.write(`${p.getErrors} GETs failed ${name}; first: ${p.firstError}\n`);
      ok = false;
    }
  }
  const unexpected = (p: PhaseResult, expected: readonly number[]): number[] => [...p.writes.keys()].filter((status) => !expected.includes(status));
  const badWrites = unexpected(written, [201, 413]);
  const badReads = unexpected(read, [200]);
  const badUpdates = unexpected(updated, [200]);
  if (badWrites.length || badReads.length || badUpdates.length) {
    process.stderr.write(
      `large requests got unexpected statuses: writes ${badWrites.join(', ') || '-'}, reads ${badReads.join(', ') || '-'}, stored updates ${badUpdates.join(', ') || '-'}\n`,
    );
    ok = false;
  }
  return ok;
}

await benchMain(usage, parseOptions, run);
