import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { alreadyExists, conflict, notFound } from '../../shared/api/errors.ts';
import { deepCopy, type KubeObject } from '../../shared/api/types.ts';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingApiClient, settle } from '../../shared/client/testing.ts';
import { NodeLease, nodeLeaseNamespace, type NodeLeaseOptions } from './lease.ts';

const logger = pino({ level: 'silent' });
const gr = { group: 'coordination.k8s.io', resource: 'leases' };
const leasesPath = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
const leasePath = `${leasesPath}/node-1`;

interface LeaseServer {
  api: RecordingApiClient;
  stored: () => KubeObject | undefined;
  /** Another writer changes the lease (its resourceVersion moves on). */
  touch: () => void;
  remove: () => void;
  fail: (on: boolean) => void;
}

/** An API holding one Lease with resourceVersion compare-and-swap, as the API server does. */
function leaseServer(): LeaseServer {
  const api = new RecordingApiClient();
  let stored: KubeObject | undefined;
  let rv = 0;
  let failing = false;
  const keep = (body: KubeObject): KubeObject => {
    // As the API server records them: an update without managedFields keeps the live object's.
    const managedFields = body.metadata.managedFields ??
      stored?.metadata.managedFields ?? [
        {
          manager: 'corral-nodeagent',
          operation: 'Update',
          apiVersion: 'coordination.k8s.io/v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:renewTime': {} } },
        },
      ];
    stored = { ...deepCopy(body), metadata: { ...deepCopy(body.metadata), managedFields, uid: 'lease-uid', resourceVersion: String(++rv) } };
    return deepCopy(stored);
  };
  api.react((action) => {
    if (failing) throw new Error('connection refused');
    if (action.verb === 'get' && action.path === leasePath) {
      if (!stored) throw notFound(gr, 'node-1');
      return deepCopy(stored);
    }
    const body = action.body as KubeObject;
    if (action.verb === 'create' && action.path === leasesPath) {
      if (stored) throw alreadyExists(gr, 'node-1');
      return keep(body);
    }
    if (action.verb === 'update' && action.path === leasePath) {
      if (!stored) throw notFound(gr, 'node-1');
      if (body.metadata.resourceVersion !== stored.metadata.resourceVersion) throw conflict(gr, 'node-1', 'the object has been modified');
      return keep(body);
    }
    return undefined;
  });
  return {
    api,
    stored: () => stored,
    touch: () => {
      if (stored) stored = { ...stored, metadata: { ...stored.metadata, resourceVersion: String(++rv) } };
    },
    remove: () => void (stored = undefined),
    fail: (on) => void (failing = on),
  };
}

function leaseOptions(api: RecordingApiClient, clock: FakeClock, overrides: Partial<NodeLeaseOptions> = {}): NodeLeaseOptions {
  return { api, nodeName: 'node-1', leaseDurationSeconds: 40, clock, logger, nodeUid: () => 'node-uid', random: () => 0, ...overrides };
}

function calls(api: RecordingApiClient): string[] {
  return api.actions.map((a) => `${a.verb} ${a.path}`);
}

describe('NodeLease.renew', () => {
  it('creates the lease in kube-node-lease, held by the node and owned by the Node', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00.123Z'));
    const server = leaseServer();
    const latencies: number[] = [];
    await new NodeLease(leaseOptions(server.api, clock, { renewed: (ms) => latencies.push(ms) })).renew();
    assert.deepEqual(calls(server.api), [`get ${leasePath}`, `create ${leasesPath}`]);
    assert.equal(nodeLeaseNamespace, 'kube-node-lease');
    assert.deepEqual(server.api.actions[1]?.body, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: 'node-1',
        namespace: 'kube-node-lease',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'node-uid' }],
      },
      spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.123000Z' },
    });
    assert.deepEqual(latencies, [0]);
  });

  it('renews by a single PUT of the lease it last wrote', async () => {
    const clock = new FakeClock();
    const server = leaseServer();
    const lease = new NodeLease(leaseOptions(server.api, clock));
    await lease.renew();
    server.api.actions.length = 0;
    clock.step(10_000);
    await lease.renew();
    assert.deepEqual(calls(server.api), [`update ${leasePath}`]);
    const body = server.api.actions[0]?.body as KubeObject;
    assert.equal(body.metadata.resourceVersion, '1');
    assert.deepEqual(body['spec'], { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:10.000000Z' });
    // The answer's managedFields are not kept, nor sent back: the server keeps its own.
    assert.equal(body.metadata.managedFields, undefined);
    assert.equal(server.stored()?.metadata.managedFields?.[0]?.manager, 'corral-nodeagent');
    assert.equal(server.stored()?.metadata.resourceVersion, '2');
    clock.step(10_000);
    await lease.renew();
    assert.deepEqual(calls(server.api), [`update ${leasePath}`, `update ${leasePath}`]);
  });

  it('reads the lease again after a conflict and updates what it read', async () => {
    const clock = new FakeClock();
    const server = leaseServer();
    const lease = new NodeLease(leaseOptions(server.api, clock));
    await lease.renew();
    server.touch();
    server.api.actions.length = 0;
    clock.step(10_000);
    await lease.renew();
    assert.deepEqual(calls(server.api), [`update ${leasePath}`, `get ${leasePath}`, `update ${leasePath}`]);
    assert.equal((server.api.actions[2]?.body as KubeObject).metadata.resourceVersion, '2');
    assert.equal(server.stored()?.metadata.resourceVersion, '3');
    assert.equal((server.stored()?.['spec'] as { renewTime: string }).renewTime, '2026-01-01T00:00:10.000000Z');
  });

  it('creates the lease again when it was deleted', async () => {
    const clock = new FakeClock();
    const server = leaseServer();
    const lease = new NodeLease(leaseOptions(server.api, clock));
    await lease.renew();
    server.remove();
    server.api.actions.length = 0;
    await lease.renew();
    assert.deepEqual(calls(server.api), [`update ${leasePath}`, `get ${leasePath}`, `create ${leasesPath}`]);
    assert.ok(server.stored());
  });

  it('takes over an existing lease by updating it, keeping its owner references', async () => {
    const clock = new FakeClock();
    const server = leaseServer();
    await server.api.create(leasesPath, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'node-1', namespace: 'kube-node-lease', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'old-uid' }] },
      spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40 },
    });
    server.api.actions.length = 0;
    await new NodeLease(leaseOptions(server.api, clock)).renew();
    assert.deepEqual(calls(server.api), [`get ${leasePath}`, `update ${leasePath}`]);
    assert.deepEqual(server.stored()?.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'old-uid' }]);
  });

  it('adds the owner reference once the Node uid is known', async () => {
    const clock = new FakeClock();
    const server = leaseServer();
    const node: { uid?: string } = {};
    const lease = new NodeLease(leaseOptions(server.api, clock, { nodeUid: () => node.uid }));
    await lease.renew();
    assert.equal(server.stored()?.metadata.ownerReferences, undefined);
    node.uid = 'node-uid';
    await lease.renew();
    assert.deepEqual(server.stored()?.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'node-uid' }]);
  });

  it('passes other errors on, and reads afresh on the next renewal', async () => {
    const clock = new FakeClock();
    const server = leaseServer();
    const lease = new NodeLease(leaseOptions(server.api, clock));
    await lease.renew();
    server.fail(true);
    await assert.rejects(lease.renew(), { message: 'connection refused' });
    server.fail(false);
    server.api.actions.length = 0;
    await lease.renew();
    assert.deepEqual(calls(server.api), [`get ${leasePath}`, `update ${leasePath}`]);
  });
});

/** A lease server on a fake clock that notes each request of `verbs` as `<verb>@<ms since the start>`. */
function timedLeaseServer(verbs: readonly string[]): { clock: FakeClock; server: LeaseServer; requests: string[] } {
  const clock = new FakeClock();
  const start = clock.now();
  const server = leaseServer();
  const requests: string[] = [];
  server.api.react((action) => {
    if (verbs.includes(action.verb)) requests.push(`${action.verb}@${clock.now() - start}`);
    return undefined;
  });
  return { clock, server, requests };
}

describe('NodeLease.run', () => {
  it('renews every quarter of the lease duration', () => {
    assert.equal(new NodeLease(leaseOptions(new RecordingApiClient(), new FakeClock())).renewIntervalMs, 10_000);
    assert.equal(new NodeLease(leaseOptions(new RecordingApiClient(), new FakeClock(), { leaseDurationSeconds: 60 })).renewIntervalMs, 15_000);
  });

  it('retries failures after 200 ms, doubling up to 7 s, then renews on the interval', async () => {
    const { clock, server, requests: attempts } = timedLeaseServer(['get']);
    server.fail(true);
    const controller = new AbortController();
    const done = new NodeLease(leaseOptions(server.api, clock)).run(controller.signal);
    await settle();
    for (let elapsed = 0; elapsed < 26_600; elapsed += 100) {
      clock.step(100);
      await settle();
    }
    assert.deepEqual(attempts, ['get@0', 'get@200', 'get@600', 'get@1400', 'get@3000', 'get@6200', 'get@12600', 'get@19600', 'get@26600']);
    server.fail(false);
    clock.step(7_000);
    await settle();
    assert.equal(attempts.length, 10);
    assert.ok(server.stored());
    server.api.actions.length = 0;
    clock.step(9_900);
    await settle();
    assert.equal(server.api.actions.length, 0);
    clock.step(100);
    await settle();
    assert.deepEqual(calls(server.api), [`update ${leasePath}`]);
    controller.abort();
    await done;
  });

  it('starts the backoff afresh for each renewal', async () => {
    const { clock, server, requests: attempts } = timedLeaseServer(['get', 'update']);
    const controller = new AbortController();
    const done = new NodeLease(leaseOptions(server.api, clock)).run(controller.signal);
    await settle();
    server.fail(true);
    for (const step of [10_000, 200, 400]) {
      clock.step(step);
      await settle();
    }
    server.fail(false);
    clock.step(800);
    await settle();
    // Created at 0; the renewal at 10 s fails and is retried (by reading) after 200, 400 and 800 ms.
    assert.deepEqual(attempts, ['get@0', 'update@10000', 'get@10200', 'get@10600', 'get@11400', 'update@11400']);
    server.fail(true);
    clock.step(10_000);
    await settle();
    clock.step(200);
    await settle();
    assert.deepEqual(attempts.slice(6), ['update@21400', 'get@21600']);
    controller.abort();
    await done;
  });

  it('waits its phase of the interval once, after the first renewal', async () => {
    const { clock, server, requests: renewals } = timedLeaseServer(['get', 'create', 'update']);
    const controller = new AbortController();
    const done = new NodeLease(leaseOptions(server.api, clock, { phase: 0.35 })).run(controller.signal);
    await settle();
    for (let elapsed = 0; elapsed < 34_000; elapsed += 100) {
      clock.step(100);
      await settle();
    }
    // Created at once; then 3.5 s (the phase) + 10 s, then every 10 s.
    assert.deepEqual(renewals, ['get@0', 'create@0', 'update@13500', 'update@23500', 'update@33500']);
    controller.abort();
    await done;
  });

  it('waits between renewals the interval stretched by up to 4 % at random, as upstream’s', async () => {
    const { clock, server, requests: renewals } = timedLeaseServer(['get', 'update']);
    const draws = [1, 0.5, 0];
    const controller = new AbortController();
    const done = new NodeLease(leaseOptions(server.api, clock, { random: () => draws.shift() ?? 0 })).run(controller.signal);
    await settle();
    for (let elapsed = 0; elapsed < 31_000; elapsed += 100) {
      clock.step(100);
      await settle();
    }
    // Created at 0; then 10 s + 400 ms, + 200 ms, + 0 ms after each.
    assert.deepEqual(renewals, ['get@0', 'update@10400', 'update@20600', 'update@30600']);
    controller.abort();
    await done;
  });
});
