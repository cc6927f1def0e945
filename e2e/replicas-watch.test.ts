/**
 * Two API server replicas on one etcd, as one cluster for readers and watchers: a resourceVersion
 * handed out by one replica is a valid read and watch position on the other, a list on one followed
 * by a watch on the other misses nothing, and an @kubernetes/client-node informer on one replica
 * converges to exactly the stored state while writers hit both.
 *
 * Expected sequences come from the writes' own answers (each carries etcd's revision); the final
 * state from a quorum list. Waits have generous deadlines and assert nothing about time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { createTestClient, type TestClient, type TestResponse } from '../apiserver/testing/client.ts';
import { openWatch, revisionOf, WATCH_WAIT_MS, type WatchTls } from '../apiserver/testing/watch-stream.ts';
import { skipUnlessEtcd } from '../shared/etcd/availability.ts';
import { adminTls, startCluster, type Cluster } from './harness.ts';

const mergePatch = { 'content-type': 'application/merge-patch+json' };
const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;

function expectCode(res: TestResponse, code: number): void {
  assert.equal(res.status, code, `expected ${code}, got ${res.status}: ${res.text}`);
}

interface Written {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  rv: number;
}

describe('two replicas, one etcd: versions, lists and watches across replicas', { skip: skipUnlessEtcd() }, () => {
  let cluster: Cluster;
  let tls: WatchTls;
  /** One client per replica. */
  let clients: TestClient[] = [];

  before(
    async () => {
      cluster = await startCluster({ replicas: 2 });
      tls = adminTls(cluster.dataDir);
      clients = cluster.urls.map((u) => createTestClient(u, cluster.dataDir));
    },
    { timeout: 120_000 },
  );
  after(async () => {
    for (const c of clients) c.close();
    await cluster?.stop();
  });

  const on = (replica: number): TestClient => {
    const c = clients[replica];
    assert.ok(c);
    return c;
  };
  const createNamespace = async (name: string): Promise<void> => expectCode(await on(0).request('POST', '/api/v1/namespaces', { metadata: { name } }), 201);

  it("a resourceVersion from A's write is a valid get, Not older than and Exact position on B", async () => {
    const ns = 'replica-versions';
    await createNamespace(ns);
    const created = await on(0).request('POST', cms(ns), { metadata: { name: 'from-a' }, data: { v: '1' } });
    expectCode(created, 201);
    const rv = created.body.metadata?.resourceVersion ?? '';
    // Straight after the write: B's cache may not have it yet, so each read must wait for it.
    const got = await on(1).request('GET', `${cms(ns)}/from-a?resourceVersion=${rv}`);
    expectCode(got, 200);
    assert.equal(got.body.metadata?.resourceVersion, rv);
    assert.deepEqual(got.body.data, { v: '1' });

    const updated = await on(0).request('PATCH', `${cms(ns)}/from-a`, { data: { v: '2' } }, mergePatch);
    expectCode(updated, 200);
    const rv2 = updated.body.metadata?.resourceVersion ?? '';
    const notOlder = await on(1).request('GET', `${cms(ns)}?resourceVersion=${rv2}&resourceVersionMatch=NotOlderThan`);
    expectCode(notOlder, 200);
    assert.ok(Number(notOlder.body.metadata?.resourceVersion) >= Number(rv2));
    assert.deepEqual(
      notOlder.body.items?.map((i) => [i.metadata.name, i.metadata.resourceVersion, i.data]),
      [['from-a', rv2, { v: '2' }]],
    );

    const exact = await on(1).request('GET', `${cms(ns)}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expectCode(exact, 200);
    assert.equal(exact.body.metadata?.resourceVersion, rv);
    assert.deepEqual(
      exact.body.items?.map((i) => [i.metadata.name, i.metadata.resourceVersion, i.data]),
      [['from-a', rv, { v: '1' }]],
    );

    // A watch on B from A's first version sees A's update, and nothing before it.
    const w = await openWatch(cluster.urls[1] ?? '', tls, `${cms(ns)}?watch=1&resourceVersion=${rv}`);
    try {
      await w.waitFor((e) => e.length >= 1, 'the update');
      assert.deepEqual(
        w.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]),
        [['MODIFIED', 'from-a', rv2]],
      );
    } finally {
      w.close();
    }

    // A continue token from A continues on B, in A's snapshot.
    for (const name of ['from-b-1', 'from-b-2']) expectCode(await on(1).request('POST', cms(ns), { metadata: { name } }), 201);
    const page1 = await on(0).request('GET', `${cms(ns)}?limit=1`);
    expectCode(page1, 200);
    expectCode(await on(1).request('DELETE', `${cms(ns)}/from-b-2`), 200);
    const page2 = await on(1).request('GET', `${cms(ns)}?limit=5&continue=${encodeURIComponent(page1.body.metadata?.continue ?? '')}`);
    expectCode(page2, 200);
    assert.equal(page2.body.metadata?.resourceVersion, page1.body.metadata?.resourceVersion);
    assert.deepEqual(
      [...(page1.body.items ?? []), ...(page2.body.items ?? [])].map((i) => i.metadata.name),
      ['from-a', 'from-b-1', 'from-b-2'],
    );
  });

  it('list on A, then watch on B from its resourceVersion, while both take writes: nothing is missed or repeated', { timeout: 300_000 }, async () => {
    const ns = 'replica-list-watch';
    await createNamespace(ns);
    const log: Written[] = [];
    const write = async (replica: number, method: string, name: string, body?: unknown): Promise<void> => {
      const path = method === 'POST' ? cms(ns) : `${cms(ns)}/${name}`;
      const res = await on(replica).request(method, path, body, method === 'PATCH' ? mergePatch : undefined);
      expectCode(res, method === 'POST' ? 201 : 200);
      if (method !== 'DELETE') log.push({ type: method === 'POST' ? 'ADDED' : 'MODIFIED', name, rv: Number(res.body.metadata?.resourceVersion) });
    };
    for (let i = 0; i < 10; i++) await write(i % 2, 'POST', `pre-${i}`, { metadata: { name: `pre-${i}` }, data: { n: '0' } });

    const list = await on(0).request('GET', cms(ns));
    expectCode(list, 200);
    const listRv = Number(list.body.metadata?.resourceVersion);
    // Writes land on both replicas between A's list and B's watch, and while it runs.
    const writers = [0, 1].map(async (replica) => {
      for (let k = 0; k < 60; k++) await write(replica, 'PATCH', `pre-${(k * 2 + replica) % 10}`, { data: { n: `${replica}-${k}` } });
      for (let k = 0; k < 10; k++) await write(replica, 'POST', `new-${replica}-${k}`, { metadata: { name: `new-${replica}-${k}` } });
    });
    await sleep(50);
    const w = await openWatch(cluster.urls[1] ?? '', tls, `${cms(ns)}?watch=1&resourceVersion=${listRv}`);
    try {
      await Promise.all(writers);
      const expected = log.filter((x) => x.rv > listRv).sort((a, b) => a.rv - b.rv);
      await w.waitFor((e) => e.length >= expected.length, `${expected.length} events`, WATCH_WAIT_MS * 2);
      assert.deepEqual(
        w.events.map((e) => ({ type: e.type, name: e.object.metadata.name, rv: revisionOf(e) })),
        expected,
      );
      // The list plus the events is the stored state.
      const state = new Map((list.body.items ?? []).map((i) => [i.metadata.name, i.metadata.resourceVersion]));
      for (const e of w.events) state.set(e.object.metadata.name, e.object.metadata.resourceVersion);
      const final = await on(0).request('GET', cms(ns));
      assert.deepEqual(
        [...state.entries()].sort(([a], [b]) => String(a).localeCompare(String(b))),
        (final.body.items ?? []).map((i) => [i.metadata.name, i.metadata.resourceVersion]),
      );
    } finally {
      w.close();
    }
  });

  it('a client-node informer on B converges to exactly the stored state while writers hit both replicas', { timeout: 300_000 }, async () => {
    const ns = 'replica-informer';
    await createNamespace(ns);
    const api = cluster.kubeConfig(1).makeApiClient(CoreV1Api);
    const informer = makeInformer<V1ConfigMap>(cluster.kubeConfig(1), `/api/v1/namespaces/${ns}/configmaps`, () =>
      api.listNamespacedConfigMap({ namespace: ns }),
    );
    const errors: unknown[] = [];
    let stopped = false;
    // client-node's informer stops on an error other than 410; restart it as controllers do.
    informer.on('error', (err) => {
      errors.push(err);
      if (!stopped) setTimeout(() => void informer.start().catch((e: unknown) => errors.push(e)), 500);
    });
    await informer.start();
    try {
      const writers = Array.from({ length: 4 }, async (_, writer) => {
        const replica = writer % 2;
        for (let k = 0; k < 50; k++) {
          const name = `obj-${writer}-${k}`;
          expectCode(await on(replica).request('POST', cms(ns), { metadata: { name }, data: { v: '0' } }), 201);
          // Every second object is updated on the other replica, every third deleted.
          if (k % 2 === 0) expectCode(await on(1 - replica).request('PATCH', `${cms(ns)}/${name}`, { data: { v: '1' } }, mergePatch), 200);
          if (k % 3 === 0) expectCode(await on(replica).request('DELETE', `${cms(ns)}/${name}`), 200);
        }
      });
      await Promise.all(writers);
      const final = await on(0).request('GET', cms(ns));
      expectCode(final, 200);
      const want = (final.body.items ?? []).map((i) => [i.metadata.name ?? '', i.metadata.resourceVersion ?? '', JSON.stringify(i.data)]).sort();
      assert.equal(want.length, 4 * (50 - 17));
      const have = (): string[][] =>
        informer
          .list(ns)
          .map((i) => [i.metadata?.name ?? '', i.metadata?.resourceVersion ?? '', JSON.stringify(i.data)])
          .sort();
      const deadline = Date.now() + WATCH_WAIT_MS;
      while (JSON.stringify(have()) !== JSON.stringify(want) && Date.now() < deadline) await sleep(200);
      assert.deepEqual(have(), want, `informer errors: ${errors.map(String).join('; ')}`);
    } finally {
      stopped = true;
      await informer.stop();
    }
  });
});
