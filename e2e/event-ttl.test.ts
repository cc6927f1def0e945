/**
 * Events expire (`--event-ttl`): etcd deletes them through a lease some time after their last
 * write, watches see them go, and nothing else expires. A 2 s TTL keeps the test short; etcd
 * rounds lease TTLs up to its own minimum, so the wait is bounded generously, not timed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connectEtcd } from '../apiserver/storage/etcd/store.ts';
import { skipUnlessEtcd } from '../shared/etcd/availability.ts';
import { openWatch } from '../apiserver/testing/watch-stream.ts';
import { adminTls, startCluster, type Cluster } from './harness.ts';

const NS = 'default';
const coreEvents = `/api/v1/namespaces/${NS}/events`;
const newEvents = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;

describe('--event-ttl (on etcd: its leases)', { skip: skipUnlessEtcd() }, () => {
  let cluster: Cluster;
  let etcd: ReturnType<typeof connectEtcd>;

  before(async () => {
    cluster = await startCluster({ storage: 'etcd', apiserverArgs: ['--event-ttl=2s'] });
    etcd = connectEtcd({ endpoints: cluster.etcd.endpoints });
  });

  after(async () => {
    etcd.close();
    await cluster?.stop();
  });

  const post = async (path: string, body: object): Promise<Record<string, unknown>> => {
    const res = await cluster.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 201, res.text);
    return res.json() as Record<string, unknown>;
  };

  const leaseOf = async (key: string): Promise<string> => {
    const res = await etcd.kv.range({ key: Buffer.from(key) });
    assert.equal(res.kvs.length, 1, `${key} is stored`);
    return String(res.kvs[0]?.lease ?? '0');
  };

  it('Events of both APIs are stored under a lease and deleted when it expires; other kinds are not', async () => {
    const list = (await cluster.request({ path: coreEvents })).json() as { metadata: { resourceVersion: string } };
    await post(coreEvents, {
      metadata: { name: 'short-lived' },
      involvedObject: { kind: 'Pod', namespace: NS, name: 'p' },
      reason: 'Started',
      message: 'm',
      type: 'Normal',
      firstTimestamp: '2024-01-01T00:00:00Z',
      lastTimestamp: '2024-01-01T00:00:00Z',
      count: 1,
      source: { component: 'test' },
    });
    await post(newEvents, {
      metadata: { name: 'short-lived-v1' },
      eventTime: '2024-01-01T00:00:00.000000Z',
      reportingController: 'example.com/test',
      reportingInstance: 'test-1',
      action: 'Test',
      reason: 'Testing',
      regarding: { kind: 'Pod', namespace: NS, name: 'p' },
      type: 'Normal',
    });
    await post(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'long-lived' }, data: { a: 'b' } });

    assert.notEqual(await leaseOf(`/registry/events/${NS}/short-lived`), '0');
    assert.notEqual(await leaseOf(`/registry/events/${NS}/short-lived-v1`), '0');
    assert.equal(await leaseOf(`/registry/configmaps/${NS}/long-lived`), '0');

    const watch = await openWatch(cluster.urls[0] ?? '', adminTls(cluster.dataDir), `${coreEvents}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    try {
      await watch.waitFor(
        (events) => ['short-lived', 'short-lived-v1'].every((name) => events.some((e) => e.type === 'DELETED' && e.object.metadata.name === name)),
        'both Events DELETED by expiry',
        60_000,
      );
    } finally {
      watch.close();
    }
    assert.equal((await cluster.request({ path: `${coreEvents}/short-lived` })).status, 404);
    assert.equal((await cluster.request({ path: `/api/v1/namespaces/${NS}/configmaps/long-lived` })).status, 200);
  });

  it('an update attaches the new write to a lease too', async () => {
    await post(coreEvents, {
      metadata: { name: 'updated' },
      involvedObject: { kind: 'Pod', namespace: NS, name: 'p' },
      reason: 'Started',
      message: 'first',
      type: 'Normal',
      source: { component: 'test' },
    });
    const res = await cluster.request({
      method: 'PATCH',
      path: `${coreEvents}/updated`,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ message: 'second', count: 2 }),
    });
    assert.equal(res.status, 200, res.text);
    assert.notEqual(await leaseOf(`/registry/events/${NS}/updated`), '0');
  });
});
