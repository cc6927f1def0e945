/**
 * The cost of authorization: the API server CPU per request under `--authorization-mode=Node,RBAC`
 * with 1,000 RoleBindings and 1,000 ClusterRoleBindings present, beside the same requests under
 * `AlwaysAllow`, measured in the same run (issue 12's goal: at most 5 % more CPU per request).
 *
 * One etcd and two API server child processes on it, one per mode (the objects are written by a
 * third, stopped before either starts). The requests are gets of one
 * ConfigMap over HTTP/2 by a user who is not in system:masters (a client certificate for
 * `bench-user` in `bench`, granted by one of the RoleBindings), so RBAC searches its bindings on
 * every request. Rounds alternate between the modes; each mode reports its best round.
 *
 * Usage: npx tsx bench/authorization.ts [--count N] [--concurrency C] [--bindings B] [--rounds R] [--timeout SECONDS] [--keep]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { issueClientCertificate, loadCA } from '../shared/pki/certificates.ts';
import { startEtcd } from '../shared/etcd/process.ts';
import { benchMain, positiveInt } from './cli.ts';
import {
  configMapBody,
  expectStatus,
  fixed,
  formatTable,
  Http2Client,
  readProcess,
  runPool,
  startApiServerProcess,
  type ApiServerProcess,
  type ClientTls,
  type Cleanup,
} from './lib.ts';

/** Node,RBAC's CPU per request ÷ AlwaysAllow's that issue 12 aims at, at most. */
const goalRatio = 1.05;
const namespace = 'default';

const usage = `Usage: npx tsx bench/authorization.ts [flags]
  --count N           gets per measured round and mode (default 20000)
  --concurrency C     requests in flight (default 32)
  --bindings B        RoleBindings and as many ClusterRoleBindings (default 1000)
  --rounds R          rounds per mode, alternating which goes first; each mode's best counts (default 4)
  --timeout SECONDS   abort the whole run after this long (default 600)
  --keep              keep the temp dir (etcd data, API server logs)
`;

interface Options {
  count: number;
  concurrency: number;
  bindings: number;
  rounds: number;
  timeoutMs: number;
  keep: boolean;
}

function parse(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      count: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '32' },
      bindings: { type: 'string', default: '1000' },
      rounds: { type: 'string', default: '4' },
      timeout: { type: 'string', default: '600' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    count: positiveInt(values.count, 'count'),
    concurrency: positiveInt(values.concurrency, 'concurrency'),
    bindings: positiveInt(values.bindings, 'bindings'),
    rounds: positiveInt(values.rounds, 'rounds'),
    timeoutMs: positiveInt(values.timeout, 'timeout') * 1000,
    keep: values.keep,
  };
}

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const subject = (kind: 'User' | 'Group', name: string) => ({ kind, apiGroup: 'rbac.authorization.k8s.io', name });

/** The bindings RBAC must look through: `count` of each kind for other users and groups, and the one that grants the bench user. */
async function createBindings(admin: Http2Client, count: number): Promise<void> {
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'reader', namespace },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
  };
  await expectStatus(admin.request('POST', `${rbac}/namespaces/${namespace}/roles`, json(role)), 201);
  const created = await runPool(count, 16, async (i) => {
    const binding = {
      metadata: { name: `rb-${i}`, namespace },
      subjects: [subject('User', `user-${i}`), subject('Group', `group-${i}`)],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    };
    await expectStatus(admin.request('POST', `${rbac}/namespaces/${namespace}/rolebindings`, json(binding)), 201);
    const cluster = {
      metadata: { name: `crb-${i}` },
      subjects: [subject('User', `user-${i}`), subject('Group', `group-${i}`)],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    };
    await expectStatus(admin.request('POST', `${rbac}/clusterrolebindings`, json(cluster)), 201);
  });
  if (created.errors) throw new Error(`creating bindings failed: ${created.firstError}`);
  const grant = {
    metadata: { name: 'bench', namespace },
    subjects: [subject('Group', 'bench')],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
  };
  await expectStatus(admin.request('POST', `${rbac}/namespaces/${namespace}/rolebindings`, json(grant)), 201);
}

/** A client certificate for `bench-user` in `bench`, signed by the cluster CA of `dataDir`. */
async function benchUserTls(dataDir: string): Promise<ClientTls> {
  const pki = join(dataDir, 'pki');
  const ca = await loadCA(readFileSync(join(pki, 'ca.crt'), 'utf8'), readFileSync(join(pki, 'ca.key'), 'utf8'));
  const issued = await issueClientCertificate(ca, { commonName: 'bench-user', organizations: ['bench'] });
  return { ca: ca.certPem, cert: issued.certPem, key: issued.keyPem };
}

interface Mode {
  name: string;
  api: ApiServerProcess;
  client: Http2Client;
  /** API server CPU milliseconds per request of each round. */
  cpuPerRequest: number[];
  /** Requests per second of each round. */
  throughput: number[];
}

async function measure(mode: Mode, count: number, concurrency: number): Promise<void> {
  const path = `/api/v1/namespaces/${namespace}/configmaps/target`;
  const before = readProcess(mode.api.pid).cpuMs;
  const result = await runPool(count, concurrency, async () => void (await expectStatus(mode.client.request('GET', path), 200)));
  const cpu = readProcess(mode.api.pid).cpuMs - before;
  if (result.errors) throw new Error(`${mode.name}: ${result.errors} requests failed, the first with ${result.firstError}`);
  mode.cpuPerRequest.push(cpu / count);
  mode.throughput.push(count / (result.elapsedMs / 1000));
}

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-authz-'));
  if (!opts.keep) cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  process.stderr.write(`temp dir ${dir}\n`);
  const etcd = await startEtcd({ dataDir: join(dir, 'etcd') });
  cleanup.push(() => etcd.stop());
  const dataDir = join(dir, 'data');
  const start = async (name: string, flags: string[]): Promise<ApiServerProcess> => {
    const api = await startApiServerProcess({
      etcdEndpoints: etcd.endpoints,
      dataDir,
      logFile: join(dir, `${name}.log`),
      flags: [...flags, '--log-level=warn'],
    });
    cleanup.push(() => api.stop());
    return api;
  };
  // The objects are written through a third replica, stopped before measuring: the two measured
  // replicas then differ only in their authorization (both got the objects through their watch).
  const setup = await start('setup', ['--authorization-mode=AlwaysAllow']);
  const admin = new Http2Client(setup.url, setup.tls);
  await expectStatus(admin.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, configMapBody('target', { a: '1' })), 201);
  process.stderr.write(`creating ${opts.bindings} RoleBindings and ${opts.bindings} ClusterRoleBindings...\n`);
  await createBindings(admin, opts.bindings);
  await admin.close();
  await setup.stop();
  const rbacServer = await start('rbac', ['--authorization-mode=Node,RBAC']);
  const allowServer = await start('always-allow', ['--authorization-mode=AlwaysAllow']);

  const tls = await benchUserTls(dataDir);
  const modes: Mode[] = [
    { name: 'AlwaysAllow', api: allowServer, client: new Http2Client(allowServer.url, tls), cpuPerRequest: [], throughput: [] },
    {
      name: `Node,RBAC + ${opts.bindings}+${opts.bindings} bindings`,
      api: rbacServer,
      client: new Http2Client(rbacServer.url, tls),
      cpuPerRequest: [],
      throughput: [],
    },
  ];
  for (const mode of modes) cleanup.push(() => mode.client.close());
  // The bench user may read the ConfigMap under both modes before anything is measured (the
  // RBAC server's watch cache has every binding), and both servers are warm.
  for (const mode of modes) await measure(mode, Math.min(2000, opts.count), opts.concurrency);
  for (const mode of modes) mode.cpuPerRequest.length = mode.throughput.length = 0;
  // Each round measures both, the first of a round alternating: neither mode always runs on a
  // machine the other just warmed or loaded.
  for (let round = 0; round < opts.rounds; round++) {
    for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) await measure(mode, opts.count, opts.concurrency);
  }

  const best = (values: number[], lowest: boolean): number => (lowest ? Math.min(...values) : Math.max(...values));
  const [allow, checked] = modes as [Mode, Mode];
  const rows = modes.map((m) => [m.name, fixed(best(m.cpuPerRequest, true) * 1000, 1), fixed(best(m.throughput, false), 0)]);
  process.stdout.write(
    `\n${opts.rounds} rounds of ${opts.count} gets at concurrency ${opts.concurrency}, best round per mode\n\n` +
      formatTable(['authorization', 'API server CPU µs/request', 'requests/s'], rows) +
      '\n',
  );
  const ratio = best(checked.cpuPerRequest, true) / best(allow.cpuPerRequest, true);
  process.stdout.write(`\nCPU per request, Node,RBAC ÷ AlwaysAllow: ${fixed(ratio, 3)} (goal ≤ ${goalRatio})\n`);
  return true;
}

void benchMain(usage, parse, run);
