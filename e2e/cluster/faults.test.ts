/**
 * Crash faults in the cluster as processes (cluster/topology.ts: 3 etcd members, 2 API servers
 * behind haproxy, 2 leader-elected controller managers), each under writers and an informer that
 * go through the balancer for the whole scenario (issue 16, item 5):
 *
 * - The etcd leader SIGKILLed under write load: a surviving member leads, writes resume, no
 *   acknowledged create, patch or delete is lost, and the informer's cache equals a fresh list. The
 *   killed member, restarted on its data dir, rejoins: every member is healthy and agrees on one
 *   leader. "Writes resume" is measured by a prober sending a fresh create every 100 ms: the time
 *   from the kill to the first one acknowledged. The writers' own requests in flight at the kill
 *   may wait longer: etcd holds a proposal the dead leader never committed until its request
 *   timeout (5 s + 2 election timeouts) and answers Unavailable, which the etcd client retries.
 *   Both figures are printed; only generous bounds are asserted (2 shared cores).
 * - The controller manager holding the kube-controller-manager Lease SIGKILLed while approved client
 *   certificate requests are being signed and namespaces holding ConfigMaps are being deleted: the
 *   other manager takes the Lease (the time is printed; the default lease is 15 s, a generous bound is
 *   asserted), every request gets its certificate and every namespace is gone. The data path does
 *   not notice: the writers see no error at all.
 * - One API server cut off from every etcd member (a TCP proxy of its own in front of each, paused as
 *   a partition holds traffic) under writers and an informer: within seconds it fails /readyz, haproxy
 *   marks it DOWN and the writes go on through the other replica; once the path heals it is ready
 *   and UP again, its watch cache equals etcd, and no acknowledged write is lost. While unready it
 *   closes each connection after its answer (HTTP/2: a GOAWAY), so that clients pinned to it move; their
 *   requests until then fail (504, printed, not asserted).
 *
 * Why: a control plane is only as available as its crash recovery; these are the two single
 * points of leadership in the topology, and a fail-over that loses an acknowledged write or
 * strands work of the dead leader is the failure a replicated deployment exists to prevent.
 * Expected states come from the writes' own answers; the scenarios share one topology and run in order.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { createTestClient, type TestClient, type TestResponse } from '../../apiserver/testing/client.ts';
import { waitFor } from '../../apiserver/testing/wait-for.ts';
import { skipUnlessEtcd } from '../../shared/etcd/availability.ts';
import { startTopology, type Topology } from '../../cluster/topology.ts';
import { registerCleanup, run, succeeded } from '../harness.ts';
import { haproxy, skipUnlessTool } from '../tool-availability.ts';

/** Why the suite cannot run here (etcd or haproxy missing), or false; CORRAL_REQUIRE_ETCD / CORRAL_REQUIRE_HAPROXY make it a failure. */
const skip = skipUnlessEtcd() || skipUnlessTool({ ...haproxy, purpose: 'to run the cluster of processes behind a load balancer' });

const WRITERS = 4;
/** How often the prober of the etcd scenario sends a fresh create. */
const PROBE_INTERVAL_MS = 100;
/** Robustness bounds only (2 shared cores): a hang fails, a slow machine does not. */
const MAX_WRITE_GAP_MS = 30_000;
/** The default lease is 15 s and candidates retry every 2 s; the rest is room for a loaded machine. */
const MAX_TAKEOVER_MS = 60_000;
const CSRS = 20;
const NAMESPACES = 8;
const CONFIGMAPS_PER_NAMESPACE = 3;

const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;
const CSR_COLLECTION = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const LEASE_PATH = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';

function expectCode(res: TestResponse, code: number, what: string): void {
  assert.equal(res.status, code, `${what}: expected ${code}, got ${res.status}: ${res.text}`);
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** What a workload saw, for the checks at the end of a scenario. */
interface WorkloadReport {
  acknowledged: number;
  /** When each write was acknowledged (ms since the epoch), in order. */
  ackTimes: number[];
  errors: string[];
  informerErrors: string[];
  objects: number;
}

interface Workload {
  acknowledged(): number;
  /** Stops the writers, checks every acknowledged write against a fresh list and waits for the informer to equal it. */
  finish(): Promise<WorkloadReport>;
}

describe('crash faults in the cluster as processes behind haproxy', { skip, timeout: 300_000 }, () => {
  let dir = '';
  let topology: Topology;
  let unregister: () => void = () => undefined;
  const clients: TestClient[] = [];
  /** A client of the balancer with its own connections, acting as the admin. */
  const client = (opts: { maxSockets?: number } = {}): TestClient => {
    const c = createTestClient(topology.url, dir, opts);
    clients.push(c);
    return c;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'corral-faults-'));
    // The topology kills its processes when this one exits; this removes the directory too.
    unregister = registerCleanup(() => [], dir);
    topology = await startTopology({ dir, nodes: 0, runtime: 'source', prometheus: false, breakableEtcdPaths: true });
  });

  after(async () => {
    for (const c of clients) c.close();
    await topology?.stop();
    rmSync(dir, { recursive: true, force: true });
    unregister();
  });

  /**
   * Writers through the balancer in `ns` (create, merge-patch every second object, delete every
   * fifth; each answer recorded) and an informer on the same ConfigMaps, restarted on errors as
   * controllers do.
   */
  const startWorkload = async (ns: string): Promise<Workload> => {
    expectCode(await client().request('POST', '/api/v1/namespaces', { metadata: { name: ns } }), 201, `create namespace ${ns}`);

    const kc = new KubeConfig();
    kc.loadFromFile(topology.files.adminKubeconfig);
    const api = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1ConfigMap>(kc, cms(ns), () => api.listNamespacedConfigMap({ namespace: ns }));
    const informerErrors: string[] = [];
    let stopping = false;
    informer.on('error', (err: unknown) => {
      // Stopping aborts the watch, which the informer reports as an error too.
      if (stopping) return;
      informerErrors.push(message(err));
      setTimeout(() => void informer.start().catch((e: unknown) => informerErrors.push(message(e))), 500);
    });
    await informer.start();

    /** What the acknowledged writes leave: the object's data, or null once deleted. */
    const expected = new Map<string, string | null>();
    /** Objects whose last write was not acknowledged: their state is either. */
    const uncertain = new Set<string>();
    const ackTimes: number[] = [];
    const errors: string[] = [];
    let writing = true;
    const attempt = async (c: TestClient, name: string, method: string, path: string, body: unknown, code: number, state: string | null): Promise<boolean> => {
      const headers = method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : undefined;
      try {
        const res = await c.request(method, path, body, headers);
        if (res.status === code) {
          expected.set(name, state);
          uncertain.delete(name);
          ackTimes.push(Date.now());
          return true;
        }
        errors.push(`${method} ${name}: ${res.status} ${res.text.slice(0, 200)}`);
      } catch (err) {
        errors.push(`${method} ${name}: ${message(err)}`);
      }
      uncertain.add(name);
      return false;
    };
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      const c = client();
      for (let k = 0; writing; k++) {
        const name = `w${w}-${k}`;
        if (!(await attempt(c, name, 'POST', cms(ns), { metadata: { name }, data: { v: '0' } }, 201, '0'))) continue;
        if (k % 2 === 0) await attempt(c, name, 'PATCH', `${cms(ns)}/${name}`, { data: { v: '1' } }, 200, '1');
        if (k % 5 === 0) await attempt(c, name, 'DELETE', `${cms(ns)}/${name}`, undefined, 200, null);
      }
    });

    return {
      acknowledged: () => ackTimes.length,
      async finish() {
        writing = false;
        await Promise.all(writers);
        const final = await client().request('GET', cms(ns));
        expectCode(final, 200, 'final list');
        const items = (final.body.items ?? []).map((i) => ({
          name: i.metadata.name ?? '',
          resourceVersion: i.metadata.resourceVersion ?? '',
          v: typeof i['data'] === 'object' && i['data'] !== null && 'v' in i['data'] ? String(i['data'].v) : '',
        }));
        const stored = new Map(items.map((i) => [i.name, i.v]));
        let checked = 0;
        for (const [name, state] of expected) {
          if (uncertain.has(name)) continue;
          assert.equal(stored.has(name) ? stored.get(name) : null, state, `acknowledged state of ${name}`);
          checked++;
        }
        assert.ok(checked > 0, 'no acknowledged write to check');

        const want = JSON.stringify(items.map((i) => `${i.name}@${i.resourceVersion}`).sort());
        const have = (): string =>
          JSON.stringify(
            informer
              .list(ns)
              .map((i) => `${i.metadata?.name}@${i.metadata?.resourceVersion}`)
              .sort(),
          );
        try {
          await waitFor('the informer to converge to a fresh list', () => have() === want, {
            timeoutMs: 60_000,
            intervalMs: 200,
            detail: () => `informer errors: ${informerErrors.join('; ')}`,
          });
        } finally {
          stopping = true;
          await informer.stop();
        }
        return { acknowledged: ackTimes.length, ackTimes, errors, informerErrors, objects: items.length };
      },
    };
  };

  /**
   * Creates in `ns`, each sent PROBE_INTERVAL_MS after the last was sent (not after it was answered),
   * so that a stalled request does not delay the next: stop() resolves with when each was sent and
   * when it was acknowledged (undefined when it failed).
   */
  const startProber = async (ns: string): Promise<{ stop(): Promise<{ sentAt: number; ackAt: number | undefined }[]> }> => {
    // A connection per probe in flight: probes stalled by the fault must not hold back later ones.
    const c = client({ maxSockets: 1024 });
    expectCode(await c.request('POST', '/api/v1/namespaces', { metadata: { name: ns } }), 201, `create namespace ${ns}`);
    const probes: Promise<{ sentAt: number; ackAt: number | undefined }>[] = [];
    const timer = setInterval(() => {
      const sentAt = Date.now();
      const name = `probe-${probes.length}`;
      probes.push(
        c.request('POST', cms(ns), { metadata: { name } }).then(
          (res) => ({ sentAt, ackAt: res.status === 201 ? Date.now() : undefined }),
          () => ({ sentAt, ackAt: undefined }),
        ),
      );
    }, PROBE_INTERVAL_MS);
    return {
      async stop() {
        clearInterval(timer);
        return Promise.all(probes);
      },
    };
  };

  const untilAcknowledged = async (workload: Workload, more: number): Promise<void> => {
    const target = workload.acknowledged() + more;
    await waitFor(`${more} more acknowledged writes`, () => workload.acknowledged() >= target, { timeoutMs: 90_000, intervalMs: 100 });
  };

  /** etcd's own view of a member through its JSON gateway; undefined when it does not answer. */
  const memberStatus = async (endpoint: string): Promise<{ memberId: string; leader: string } | undefined> => {
    try {
      const res = await fetch(`${endpoint}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) });
      if (!res.ok) return undefined;
      const body = (await res.json()) as { header?: { member_id?: string }; leader?: string };
      return { memberId: body.header?.member_id ?? '', leader: body.leader ?? '' };
    } catch {
      return undefined;
    }
  };
  const memberHealthy = async (endpoint: string): Promise<boolean> => {
    try {
      const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(2000) });
      return ((await res.json()) as { health?: string }).health === 'true';
    } catch {
      return false;
    }
  };

  it(
    'the etcd leader SIGKILLed under write load: writes resume, no acknowledged write lost, the informer converges; the member rejoins healthy',
    { timeout: 150_000 },
    async (t: TestContext) => {
      const workload = await startWorkload('faults-etcd');
      const prober = await startProber('faults-etcd-probe');
      let report: WorkloadReport;
      let probes: { sentAt: number; ackAt: number | undefined }[] = [];
      let killedAt = 0;
      let electedMs = 0;
      let leader = -1;
      try {
        await untilAcknowledged(workload, 40);
        leader = await topology.etcd.leader();
        const endpoint = topology.etcd.endpoints[leader] ?? '';
        killedAt = Date.now();
        await topology.etcd.kill(leader);
        const next = await topology.etcd.leader();
        electedMs = Date.now() - killedAt;
        assert.notEqual(next, leader, 'the killed member cannot lead');
        await untilAcknowledged(workload, 60);

        await topology.etcd.restart(leader);
        await waitFor(
          'every etcd member healthy, agreeing on one leader',
          async () => {
            const healthy = await Promise.all(topology.etcd.endpoints.map(memberHealthy));
            const statuses = await Promise.all(topology.etcd.endpoints.map(memberStatus));
            const leaders = new Set(statuses.map((s) => s?.leader ?? '0'));
            return healthy.every(Boolean) && statuses.every((s) => s !== undefined) && leaders.size === 1 && !leaders.has('0');
          },
          { timeoutMs: 60_000, intervalMs: 250 },
        );
        assert.ok(await memberStatus(endpoint), 'the restarted member answers');
        await untilAcknowledged(workload, 40);
      } finally {
        probes = await prober.stop();
        report = await workload.finish();
      }

      const acksAfterKill = probes.flatMap((p) => (p.sentAt >= killedAt && p.ackAt !== undefined ? [p.ackAt] : []));
      const resumedAt = acksAfterKill.length > 0 ? Math.min(...acksAfterKill) : undefined;
      const probesFailed = probes.filter((p) => p.ackAt === undefined).length;
      const gaps = report.ackTimes.slice(1).map((at, i) => at - (report.ackTimes[i] ?? at));
      const longestGap = Math.max(0, ...gaps);
      const gapStart = report.ackTimes[gaps.indexOf(longestGap)] ?? killedAt;
      const firstAfterKill = report.ackTimes.find((at) => at > killedAt);
      t.diagnostic(
        `etcd leader member-${leader} killed: new leader after ${electedMs} ms; ` +
          `writes resumed (the first fresh create acknowledged) ${resumedAt === undefined ? 'never' : `${resumedAt - killedAt} ms`} after the kill; ` +
          `${probes.length} probes, ${probesFailed} failed; first acknowledged write ${firstAfterKill === undefined ? 'never' : `${firstAfterKill - killedAt} ms`} after the kill; ` +
          `longest gap between acknowledged writes ${longestGap} ms (from ${gapStart - killedAt} ms after the kill); ${report.acknowledged} acknowledged writes, ${report.objects} objects; ` +
          `client errors ${report.errors.length}, informer errors ${report.informerErrors.length}`,
      );
      for (const e of [...report.errors, ...report.informerErrors]) t.diagnostic(`  error: ${e}`);
      assert.ok(firstAfterKill !== undefined, 'no write acknowledged after the kill');
      assert.ok(resumedAt !== undefined && resumedAt - killedAt < MAX_WRITE_GAP_MS, 'fresh creates were acknowledged again after the kill');
      assert.ok(longestGap < MAX_WRITE_GAP_MS, `writes stalled for ${longestGap} ms`);
    },
  );

  it(
    'the leading controller manager SIGKILLed while CSRs are signed and namespaces deleted: the other takes the lease, every CSR is issued, every namespace is gone',
    { timeout: 180_000 },
    async (t: TestContext) => {
      const admin = client();
      const holder = async (): Promise<string> => {
        const res = await admin.request('GET', LEASE_PATH);
        if (res.status !== 200) return '';
        const spec = res.body['spec'];
        return typeof spec === 'object' && spec !== null && 'holderIdentity' in spec && typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '';
      };
      const leaseTransitions = async (): Promise<number> => {
        const spec = (await admin.request('GET', LEASE_PATH)).body['spec'];
        return typeof spec === 'object' && spec !== null && 'leaseTransitions' in spec && typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0;
      };
      /** The manager whose log names `identity` (each logs its random identity when it starts); -1 when none does. */
      const managerOf = (identity: string): number =>
        identity === '' ? -1 : topology.controllerManagers.findIndex((m) => readFileSync(m.process.logFile, 'utf8').includes(identity));

      const leaderIdentity = await waitFor('a controller manager to hold the lease', async () => ((await holder()) !== '' ? holder() : undefined), {
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      const leaderIndex = managerOf(leaderIdentity);
      assert.ok(leaderIndex >= 0, `no manager's log names the holder ${leaderIdentity}`);
      const survivorIndex = leaderIndex === 0 ? 1 : 0;
      const leaderManager = topology.controllerManagers[leaderIndex];
      assert.ok(leaderManager);
      const transitionsBefore = await leaseTransitions();

      // One client certificate request, sent under many names.
      const keyFile = join(dir, 'faults.key');
      const csrFile = join(dir, 'faults.csr');
      succeeded(await run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile]));
      succeeded(await run('openssl', ['req', '-new', '-key', keyFile, '-subj', '/CN=faults-user', '-out', csrFile]));
      const request = readFileSync(csrFile).toString('base64');
      const createApprovedCSR = async (name: string): Promise<void> => {
        const created = await admin.request('POST', CSR_COLLECTION, {
          apiVersion: 'certificates.k8s.io/v1',
          kind: 'CertificateSigningRequest',
          metadata: { name },
          spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
        });
        expectCode(created, 201, `create CSR ${name}`);
        const approved = {
          ...created.body,
          status: { conditions: [{ type: 'Approved', status: 'True', reason: 'FaultTest', message: 'approved by the fail-over test' }] },
        };
        expectCode(await admin.request('PUT', `${CSR_COLLECTION}/${name}/approval`, approved), 200, `approve CSR ${name}`);
      };

      const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `faults-doomed-${i}`);
      for (const ns of namespaces) {
        expectCode(await admin.request('POST', '/api/v1/namespaces', { metadata: { name: ns } }), 201, `create namespace ${ns}`);
        for (let j = 0; j < CONFIGMAPS_PER_NAMESPACE; j++) {
          expectCode(await admin.request('POST', cms(ns), { metadata: { name: `cm-${j}` }, data: { j: String(j) } }), 201, `create ConfigMap in ${ns}`);
        }
      }

      const issued = async (): Promise<Set<string>> => {
        const list = await admin.request('GET', CSR_COLLECTION);
        expectCode(list, 200, 'list CSRs');
        return new Set(
          (list.body.items ?? [])
            .filter((csr) => {
              const status = csr['status'];
              return (
                typeof status === 'object' && status !== null && 'certificate' in status && typeof status.certificate === 'string' && status.certificate !== ''
              );
            })
            .map((csr) => csr.metadata.name ?? ''),
        );
      };
      const namespacesLeft = async (): Promise<number> =>
        (await Promise.all(namespaces.map((ns) => admin.request('GET', `/api/v1/namespaces/${ns}`)))).filter((a) => a.status !== 404).length;

      const workload = await startWorkload('faults-cm');
      let report: WorkloadReport;
      const csrNames = Array.from({ length: CSRS }, (_, i) => `faults-${i}`);
      let tookOverMs = 0;
      let atKill = '';
      try {
        await untilAcknowledged(workload, 20);
        // Half the requests and every namespace deletion reach the leader before it dies; the rest only the survivor.
        const half = CSRS / 2;
        for (const name of csrNames.slice(0, half)) await createApprovedCSR(name);
        for (const ns of namespaces) expectCode(await admin.request('DELETE', `/api/v1/namespaces/${ns}`), 200, `delete namespace ${ns}`);

        const killedAt = Date.now();
        await leaderManager.process.kill();
        const [signedAtKill, namespacesAtKill] = await Promise.all([issued(), namespacesLeft()]);
        const creating = (async () => {
          for (const name of csrNames.slice(half)) await createApprovedCSR(name);
        })();
        await waitFor('the other controller manager to hold the lease', async () => managerOf(await holder()) === survivorIndex, {
          timeoutMs: 120_000,
          intervalMs: 100,
          detail: () => topology.controllerManagers[survivorIndex]?.process.logTail() ?? '',
        });
        tookOverMs = Date.now() - killedAt;
        atKill = `${csrNames.filter((n) => signedAtKill.has(n)).length} of ${CSRS / 2} created CSRs issued and ${namespacesAtKill} of ${NAMESPACES} namespaces still present at the kill`;
        await creating;
        assert.equal(await leaseTransitions(), transitionsBefore + 1, 'one transition: killed leader to survivor');

        await waitFor(
          'every CSR issued',
          async () => {
            const signed = await issued();
            return csrNames.every((n) => signed.has(n));
          },
          {
            timeoutMs: 90_000,
            intervalMs: 500,
            detail: () => topology.controllerManagers[survivorIndex]?.process.logTail() ?? '',
          },
        );
        const signed = await issued();
        assert.deepEqual(
          csrNames.filter((n) => !signed.has(n)),
          [],
          'requests without a certificate',
        );
        await waitFor('every deleted namespace gone', async () => (await namespacesLeft()) === 0, {
          timeoutMs: 120_000,
          intervalMs: 500,
          detail: () => topology.controllerManagers[survivorIndex]?.process.logTail() ?? '',
        });
        for (const ns of namespaces) {
          const left = await admin.request('GET', cms(ns));
          expectCode(left, 200, `list ConfigMaps of deleted ${ns}`);
          assert.deepEqual(left.body.items ?? [], [], `ConfigMaps left in deleted ${ns}`);
        }

        // The killed manager comes back as a candidate: the survivor keeps the lease.
        await leaderManager.process.start();
        assert.equal(managerOf(await holder()), survivorIndex, 'the restarted manager took the lease from a live leader');
      } finally {
        report = await workload.finish();
      }

      t.diagnostic(
        `controller-manager-${leaderIndex} (lease holder) killed: controller-manager-${survivorIndex} held the lease ${tookOverMs} ms later; ` +
          `${atKill}; then ${CSRS} CSRs issued, ${NAMESPACES} namespaces gone; ${report.acknowledged} acknowledged writes, client errors ${report.errors.length}, informer errors ${report.informerErrors.length}`,
      );
      for (const e of [...report.errors, ...report.informerErrors]) t.diagnostic(`  error: ${e}`);
      assert.ok(tookOverMs < MAX_TAKEOVER_MS, `the survivor took the lease after ${tookOverMs} ms`);
      // The API servers and etcd were untouched: a controller manager's crash is invisible to other clients.
      assert.deepEqual(report.errors, [], 'client errors while only a controller manager failed');
    },
  );

  it(
    'one API server cut off from etcd: it fails /readyz, haproxy takes it out, writes go on; healed, it is back and nothing is lost',
    { timeout: 150_000 },
    async (t: TestContext) => {
      const victim = topology.apiServers[0];
      const etcdPath = victim?.etcdPath;
      assert.ok(victim && etcdPath, 'the topology runs with breakable etcd paths');
      const direct = createTestClient(victim.url, dir);
      clients.push(direct);
      const readyz = async (): Promise<number> => {
        try {
          return (await direct.request('GET', '/readyz')).status;
        } catch {
          return 0;
        }
      };
      const backend = async (): Promise<string> => (await topology.backendStatus())['apiserver-0'] ?? '';
      const ns = 'faults-partition';
      const workload = await startWorkload(ns);
      let report: WorkloadReport;
      const timings: string[] = [];
      let acknowledgedWhileCut = 0;
      try {
        await untilAcknowledged(workload, 40);
        assert.equal(await backend(), 'UP');
        const cutAt = Date.now();
        const since = (): string => `${Date.now() - cutAt} ms`;
        etcdPath.pause();
        await waitFor('the cut-off replica to fail /readyz', async () => (await readyz()) === 500, { timeoutMs: 30_000, intervalMs: 100 });
        timings.push(`/readyz 500 after ${since()}`);
        await waitFor('haproxy to mark the cut-off replica DOWN', async () => (await backend()).startsWith('DOWN'), { timeoutMs: 30_000, intervalMs: 100 });
        timings.push(`DOWN after ${since()}`);
        // Unready, the replica closes each connection after its answer: its clients reconnect
        // through the balancer, which sends them to the other replica now.
        const whileCut = await direct.request('GET', `${cms(ns)}?resourceVersion=0`);
        assert.equal(whileCut.headers.connection, 'close', 'an answer of the cut-off replica closes its connection');
        const before = workload.acknowledged();
        await untilAcknowledged(workload, 60);
        acknowledgedWhileCut = workload.acknowledged() - before;

        // The partition heals; connections it held are gone, as after a partition that lasted.
        const healAt = Date.now();
        etcdPath.cut();
        etcdPath.resume();
        await waitFor('the healed replica to pass /readyz', async () => (await readyz()) === 200, { timeoutMs: 60_000, intervalMs: 100 });
        timings.push(`healed: /readyz 200 after ${Date.now() - healAt} ms`);
        const healed = await direct.request('GET', `${cms(ns)}?resourceVersion=0`);
        assert.notEqual(healed.headers.connection, 'close', 'a ready replica keeps its connections');
        await waitFor('haproxy to mark the healed replica UP', async () => (await backend()) === 'UP', { timeoutMs: 30_000, intervalMs: 100 });
        timings.push(`UP after ${Date.now() - healAt} ms`);
        await untilAcknowledged(workload, 40);
      } finally {
        report = await workload.finish();
      }

      // The healed replica's watch cache (resourceVersion=0 lists are served from it) equals etcd.
      const names = (res: TestResponse): string => JSON.stringify((res.body.items ?? []).map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`).sort());
      const fresh = await direct.request('GET', cms(ns));
      expectCode(fresh, 200, 'a quorum list from the healed replica');
      await waitFor(
        "the healed replica's watch cache to equal etcd",
        async () => names(await direct.request('GET', `${cms(ns)}?resourceVersion=0`)) === names(fresh),
        {
          timeoutMs: 30_000,
          intervalMs: 200,
        },
      );

      t.diagnostic(
        `apiserver-0 cut off from etcd: ${timings.join('; ')}; ${acknowledgedWhileCut} writes acknowledged while it was out; ` +
          `${report.acknowledged} acknowledged writes in all, ${report.objects} objects; client errors ${report.errors.length}, informer errors ${report.informerErrors.length}`,
      );
      for (const e of [...report.errors, ...report.informerErrors]) t.diagnostic(`  error: ${e}`);
      assert.ok(acknowledgedWhileCut >= 60, 'writes went on through the other replica');
    },
  );
});
