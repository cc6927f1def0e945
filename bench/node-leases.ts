/**
 * Node heartbeats at scale (issue 15, item 8): simulated node agents (`--simulate`, in this
 * process) renewing their Leases every 10 s against two API server replicas on one etcd, half of
 * the agents on each replica. Every agent joins as a real one does (a bootstrap token, its own CSR
 * approved and signed by a controller manager, its Node, Lease and CSINode).
 *
 * Figures, in one run:
 * - baseline: one node's lease renewals, back to back and unthrottled, on the otherwise idle
 *   cluster (the latency a single node sees);
 * - at scale: every renewal's latency over the measurement window once all agents run, p50, p99,
 *   max, with the ratio of p99 to the baseline's p99 (goal: p99 ≤ 100 ms at 5,000 nodes);
 * - each API server replica's CPU (share of one core) and RSS over that window, and this
 *   process's RSS per simulated agent;
 * - each replica's and etcd's CPU per renewal over the window, beside the baseline
 *   node's: renewals arriving one by one pay every wake-up alone, those arriving together share them.
 *
 * The simulated agents share this process's heap, as hosts share nothing: what an agent holds
 * across its 10 s tick (its sleeps, their async frames, its Lease) outlived the young generation's
 * 2.4 s between scavenges and was promoted, and every major collection of ~200 MB of it (marking on
 * both cores for 200-300 ms) stalled all 5,000 agents at once, then bunched their renewals again
 * one interval later. So this process runs with a young generation large enough for a renew
 * interval's allocations (`simulatorNodeFlags`; a flag given to this process wins). At 5,000
 * nodes (Node 24, runs of one session): 10-11 scavenges in the window instead of 22-24, the
 * process's longest stall 128-172 ms instead of 129-345 ms, major collections 0 and 4 (the
 * longest 72 ms) against 1-2 (up to 118 ms).
 *
 * Every simulated agent holds its own TLS connection, as a real node does: the open-files limit
 * (`ulimit -n`) must exceed the number of nodes, with room to spare.
 *
 * Where a renewal's time goes is read from each layer's own histograms over the window: the API
 * servers' request latency and their view of etcd's, etcd's own transaction latency (its etcd runs
 * with ETCD_METRICS=extensive), WAL fsync and backend commit; and each replica's event-loop delay.
 *
 * Usage: npx tsx bench/node-leases.ts [--nodes N] [--window SECONDS] [--baseline-renewals R] [--timeout SECONDS]
 *          [--content-type T] [--keep]
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { startEtcd } from '../shared/etcd/process.ts';
import { renderKubeconfig } from '../shared/pki/kubeconfig.ts';
import { realClock } from '../shared/client/clock.ts';
import { contentTypeFrom, HttpApiClient } from '../shared/client/api-client.ts';
import { loadKubeconfig } from '../nodeagent/certificates/bootstrap.ts';
import { loadNodeAgentConfig } from '../nodeagent/config/load.ts';
import { OsHost } from '../nodeagent/node/host.ts';
import { NodeLease } from '../nodeagent/node/lease.ts';
import { Simulation } from '../nodeagent/simulation.ts';
import { useSmallBufferPool } from '../shared/process/buffer-pool.ts';
import { poolSizeFlag, sharedHostNodeFlags } from '../shared/process/shared-host.ts';
import { noRuntimeVersion } from '../nodeagent/main.ts';
import { benchMain, positiveInt, profileDir, profileFlags } from './cli.ts';
import { reportProfile } from './cluster.ts';
import {
  expectStatus,
  fixed,
  formatTable,
  establishedConnections,
  Http2Client,
  machineBusyMs,
  mib,
  ownCpuMs,
  percentile,
  readProcess,
  repoRoot,
  rerunAsSharedHostProcess,
  startApiServerProcess,
  type ApiServerProcess,
  type Cleanup,
} from './lib.ts';

/** V8 flags of this process, the simulated agents' (see above): semi-spaces of 128 MiB. */
const simulatorNodeFlags = ['--max-semi-space-size=128'];

const usage = `Usage: npx tsx bench/node-leases.ts [flags]
  --nodes N               simulated node agents (default 5000), half on each API server replica
  --window SECONDS        measurement window once every agent runs (default 60)
  --baseline-renewals R   back-to-back renewals of the single node of the baseline (default 2000:
                          fewer leave its CPU figure to the replicas' warm-up)
  --timeout SECONDS       abort the whole run after this long (default 1200)
  --content-type T        the agents' contentType (default application/vnd.kubernetes.protobuf, the kubelet's;
                          application/json for JSON)
  --keep                  keep the temp dir (etcd data, logs, agents' certificates)
  --replica-node-flags F  Node and V8 flags for both API server replicas, space-separated
                          (e.g. --replica-node-flags="--max-semi-space-size=64 --trace-gc-nvp"; their output goes to each replica's log)
  --replica-flags F       API server flags for both replicas, space-separated
                          (e.g. --replica-flags="--max-mutating-requests-inflight=1000", as large clusters raise it,
                          or --replica-flags="--enable-priority-and-fairness=false")
  --renewals-csv FILE     write every renewal of the window to FILE: end (ms into the window), latency (ms), replica
  --cpu-prof              write a CPU profile of API server replica 0 and summarize it
  --cpu-prof-dir DIR      where the profile goes (default: a new /tmp/corral-prof-* dir)
`;

interface Options {
  nodes: number;
  windowMs: number;
  baselineRenewals: number;
  timeoutMs: number;
  contentType: string;
  keep: boolean;
  /** Node and V8 flags both replicas start with. */
  replicaNodeFlags: string[];
  /** API server flags both replicas start with (beside the bench's own). */
  replicaFlags: string[];
  /** Where every renewal of the window is written (end ms, latency ms, replica), if anywhere. */
  renewalsCsv: string | undefined;
  /** Where replica 0 writes its CPU profile (--cpu-prof), summarized at the end. */
  cpuProfileDir: string | undefined;
}

function parse(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      nodes: { type: 'string', default: '5000' },
      window: { type: 'string', default: '60' },
      'baseline-renewals': { type: 'string', default: '2000' },
      timeout: { type: 'string', default: '1200' },
      'content-type': { type: 'string', default: 'application/vnd.kubernetes.protobuf' },
      keep: { type: 'boolean', default: false },
      'replica-node-flags': { type: 'string', default: '' },
      'replica-flags': { type: 'string', default: '' },
      'renewals-csv': { type: 'string' },
      ...profileFlags,
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    nodes: positiveInt(values.nodes, 'nodes', 2),
    windowMs: positiveInt(values.window, 'window') * 1000,
    baselineRenewals: positiveInt(values['baseline-renewals'], 'baseline-renewals'),
    timeoutMs: positiveInt(values.timeout, 'timeout') * 1000,
    contentType: values['content-type'],
    keep: values.keep,
    replicaNodeFlags: values['replica-node-flags'].split(' ').filter(Boolean),
    replicaFlags: values['replica-flags'].split(' ').filter(Boolean),
    renewalsCsv: values['renewals-csv'],
    cpuProfileDir: profileDir(values),
  };
}

const tokenId = 'benchx';
const token = `${tokenId}.0123456789abcdef`;

/** One histogram's series to read: a metric name and label texts every counted line carries. */
interface HistogramQuery {
  metric: string;
  labels: readonly string[];
}

const leasePut: HistogramQuery = { metric: 'apiserver_request_duration_seconds', labels: ['verb="PUT"', 'resource="leases"'] };
/** The wait of nodes' lease and Node writes for a seat of their priority level (upstream's system-node-high flow schema). */
const nodeHighWait: HistogramQuery = {
  metric: 'apiserver_flowcontrol_request_wait_duration_seconds',
  labels: ['flow_schema="system-node-high"', 'execute="true"'],
};
const etcdLeaseUpdate: HistogramQuery = { metric: 'etcd_request_duration_seconds', labels: ['operation="update"', 'type="leases.coordination.k8s.io"'] };
/** etcd's own time for a transaction, from receiving it to answering. */
const etcdTxn: HistogramQuery = { metric: 'grpc_server_handling_seconds', labels: ['grpc_method="Txn"'] };
const walFsync: HistogramQuery = { metric: 'etcd_disk_wal_fsync_duration_seconds', labels: [] };
const backendCommit: HistogramQuery = { metric: 'etcd_disk_backend_commit_duration_seconds', labels: [] };

/** Cumulative counts by `le` of one histogram in a Prometheus text exposition, summed over its matching series. */
function histogramBuckets(text: string, query: HistogramQuery): Map<string, number> {
  const buckets = new Map<string, number>();
  const prefix = `${query.metric}_bucket{`;
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix) || !query.labels.every((label) => line.includes(label))) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (le !== undefined) buckets.set(le, (buckets.get(le) ?? 0) + value);
  }
  return buckets;
}

/** The sum of one metric's matching series in a Prometheus text exposition. */
function metricSum(text: string, metric: string, labels: readonly string[]): number {
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(`${metric}{`) && labels.every((label) => line.includes(label))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

/**
 * One replica's garbage collections between two readings (nodejs_gc_duration_seconds), by kind:
 * how many, their total time, and how many took over 100 ms (the histogram's bucket bound).
 */
function gcOverWindow(before: string, after: string): string {
  return (['minor', 'incremental', 'major'] as const)
    .map((kind) => {
      const query = { metric: 'nodejs_gc_duration_seconds', labels: [`kind="${kind}"`] };
      const [b, a] = [histogramBuckets(before, query), histogramBuckets(after, query)];
      const count = (a.get('+Inf') ?? 0) - (b.get('+Inf') ?? 0);
      const over100 = count - ((a.get('0.1') ?? 0) - (b.get('0.1') ?? 0));
      const totalMs =
        (metricSum(after, 'nodejs_gc_duration_seconds_sum', query.labels) - metricSum(before, 'nodejs_gc_duration_seconds_sum', query.labels)) * 1000;
      return `${kind} ${count} (${fixed(totalMs, 0)} ms, ${over100} over 100 ms)`;
    })
    .join(', ');
}

/** This process's garbage collections from now until `stop`, by kind: how many, their total and longest time. */
function observeGc(): { stop: () => void; summary: () => string } {
  const kinds = new Map<number, string>([
    [perfConstants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
    [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
    [perfConstants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  ]);
  const seen = new Map<string, number[]>([...kinds.values()].map((kind) => [kind, []]));
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = 'detail' in entry ? entry.detail : undefined;
      const kind = typeof detail === 'object' && detail !== null && 'kind' in detail && typeof detail.kind === 'number' ? kinds.get(detail.kind) : undefined;
      if (kind) seen.get(kind)?.push(entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop: () => observer.disconnect(),
    summary: () =>
      [...seen]
        .map(
          ([kind, durations]) =>
            `${kind} ${durations.length} (${fixed(
              durations.reduce((a, b) => a + b, 0),
              0,
            )} ms, longest ${fixed(Math.max(0, ...durations), 0)} ms)`,
        )
        .join(', '),
  };
}

/** Each source's metrics text, read at one moment. */
type MetricsReading = readonly string[];

/** What one histogram observed between two readings, summed over every source: cumulative counts by `le`. */
function bucketDeltas(before: MetricsReading, after: MetricsReading, query: HistogramQuery): Map<string, number> {
  const delta = new Map<string, number>();
  after.forEach((text, i) => {
    const earlier = histogramBuckets(before[i] ?? '', query);
    for (const [le, count] of histogramBuckets(text, query)) delta.set(le, (delta.get(le) ?? 0) + count - (earlier.get(le) ?? 0));
  });
  return delta;
}

/** The upper bound (ms) of the bucket holding quantile q of what one histogram observed (bucketDeltas). */
function bucketQuantile(delta: Map<string, number>, q: number): string {
  const total = delta.get('+Inf') ?? 0;
  const bounds = [...delta.keys()].filter((le) => le !== '+Inf').sort((a, b) => Number(a) - Number(b));
  const bound = bounds.find((le) => (delta.get(le) ?? 0) >= q * total);
  return total === 0 ? 'n/a' : bound === undefined ? `> ${Number(bounds[bounds.length - 1] ?? 0) * 1000}` : `≤ ${fixed(Number(bound) * 1000, 1)}`;
}

/** How many of what one histogram observed (bucketDeltas) took longer than `seconds`, one of its bucket bounds. */
function countOver(delta: Map<string, number>, seconds: number): string {
  const within = [...delta.keys()].find((le) => Number(le) === seconds);
  return within === undefined ? 'n/a' : String((delta.get('+Inf') ?? 0) - (delta.get(within) ?? 0));
}

/** The renewals of the window: each one's latency, when it ended (ms since the window started) and the replica that served it. */
interface WindowRenewals {
  latencies: number[];
  ends: number[];
  replicas: number[];
  /** This process's event-loop delay, its largest in each second of the window (ms). */
  agentLoopMaxBySecond: number[];
  /** The whole machine's CPU in each second of the window, as a share of one core (200% is both of two cores). */
  machineBusyBySecond: number[];
}

/**
 * Renewals over 500 ms: how many, and the seconds of the window that ended most of them (a stall shows as a few busy seconds, load as many),
 * each with how many each replica served and the agents' own largest event-loop delay then: a stall of one replica slows only its half,
 * one of this process (or of etcd) both halves.
 */
function slowRenewalsBySecond({ latencies, ends, replicas, agentLoopMaxBySecond, machineBusyBySecond }: WindowRenewals): string {
  const bySecond = new Map<number, number[]>();
  let slow = 0;
  latencies.forEach((latency, i) => {
    if (latency <= 500) return;
    slow++;
    const second = Math.floor((ends[i] ?? 0) / 1000);
    const perReplica = bySecond.get(second) ?? [0, 0];
    const replica = replicas[i] ?? 0;
    perReplica[replica] = (perReplica[replica] ?? 0) + 1;
    bySecond.set(second, perReplica);
  });
  const total = (perReplica: number[]): number => perReplica.reduce((a, b) => a + b, 0);
  const busiest = [...bySecond].sort((a, b) => total(b[1]) - total(a[1])).slice(0, 8);
  const describe = ([second, perReplica]: [number, number[]]): string =>
    `${second} (${total(perReplica)}: ${perReplica.map((n, replica) => `${n} on replica ${replica}`).join(', ')}; agents' loop max ${fixed(agentLoopMaxBySecond[second] ?? 0, 0)} ms; machine ${fixed(machineBusyBySecond[second] ?? 0, 0)} %)`;
  return `renewals over 500 ms: ${slow} in ${bySecond.size} seconds of the window${busiest.length ? `; most in second ${busiest.map(describe).join(', ')}` : ''}`;
}

/**
 * How evenly the renewals arrive: how many started in each 100 ms of the window (after its first
 * second), its median, 99th percentile and most, beside the even rate. Renewals a stall held finish
 * together and, each renewing 10 to 10.4 s after its last one finished (upstream's sliding jitter),
 * start together again round after round: a wave that the 4 % jitter spreads only slowly.
 */
function renewalWaves({ latencies, ends }: WindowRenewals, windowMs: number): string {
  const binMs = 100;
  const bins = new Array<number>(Math.floor(windowMs / binMs)).fill(0);
  latencies.forEach((latency, i) => {
    const bin = Math.floor(((ends[i] ?? 0) - latency) / binMs);
    if (bin >= 1000 / binMs && bin < bins.length) bins[bin] = (bins[bin] ?? 0) + 1;
  });
  const counted = Float64Array.from(bins.slice(1000 / binMs)).sort();
  const even = counted.reduce((a, b) => a + b, 0) / Math.max(1, counted.length);
  return (
    `renewals started per 100 ms: median ${percentile(counted, 0.5)}, p99 ${percentile(counted, 0.99)}, most ${counted[counted.length - 1] ?? 0}, ` +
    `fewest ${counted[0] ?? 0} (even: ${fixed(even, 0)})`
  );
}

/** Every renewal of the window as CSV: when it ended (ms into the window), its latency (ms) and its replica. */
function renewalsCsv({ latencies, ends, replicas }: WindowRenewals): string {
  const rows = latencies.map((latency, i) => `${ends[i] ?? 0},${fixed(latency, 1)},${replicas[i] ?? 0}`);
  return `end_ms,latency_ms,replica\n${rows.join('\n')}\n`;
}

/** The CPU time each of `pids` has used so far, in ms. */
function cpuMsOf(pids: readonly number[]): number[] {
  return pids.map((pid) => readProcess(pid).cpuMs);
}

/** Each process's CPU from `before` to `after` (cpuMsOf), per one of `count` renewals. */
function cpuPerRenewal(before: readonly number[], after: readonly number[], count: number): number[] {
  return after.map((ms, i) => (ms - (before[i] ?? ms)) / Math.max(1, count));
}

function latencyRow(label: string, samples: readonly number[], baselineP99: number | undefined): string[] {
  const sorted = Float64Array.from(samples).sort();
  const p99 = percentile(sorted, 0.99);
  return [
    label,
    String(sorted.length),
    fixed(percentile(sorted, 0.5), 1),
    fixed(p99, 1),
    fixed(sorted[sorted.length - 1] ?? 0, 1),
    baselineP99 ? fixed(p99 / baselineP99, 2) : '1.00',
  ];
}

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  // The agents run here as in `corral nodeagent --simulate`, which starts with the small pool.
  useSmallBufferPool();
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-leases-'));
  if (!opts.keep) cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  process.stderr.write(`temp dir ${dir}\n`);
  // etcd's per-method gRPC latency (grpc_server_handling_seconds) is kept only with extensive metrics.
  process.env['ETCD_METRICS'] ??= 'extensive';
  const etcd = await startEtcd({ dataDir: join(dir, 'etcd') });
  cleanup.push(() => etcd.stop());
  const dataDir = join(dir, 'apiserver');
  const replicas: ApiServerProcess[] = [];
  for (const i of [0, 1]) {
    const api = await startApiServerProcess({
      etcdEndpoints: etcd.endpoints,
      dataDir,
      logFile: join(dir, `apiserver-${i}.log`),
      // One advertised port, as replicas behind a load balancer: each its own would have them
      // rewrite the kubernetes Service and its endpoints every 10 s.
      flags: ['--enable-bootstrap-token-auth=true', '--advertise-port=6443', ...opts.replicaFlags],
      nodeFlags: [...sharedHostNodeFlags(), ...opts.replicaNodeFlags],
      ...(i === 0 && opts.cpuProfileDir ? { cpuProfileDir: opts.cpuProfileDir } : {}),
    });
    cleanup.push(() => api.stop());
    replicas.push(api);
  }
  process.stderr.write(`etcd ${etcd.endpoints.join(',')}, API servers ${replicas.map((r) => `${r.url} (pid ${r.pid})`).join(', ')}\n`);
  const [first] = replicas;
  if (!first) throw new Error('no API server');
  const admin = new Http2Client(first.url, first.tls);
  cleanup.push(() => admin.close());
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${tokenId}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: { 'token-id': tokenId, 'token-secret': token.split('.')[1], 'usage-bootstrap-authentication': 'true' },
  };
  await expectStatus(admin.request('POST', '/api/v1/namespaces/kube-system/secrets', Buffer.from(JSON.stringify(secret))), 201);

  // The controller manager approves and signs the agents' requests and watches their leases, as in a cluster.
  const built = join(repoRoot, 'dist', 'controllers', 'main.js');
  const managerEntry = existsSync(built) ? [built] : ['--import', 'tsx', 'controllers/main.ts'];
  const managerLog = createWriteStream(join(dir, 'controller-manager.log'), { flags: 'a' });
  const manager = spawn(
    process.execPath,
    [
      ...sharedHostNodeFlags(),
      ...managerEntry,
      `--kubeconfig=${join(dataDir, 'controller-manager.kubeconfig')}`,
      `--cluster-signing-cert-file=${join(dataDir, 'pki', 'ca.crt')}`,
      `--cluster-signing-key-file=${join(dataDir, 'pki', 'ca.key')}`,
      '--use-service-account-credentials=true',
      '--controllers=csrapproving,csrsigning,nodelifecycle',
      '--leader-elect=false',
      '--secure-port=0',
      '--log-level=warn',
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  manager.stdout.pipe(managerLog);
  manager.stderr.pipe(managerLog);
  cleanup.push(async () => {
    if (manager.exitCode === null) {
      const exited = new Promise((resolve) => manager.once('exit', resolve));
      manager.kill('SIGTERM');
      await exited;
    }
    managerLog.end();
  });

  const logger = pino({ level: 'error' }, pino.destination({ dest: join(dir, 'agents.log'), sync: false }));
  const host = new OsHost(dir);
  const agentConfig = (replica: number) => {
    const server = replicas[replica]?.url ?? '';
    const bootstrap = join(dir, `bootstrap-${replica}.kubeconfig`);
    writeFileSync(bootstrap, renderKubeconfig({ server, caPem: first.tls.ca, token, userName: 'tls-bootstrap-token-user' }));
    const agentsDir = join(dir, 'agents');
    mkdirSync(agentsDir, { recursive: true });
    return loadNodeAgentConfig([
      `--bootstrap-kubeconfig=${bootstrap}`,
      `--kubeconfig=${join(agentsDir, 'unused')}`,
      `--cert-dir=${agentsDir}`,
      `--root-dir=${dir}`,
      `--kube-api-content-type=${opts.contentType}`,
    ]);
  };
  const pathsFor = (name: string) => {
    const certDir = join(dir, 'agents', name);
    return { nodeName: name, hostname: name, certDir, kubeconfigPath: join(certDir, 'kubeconfig') };
  };

  // Baseline: one node, its renewals back to back on the idle cluster.
  const single = new Simulation(agentConfig(0), { count: 1, paths: () => pathsFor('single'), host, logger, containerRuntimeVersion: noRuntimeVersion });
  cleanup.push(() => single.stop());
  await single.start();
  const singleAgent = single.agents[0];
  if (!singleAgent) throw new Error('the baseline agent did not start');
  // The node's own identity, without the agent's kubeAPIQPS throttle (50/s, burst 100): renewals
  // back to back would otherwise wait for its tokens after the first hundred, and the baseline
  // would measure the throttle rather than the server.
  const probeClient = new HttpApiClient(loadKubeconfig(pathsFor('single').kubeconfigPath, 'kubeconfig'), { contentType: contentTypeFrom(opts.contentType) });
  cleanup.push(() => probeClient.close());
  const probe = new NodeLease({
    api: probeClient,
    nodeName: 'single',
    leaseDurationSeconds: 40,
    clock: realClock,
    logger,
    nodeUid: () => singleAgent.registeredNode?.metadata.uid,
  });
  const baseline: number[] = [];
  const etcdPid = etcd.child.pid ?? 0;
  // The control plane's processes: what a renewal costs each of them.
  const controlPlane = [...replicas.map((r) => r.pid), etcdPid];
  const baselineCpuBefore = cpuMsOf(controlPlane);
  for (let i = 0; i < opts.baselineRenewals; i++) {
    const started = performance.now();
    await probe.renew();
    baseline.push(performance.now() - started);
  }
  const baselineCpu = cpuPerRenewal(baselineCpuBefore, cpuMsOf(controlPlane), opts.baselineRenewals);

  // At scale: half the agents on each replica; every renewal's latency once all of them run.
  let measuring = false;
  const window: WindowRenewals = { latencies: [], ends: [], replicas: [], agentLoopMaxBySecond: [], machineBusyBySecond: [] };
  const renewals = window.latencies;
  let windowStarted = 0;
  const record =
    (replica: number) =>
    (latencyMs: number): void => {
      if (!measuring) return;
      renewals.push(latencyMs);
      window.ends.push(Date.now() - windowStarted);
      window.replicas.push(replica);
    };
  const rssBefore = readProcess(process.pid).rssKiB;
  const halves = [Math.ceil(opts.nodes / 2), Math.floor(opts.nodes / 2)];
  const simulations = halves.map(
    (count, replica) =>
      new Simulation(agentConfig(replica), {
        count,
        paths: (i) => pathsFor(`sim-${replica}-${i}`),
        host,
        logger,
        containerRuntimeVersion: noRuntimeVersion,
        startConcurrency: 64,
        leaseRenewed: record(replica),
      }),
  );
  for (const s of simulations) cleanup.push(() => s.stop());
  const joinStarted = Date.now();
  process.stderr.write(`starting ${opts.nodes} simulated agents\n`);
  await Promise.all(simulations.map((s) => s.start()));
  const joinSeconds = (Date.now() - joinStarted) / 1000;
  process.stderr.write(`all joined in ${fixed(joinSeconds, 1)} s; measuring for ${opts.windowMs / 1000} s\n`);
  // One renew interval for the renewals to spread out, then the window.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const metricsClients = replicas.map((r) => new Http2Client(r.url, r.tls));
  for (const c of metricsClients) cleanup.push(() => c.close());
  const readMetrics = async (): Promise<{ apiservers: MetricsReading; etcd: MetricsReading }> => ({
    apiservers: await Promise.all(metricsClients.map(async (c) => (await expectStatus(c.request('GET', '/metrics'), 200)).body.toString('utf8'))),
    etcd: await Promise.all(etcd.endpoints.map(async (url) => (await fetch(`${url}/metrics`)).text())),
  });
  const metricsBefore = await readMetrics();
  // The replicas' then etcd's CPU (controlPlane), and the rest.
  const controlPlaneCpuBefore = cpuMsOf(controlPlane);
  const managerPid = manager.pid;
  if (managerPid === undefined) throw new Error('the controller manager did not start');
  const otherCpuBefore = { agents: ownCpuMs(), manager: readProcess(managerPid).cpuMs, machine: machineBusyMs() };
  // The agents share this process's event loop: its delays are part of what they measure.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const loopThisSecond = monitorEventLoopDelay({ resolution: 10 });
  loopThisSecond.enable();
  const ownGc = observeGc();
  measuring = true;
  windowStarted = Date.now();
  // CLOCK_MONOTONIC, the clock of V8's CPU profiles: where the window lies in the replicas' profiles.
  const windowStartedMonotonicMs = Number(process.hrtime.bigint() / 1_000_000n);
  let machineBusyThen = machineBusyMs();
  // Each tick records the seconds that ended since the last one: a tick the loop delayed covers
  // several, and each gets the span's largest delay and its average CPU.
  let secondsRecorded = 0;
  const perSecond = setInterval(() => {
    const secondsEnded = Math.floor((Date.now() - windowStarted) / 1000);
    if (secondsEnded <= secondsRecorded) return;
    const machineBusyNow = machineBusyMs();
    const machineShare = (machineBusyNow - machineBusyThen) / 10 / (secondsEnded - secondsRecorded);
    for (let second = secondsRecorded; second < secondsEnded; second++) {
      window.agentLoopMaxBySecond[second] = loopThisSecond.max / 1e6;
      window.machineBusyBySecond[second] = machineShare;
    }
    loopThisSecond.reset();
    machineBusyThen = machineBusyNow;
    secondsRecorded = secondsEnded;
  }, 1000);
  await new Promise((resolve) => setTimeout(resolve, opts.windowMs));
  clearInterval(perSecond);
  measuring = false;
  loopDelay.disable();
  loopThisSecond.disable();
  ownGc.stop();
  const metricsAfter = await readMetrics();
  const elapsedMs = Date.now() - windowStarted;
  const rssAfter = readProcess(process.pid).rssKiB;
  const connections = replicas.map((r) => establishedConnections(Number(new URL(r.url).port)));

  process.stdout.write(
    `\n${opts.nodes} simulated nodes speaking ${opts.contentType} (joined in ${fixed(joinSeconds, 1)} s), lease renewals over ${fixed(elapsedMs / 1000, 0)} s; ` +
      `node ${process.version} (every process of the run), ${availableParallelism()} CPUs shared by all of them, ` +
      `this process with ${[poolSizeFlag() ?? "Node's default V8 pool", ...process.execArgv.filter((f) => f.startsWith('--max-semi-space-size'))].join(' ')}, ` +
      `the others with ${sharedHostNodeFlags().join(' ')}` +
      (opts.replicaNodeFlags.length ? `; replicas started with ${opts.replicaNodeFlags.join(' ')}` : '') +
      (opts.replicaFlags.length ? `; replicas' flags ${opts.replicaFlags.join(' ')}` : '') +
      '\n\n',
  );
  const baselineP99 = percentile(Float64Array.from(baseline).sort(), 0.99);
  process.stdout.write(
    formatTable(
      ['lease renewals', 'count', 'p50 ms', 'p99 ms', 'max ms', 'p99 / baseline'],
      [latencyRow('one node, idle cluster (baseline)', baseline, undefined), latencyRow(`${opts.nodes} nodes, 2 replicas`, renewals, baselineP99)],
    ) + '\n\n',
  );
  // Every process of the run on this one machine: a saturated machine queues every layer at once.
  const share = (ms: number): string => fixed((ms / elapsedMs) * 100, 0) + ' %';
  const etcdReading = readProcess(etcdPid);
  process.stdout.write(
    formatTable(
      ['process', 'CPU (share of a core)', 'RSS'],
      [
        ...replicas.map((r, i) => {
          const reading = readProcess(r.pid);
          return [`API server replica ${i}`, share(reading.cpuMs - (controlPlaneCpuBefore[i] ?? reading.cpuMs)), mib(reading.rssKiB * 1024)];
        }),
        ['etcd', share(etcdReading.cpuMs - (controlPlaneCpuBefore[replicas.length] ?? etcdReading.cpuMs)), mib(etcdReading.rssKiB * 1024)],
        ['the controller manager', share(readProcess(managerPid).cpuMs - otherCpuBefore.manager), mib(readProcess(managerPid).rssKiB * 1024)],
        ['the agents (this process)', share(ownCpuMs() - otherCpuBefore.agents), mib(readProcess(process.pid).rssKiB * 1024)],
        [`the whole machine (${availableParallelism()} cores)`, share(machineBusyMs() - otherCpuBefore.machine), ''],
      ],
    ) + '\n\n',
  );
  process.stdout.write(
    `agent process RSS: ${mib(rssAfter * 1024)} (${fixed(((rssAfter - rssBefore) * 1024) / opts.nodes / 1024, 1)} KiB per simulated node)\n`,
  );
  process.stdout.write(`renewals per second: ${fixed((renewals.length * 1000) / elapsedMs, 0)} (expected ${fixed(opts.nodes / 10, 0)})\n`);
  process.stdout.write(`${renewalWaves(window, opts.windowMs)}\n`);
  // What a renewal costs the control plane: one node's alone, beside everything the replicas and
  // etcd spent over the window (status syncs and controllers included) over the renewals made.
  const windowCpu = cpuPerRenewal(controlPlaneCpuBefore, cpuMsOf(controlPlane), renewals.length);
  process.stdout.write(
    '\n' +
      formatTable(
        ['CPU per renewal, ms', ...replicas.map((_, i) => `replica ${i}`), 'etcd'],
        [
          ['one node, back to back (baseline)', ...baselineCpu.map((ms) => fixed(ms, 2))],
          [`${opts.nodes} nodes, over the window`, ...windowCpu.map((ms) => fixed(ms, 2))],
          ['window / baseline', ...windowCpu.map((ms, i) => fixed(ms / (baselineCpu[i] ?? ms), 2))],
        ],
      ) +
      '\n\n',
  );
  process.stdout.write(`${slowRenewalsBySecond(window)}\n`);
  if (opts.renewalsCsv !== undefined) {
    writeFileSync(opts.renewalsCsv, renewalsCsv(window));
    process.stdout.write(
      `renewals written to ${opts.renewalsCsv}; the window started at ${windowStartedMonotonicMs} ms of CLOCK_MONOTONIC (a CPU profile's startTime is in µs of it)\n`,
    );
  }
  // A watcher too slow for its events (the controller manager's of 500 lease events a second) is
  // cut off and re-watches from its last version, which the replica replays from history at once.
  /** Each replica's growth over the window of one metric's matching series. */
  const grewBy = (metric: string, labels: readonly string[]): number[] =>
    metricsAfter.apiservers.map((text, i) => metricSum(text, metric, labels) - metricSum(metricsBefore.apiservers[i] ?? '', metric, labels));
  const watchesEnded = ['leases', 'nodes'].map(
    (resource) => [resource, grewBy('apiserver_request_total', ['verb="WATCH"', `resource="${resource}"`])] as const,
  );
  process.stdout.write(
    `watches that ended over the window: ${metricsAfter.apiservers.map((_, i) => `replica ${i}: ${watchesEnded.map(([resource, ended]) => `${resource} ${ended[i] ?? 0}`).join(', ')}`).join('; ')}\n`,
  );
  // A renewal turned away (its priority level's queue full or its wait over; beyond
  // --max-mutating-requests-inflight without priority and fairness) is answered 429 with a
  // Retry-After, and the agent (as client-go) waits that long and sends it again.
  const turnedAway = grewBy('apiserver_request_terminations_total', ['verb="PUT"', 'resource="leases"', 'code="429"']);
  process.stdout.write(`lease renewals turned away over the window (429): ${turnedAway.map((n, i) => `replica ${i}: ${n}`).join(', ')}\n`);
  // Half of the agents on each replica, each with one connection as a kubelet has (plus a few of the controller manager and this bench).
  process.stdout.write(`connections per replica: ${connections.join(', ')} (${fixed(connections.reduce((a, b) => a + b, 0) / opts.nodes, 2)} per agent)\n`);
  // Where a renewal's time goes, from the bucket bounds of each layer's own histogram.
  process.stdout.write('\n');
  const layers: [string, 'apiservers' | 'etcd', HistogramQuery][] = [
    ['PUT lease at the API servers (apiserver_request_duration_seconds)', 'apiservers', leasePut],
    ["nodes' writes waiting for a seat (apiserver_flowcontrol_request_wait_duration_seconds)", 'apiservers', nodeHighWait],
    ['lease update in etcd, seen by the API servers (etcd_request_duration_seconds)', 'apiservers', etcdLeaseUpdate],
    ["etcd's own transactions, all of them (grpc_server_handling_seconds)", 'etcd', etcdTxn],
    ["etcd's WAL fsync (etcd_disk_wal_fsync_duration_seconds)", 'etcd', walFsync],
    ["etcd's backend commit (etcd_disk_backend_commit_duration_seconds)", 'etcd', backendCommit],
  ];
  process.stdout.write(
    formatTable(
      // A stall that holds a few hundred of the window's 30,000 writes is under its p99: p99.9 and the count over 1 s show it.
      ['layer, over the window', 'p50 ms', 'p99 ms', 'p99.9 ms', 'over 1 s'],
      layers.map(([label, source, query]) => {
        const delta = bucketDeltas(metricsBefore[source], metricsAfter[source], query);
        return [label, bucketQuantile(delta, 0.5), bucketQuantile(delta, 0.99), bucketQuantile(delta, 0.999), countOver(delta, 1)];
      }),
    ) + '\n\n',
  );
  // prom-client's event-loop figures cover the time since the previous scrape: the window.
  const gaugeOf = (text: string, metric: string): number | undefined => {
    const line = text.split('\n').find((l) => l.startsWith(`${metric} `));
    return line ? Number(line.slice(metric.length + 1)) : undefined;
  };
  const gauge = (text: string, metric: string): string => {
    const seconds = gaugeOf(text, metric);
    return seconds === undefined ? 'n/a' : fixed(seconds * 1000, 1);
  };
  const sizeGauge = (text: string, metric: string): string => {
    const bytes = gaugeOf(text, metric);
    return bytes === undefined ? 'n/a' : mib(bytes);
  };
  metricsAfter.apiservers.forEach((text, i) => {
    process.stdout.write(
      `API server replica ${i} event-loop delay: p50 ${gauge(text, 'nodejs_eventloop_lag_p50_seconds')} ms, p99 ${gauge(text, 'nodejs_eventloop_lag_p99_seconds')} ms, max ${gauge(text, 'nodejs_eventloop_lag_max_seconds')} ms; ` +
        `GC ${gcOverWindow(metricsBefore.apiservers[i] ?? '', text)}; ` +
        // What the heap holds is what a major GC walks: its pause grows with it.
        `heap used ${sizeGauge(text, 'nodejs_heap_size_used_bytes')} (old space ${sizeGauge(text, 'nodejs_heap_space_size_used_bytes{space="old"}')}), ` +
        `external ${sizeGauge(text, 'nodejs_external_memory_bytes')}\n`,
    );
  });
  process.stdout.write(
    `agent process event-loop delay: p50 ${fixed(loopDelay.percentile(50) / 1e6, 1)} ms, p99 ${fixed(loopDelay.percentile(99) / 1e6, 1)} ms, max ${fixed(loopDelay.max / 1e6, 1)} ms; GC ${ownGc.summary()}\n`,
  );
  if (opts.cpuProfileDir) {
    // The replica writes its profile as it exits, which it does promptly once its clients are gone.
    await Promise.all(simulations.map((s) => s.stop()));
    await reportProfile(first, opts.cpuProfileDir, 'the agents joining, then the window');
  }
  return true;
}

rerunAsSharedHostProcess(simulatorNodeFlags);
void benchMain(usage, parse, run);
