/**
 * The cluster as processes (cluster/topology.ts): 3 etcd members, 2 API servers behind a real
 * haproxy, 2 controller managers, simulated node agents, every client going through the balancer.
 *
 * - It comes up: the nodes joined with the static bootstrap token of `corral pki` (the approver
 *   approved `kubelet-bootstrap`'s requests) and are Ready; both API servers answer.
 * - 64 read-modify-write clients on one ConfigMap through the balancer lose no update: the counter
 *   ends at the number of acknowledged PUTs, and losers got 409 Conflict.
 * - One API server SIGKILLed, then the other restarted gracefully, under writers and an informer:
 *   every acknowledged write is in the final state, the informer's cache equals a fresh list (names
 *   and resourceVersions), and no replica answers with an error status. Connections cut by the
 *   faults are counted and printed; the graceful restart must cut none (the draining replica
 *   closes each connection after its answer (HTTP/2: a GOAWAY) from the moment its /readyz fails, so keep-alive
 *   clients move to the ready replica before the listener closes).
 *
 * Expected states come from the writes' own answers; waits have generous deadlines and assert
 * nothing about time. The scenarios share one topology and run in order (the fault one last).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { createTestClient, type TestClient, type TestResponse } from '../../apiserver/testing/client.ts';
import { waitFor } from '../../apiserver/testing/wait-for.ts';
import { skipUnlessEtcd } from '../../shared/etcd/availability.ts';
import { NODE_NAME_PREFIX, startTopology, type Topology } from '../../cluster/topology.ts';
import { kubectlEnv, registerCleanup, run, succeeded } from '../harness.ts';
import { haproxy, skipUnlessTool } from '../tool-availability.ts';

/** Why the suite cannot run here (etcd or haproxy missing), or false; CORRAL_REQUIRE_ETCD / CORRAL_REQUIRE_HAPROXY make it a failure. */
const skip = skipUnlessEtcd() || skipUnlessTool({ ...haproxy, purpose: 'to run the cluster of processes behind a load balancer' });

const NODES = 3;
const RMW_CLIENTS = 64;
const WRITERS = 4;

const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;

function expectCode(res: TestResponse, code: number, what: string): void {
  assert.equal(res.status, code, `${what}: expected ${code}, got ${res.status}: ${res.text}`);
}

describe('the cluster as processes behind haproxy', { skip, timeout: 420_000 }, () => {
  let dir = '';
  let topology: Topology;
  let unregister: () => void = () => undefined;
  const clients: TestClient[] = [];
  /** A client of the balancer with its own connection, acting as the admin. */
  const client = (): TestClient => {
    const c = createTestClient(topology.url, dir);
    clients.push(c);
    return c;
  };
  /** Client errors the graceful restart caused, measured by the fault scenario. */
  let gracefulErrors: string[] | undefined;
  const kubectl = (args: readonly string[]) => run('kubectl', args, { env: kubectlEnv(topology.files.adminKubeconfig, dir) });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'corral-topology-'));
    // The topology kills its processes when this one exits; this removes the directory too.
    unregister = registerCleanup(() => [], dir);
    topology = await startTopology({ dir, nodes: NODES, runtime: 'source', prometheus: false });
  });

  after(async () => {
    for (const c of clients) c.close();
    await topology?.stop();
    rmSync(dir, { recursive: true, force: true });
    unregister();
  });

  it('comes up: the simulated nodes join with the static bootstrap token and are Ready through the balancer; both API servers answer', async () => {
    const names = Array.from({ length: NODES }, (_, i) => `${NODE_NAME_PREFIX}-${i}`);
    await waitFor(
      'every simulated node Ready',
      async () => {
        const out = succeeded(
          await kubectl(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}']),
        );
        const ready = out.split('\n').filter((l) => l.endsWith('=True'));
        return names.every((n) => ready.includes(`${n}=True`));
      },
      { timeoutMs: 120_000, intervalMs: 1000, detail: () => topology.nodeAgents?.logTail() ?? '' },
    );
    // The requests were approved for the token file's user, through the approver's SubjectAccessReview.
    const csrs = succeeded(await kubectl(['get', 'csr', '-o', 'jsonpath={range .items[*]}{.spec.username}/{.status.conditions[0].reason}{"\\n"}{end}']));
    const lines = csrs.split('\n').filter(Boolean);
    assert.equal(lines.length, NODES, csrs);
    for (const line of lines) assert.equal(line, 'kubelet-bootstrap/AutoApproved');
    // Each API server directly: ready, and serving the same cluster.
    for (const api of topology.apiServers) {
      const direct = createTestClient(api.url, dir);
      clients.push(direct);
      expectCode(await direct.request('GET', '/readyz'), 200, `${api.url}/readyz`);
      const nodes = await direct.request('GET', '/api/v1/nodes');
      expectCode(nodes, 200, `${api.url} list nodes`);
      assert.deepEqual((nodes.body.items ?? []).map((n) => n.metadata.name).sort(), names);
    }
    assert.deepEqual(await topology.backendStatus(), { 'apiserver-0': 'UP', 'apiserver-1': 'UP' });
    // kubectl finds the control plane at the balancer's address, as against kube-apiserver.
    const info = succeeded(await kubectl(['cluster-info']));
    assert.match(info, new RegExp(`Kubernetes control plane.* is running at .*${topology.url.replaceAll('.', '\\.')}`));
  });

  it(`${RMW_CLIENTS} concurrent read-modify-write clients on one ConfigMap lose no update, and losers get 409`, { timeout: 180_000 }, async () => {
    const path = `${cms('default')}/counter`;
    expectCode(await client().request('POST', cms('default'), { metadata: { name: 'counter' }, data: { n: '0' } }), 201, 'create counter');
    let acknowledged = 0;
    let conflicts = 0;
    const rmwClient = async (c: TestClient): Promise<void> => {
      for (let attempt = 0; ; attempt++) {
        assert.ok(attempt < 1000, 'a client made no progress in 1000 attempts');
        const read = await c.request('GET', path);
        expectCode(read, 200, 'GET counter');
        const body = read.body as unknown as V1ConfigMap;
        const n = Number(body.data?.['n']);
        const put = await c.request('PUT', path, { ...body, data: { n: String(n + 1) } });
        if (put.status === 409) {
          assert.equal(put.body.reason, 'Conflict', put.text);
          conflicts++;
          continue;
        }
        expectCode(put, 200, 'PUT counter');
        acknowledged++;
        return;
      }
    };
    const rmwClients = Array.from({ length: RMW_CLIENTS }, () => client());
    await Promise.all(rmwClients.map(rmwClient));
    const final = await client().request('GET', path);
    expectCode(final, 200, 'GET counter');
    assert.equal(acknowledged, RMW_CLIENTS);
    assert.equal((final.body as unknown as V1ConfigMap).data?.['n'], String(acknowledged));
    assert.ok(conflicts > 0, 'no client lost a race: the test did not exercise conflicts');
    process.stderr.write(`read-modify-write: ${acknowledged} acknowledged PUTs, ${conflicts} conflicts (409)\n`);
  });

  it(
    'an API server SIGKILLed and the other restarted gracefully: no acknowledged write lost, the informer converges, no replica answers with an error',
    { timeout: 240_000 },
    async () => {
      const ns = 'faults';
      expectCode(await client().request('POST', '/api/v1/namespaces', { metadata: { name: ns } }), 201, 'create namespace');

      // The informer, through the balancer, restarted on errors as controllers do.
      const kc = new KubeConfig();
      kc.loadFromFile(topology.files.adminKubeconfig);
      const api = kc.makeApiClient(CoreV1Api);
      const informer = makeInformer<V1ConfigMap>(kc, `${cms(ns)}`, () => api.listNamespacedConfigMap({ namespace: ns }));
      const informerErrors: string[] = [];
      let stopping = false;
      informer.on('error', (err: unknown) => {
        informerErrors.push(err instanceof Error ? err.message : String(err));
        if (!stopping) setTimeout(() => void informer.start().catch((e: unknown) => informerErrors.push(String(e))), 500);
      });
      await informer.start();

      // Writers, each on its own connection: create, update every second object, delete every fifth; every answer is recorded.
      type Phase = 'before' | 'kill' | 'graceful' | 'after';
      let phase: Phase = 'before';
      let phaseStarted = Date.now();
      const enter = (next: Phase): void => {
        phase = next;
        phaseStarted = Date.now();
      };
      const errors: { phase: Phase; what: string; status: number }[] = [];
      /** What the acknowledged writes leave: the object's data, or null once deleted. */
      const expected = new Map<string, string | null>();
      /** Objects whose last write was not acknowledged: their state is either. */
      const uncertain = new Set<string>();
      let acknowledged = 0;
      let writing = true;
      const attempt = async (
        c: TestClient,
        name: string,
        method: string,
        path: string,
        body: unknown,
        code: number,
        state: string | null,
      ): Promise<boolean> => {
        try {
          const res = await c.request(method, path, body);
          if (res.status === code) {
            expected.set(name, state);
            uncertain.delete(name);
            acknowledged++;
            return true;
          }
          errors.push({ phase, status: res.status, what: `${method} ${name} at +${Date.now() - phaseStarted} ms: ${res.status} ${res.text.slice(0, 200)}` });
        } catch (err) {
          errors.push({ phase, status: 0, what: `${method} ${name} at +${Date.now() - phaseStarted} ms: ${err instanceof Error ? err.message : String(err)}` });
        }
        uncertain.add(name);
        return false;
      };
      // createTestClient sends JSON; a merge patch needs its content type.
      const patchingClient = (c: TestClient): TestClient => ({
        request: (method, path, body, headers) =>
          c.request(method, path, body, method === 'PATCH' ? { 'content-type': 'application/merge-patch+json', ...headers } : headers),
        close: () => c.close(),
      });
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        const c = patchingClient(client());
        for (let k = 0; writing; k++) {
          const name = `w${w}-${k}`;
          if (!(await attempt(c, name, 'POST', cms(ns), { metadata: { name }, data: { v: '0' } }, 201, '0'))) continue;
          if (k % 2 === 0) await attempt(c, name, 'PATCH', `${cms(ns)}/${name}`, { data: { v: '1' } }, 200, '1');
          if (k % 5 === 0) await attempt(c, name, 'DELETE', `${cms(ns)}/${name}`, undefined, 200, null);
        }
      });

      const untilAcknowledged = async (more: number): Promise<void> => {
        const target = acknowledged + more;
        await waitFor(`${more} more acknowledged writes`, () => acknowledged >= target, { timeoutMs: 60_000, intervalMs: 100 });
      };
      const bothUp = (): Promise<true> =>
        waitFor(
          'haproxy to see both API servers UP',
          async () => {
            const status = await topology.backendStatus();
            return status['apiserver-0'] === 'UP' && status['apiserver-1'] === 'UP';
          },
          { timeoutMs: 60_000, intervalMs: 250 },
        );
      const [first, second] = topology.apiServers;
      assert.ok(first && second);
      try {
        await untilAcknowledged(40);

        enter('kill');
        await first.process.kill();
        await untilAcknowledged(40);
        await first.process.start();
        await bothUp();
        await untilAcknowledged(20);

        enter('graceful');
        await second.process.stop();
        await untilAcknowledged(40);
        await second.process.start();
        await bothUp();
        await untilAcknowledged(40);
        enter('after');
      } finally {
        writing = false;
        await Promise.all(writers);
      }

      const final = await client().request('GET', cms(ns));
      expectCode(final, 200, 'final list');
      const items = final.body.items ?? [];
      const stored = new Map(items.map((i) => [i.metadata.name ?? '', (i as V1ConfigMap).data?.['v'] ?? '']));
      for (const [name, state] of expected) {
        if (uncertain.has(name)) continue;
        assert.equal(stored.has(name) ? stored.get(name) : null, state, `acknowledged state of ${name}`);
      }

      const want = items.map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`).sort();
      const have = (): string[] =>
        informer
          .list(ns)
          .map((i) => `${i.metadata?.name}@${i.metadata?.resourceVersion}`)
          .sort();
      try {
        await waitFor('the informer to converge to the final list', () => JSON.stringify(have()) === JSON.stringify(want), {
          timeoutMs: 60_000,
          intervalMs: 200,
          detail: () => `informer errors: ${informerErrors.join('; ')}`,
        });
      } finally {
        stopping = true;
        await informer.stop();
      }

      const byPhase = (p: Phase): string[] => errors.filter((e) => e.phase === p).map((e) => e.what);
      process.stderr.write(
        `faults: ${acknowledged} acknowledged writes, ${items.length} objects; client errors: kill ${byPhase('kill').length}, graceful ${byPhase('graceful').length}, other ${byPhase('before').length + byPhase('after').length}; informer errors ${informerErrors.length}\n`,
      );
      for (const e of errors) process.stderr.write(`  ${e.phase}: ${e.what}\n`);
      assert.deepEqual([...byPhase('before'), ...byPhase('after')], [], 'errors without a fault');
      // No replica answered with an error status: what clients saw were connections cut (below).
      assert.deepEqual(
        errors.filter((e) => e.status !== 0).map((e) => e.what),
        [],
        'error statuses from a replica',
      );
      gracefulErrors = byPhase('graceful');
    },
  );

  it('a graceful restart behind the balancer costs keep-alive clients nothing', () => {
    assert.ok(gracefulErrors, 'the fault scenario did not run');
    assert.deepEqual(gracefulErrors, []);
  });
});
