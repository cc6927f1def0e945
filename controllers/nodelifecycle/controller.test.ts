import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conflict } from '../../shared/api/errors.ts';
import { formatMicroTimeOf, formatTimeOf } from '../../shared/go/time.ts';
import { settle, testContext, type TestContext } from '../framework/testing.ts';
import { startNodeLifecycle, type NodeLifecycleConfig } from './controller.ts';
import { conditionOf, type Lease, type Node, type NodeCondition, type Taint } from './node-conditions.ts';

const config: NodeLifecycleConfig = {
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 40_000,
  nodeStartupGracePeriodMs: 60_000,
  nodeEvictionRate: 0.1,
  secondaryNodeEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55,
};

const start = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number): string => formatTimeOf(new Date(ms));

function condition(type: string, status: string, heartbeatMs: number, transitionMs = start - 3_600_000): NodeCondition {
  return { type, status, lastHeartbeatTime: iso(heartbeatMs), lastTransitionTime: iso(transitionMs), reason: 'KubeletReady', message: 'ok' };
}

function node(name: string, options: { ready?: string; heartbeatMs?: number; conditions?: NodeCondition[]; labels?: Record<string, string> } = {}): Node {
  const heartbeat = options.heartbeatMs ?? start;
  const conditions = options.conditions ?? [
    condition('MemoryPressure', 'False', heartbeat),
    condition('DiskPressure', 'False', heartbeat),
    condition('PIDPressure', 'False', heartbeat),
    condition('Ready', options.ready ?? 'True', heartbeat),
  ];
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: '10',
      creationTimestamp: iso(start - 7_200_000),
      ...(options.labels ? { labels: options.labels } : {}),
    },
    spec: {},
    status: { conditions },
  };
}

function lease(name: string, renewMs: number): Lease {
  return {
    metadata: { name, namespace: 'kube-node-lease' },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: formatMicroTimeOf(new Date(renewMs)) },
  };
}

interface Cluster {
  ctx: TestContext<NodeLifecycleConfig>;
  setNode(n: Node): void;
  renewLease(name: string): void;
  cached(name: string): Node;
  /** Writes so far as `VERB path`. */
  writes(): string[];
}

/** A controller over fake caches that the controller's own writes reach, as the watch brings them. */
function cluster(nodes: Node[], leases: string[] = nodes.map((n) => n.metadata.name ?? '')): Cluster {
  const ctx = testContext<NodeLifecycleConfig>(config);
  const nodeCache = ctx.informers.of<Node>('nodes');
  const leaseCache = ctx.informers.of<Lease>('leases', 'kube-node-lease');
  for (const n of nodes) nodeCache.set(n);
  for (const name of leases) leaseCache.set(lease(name, start));
  let version = 100;
  ctx.api.react((action) => {
    const name = action.path.split('/')[4] ?? '';
    const sent = (action.body as Node | undefined)?.metadata?.resourceVersion;
    if ((action.verb === 'update' || action.verb === 'patch') && sent !== nodeCache.get(name)?.metadata.resourceVersion) {
      throw conflict({ group: '', resource: 'nodes' }, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    if (action.verb === 'update' && action.path.endsWith('/status')) {
      const written = structuredClone(action.body as Node);
      written.metadata.resourceVersion = String(version++);
      setImmediate(() => nodeCache.set(written));
      return written;
    }
    if (action.verb === 'patch') {
      const patched = structuredClone(nodeCache.get(name) as Node);
      const taints = (action.body as { spec: { taints: Taint[] | null } }).spec.taints;
      patched.spec = { ...patched.spec, ...(taints ? { taints } : {}) };
      if (!taints) delete patched.spec.taints;
      patched.metadata.resourceVersion = String(version++);
      setImmediate(() => nodeCache.set(patched));
      return patched;
    }
    return undefined;
  });
  startNodeLifecycle(ctx);
  return {
    ctx,
    setNode: (n) => nodeCache.set(n),
    renewLease: (name) => leaseCache.set(lease(name, ctx.clock.now())),
    cached: (name) => nodeCache.get(name) as Node,
    writes: () => ctx.api.writes().filter((w) => !w.includes('/events')),
  };
}

/** Moves the clock by `ms` in steps of one second, letting the controller work at each. */
async function elapse(c: Cluster, ms: number, each?: () => void): Promise<void> {
  for (let t = 0; t < ms; t += 1000) {
    each?.();
    c.ctx.clock.step(Math.min(1000, ms - t));
    await settle();
  }
}

const taintsOf = (n: Node): string[] => (n.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
const readyOf = (n: Node): NodeCondition | undefined => conditionOf(n, 'Ready');

describe('node lifecycle controller', () => {
  it('leaves a node alone while its Lease is renewed, even without status heartbeats', async (t) => {
    const c = cluster([node('n1')]);
    t.after(() => c.ctx.stop());
    await settle();
    await elapse(c, 120_000, () => c.renewLease('n1'));
    assert.deepEqual(c.writes(), []);
    assert.deepEqual(
      c.ctx.events.events.map((e) => e.reason),
      ['RegisteredNode'],
    );
  });

  it('marks every condition Unknown once neither Lease nor status is renewed for the grace period', async (t) => {
    const c = cluster([node('n1'), node('n2')]);
    t.after(() => c.ctx.stop());
    await settle();
    // n2 stays healthy; n1 falls silent at the start. The grace period is 40 s; nothing before.
    await elapse(c, 40_000, () => c.renewLease('n2'));
    assert.deepEqual(c.writes(), []);
    await elapse(c, 1_000, () => c.renewLease('n2'));
    assert.deepEqual(c.writes().slice(0, 1), ['UPDATE /api/v1/nodes/n1/status']);
    const written = c.ctx.api.actions.find((a) => a.verb === 'update')?.body as Node;
    const markedAt = iso(start + 41_000);
    assert.deepEqual(
      (written.status?.conditions as NodeCondition[]).map((cond) => ({ ...cond })),
      ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
        type,
        status: 'Unknown',
        lastHeartbeatTime: iso(start),
        lastTransitionTime: markedAt,
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
      })),
    );
    assert.equal(written.metadata.resourceVersion, '10', 'the status write is conditional on the cached version');
    assert.ok(c.ctx.events.events.some((e) => e.key === 'n1' && e.reason === 'NodeNotReady' && e.message === 'Node n1 status is now: NodeNotReady'));
  });

  it('taints an unreachable node NoSchedule and NoExecute, and untaints it when it comes back', async (t) => {
    const c = cluster([node('n1'), node('n2')]);
    t.after(() => c.ctx.stop());
    await settle();
    await elapse(c, 42_000, () => c.renewLease('n2'));
    assert.deepEqual(c.writes(), ['UPDATE /api/v1/nodes/n1/status', 'PATCH /api/v1/nodes/n1']);
    const patch = c.ctx.api.actions.find((a) => a.verb === 'patch');
    assert.equal(patch?.patchType, 'strategic');
    assert.deepEqual(patch?.body, {
      metadata: { resourceVersion: '100' },
      spec: {
        taints: [
          { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', timeAdded: iso(start + 41_000) },
          { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: iso(start + 41_000) },
        ],
      },
    });
    assert.deepEqual(taintsOf(c.cached('n1')), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
    assert.equal(readyOf(c.cached('n1'))?.status, 'Unknown');

    // The kubelet is back: it renews the Lease and posts Ready=True with a new heartbeat.
    const back = structuredClone(c.cached('n1'));
    back.status = node('n1', { heartbeatMs: c.ctx.clock.now() }).status;
    c.setNode(back);
    c.renewLease('n1');
    await settle();
    assert.deepEqual(c.writes().slice(2), ['PATCH /api/v1/nodes/n1']);
    assert.deepEqual(c.ctx.api.actions.filter((a) => a.verb === 'patch')[1]?.body, { metadata: { resourceVersion: '101' }, spec: { taints: null } });
    assert.deepEqual(taintsOf(c.cached('n1')), []);
    // And it stays healthy while it keeps renewing.
    await elapse(c, 60_000, () => {
      c.renewLease('n1');
      c.renewLease('n2');
    });
    assert.equal(c.writes().length, 3);
  });

  it('puts no NoExecute taint when every node is down (master disruption mode)', async (t) => {
    const c = cluster([node('n1')]);
    t.after(() => c.ctx.stop());
    await settle();
    await elapse(c, 45_000);
    assert.deepEqual(c.writes(), ['UPDATE /api/v1/nodes/n1/status', 'PATCH /api/v1/nodes/n1']);
    assert.deepEqual(taintsOf(c.cached('n1')), ['node.kubernetes.io/unreachable:NoSchedule']);
  });

  it('removes NoExecute taints when every node goes down, and taints again once one is back', async (t) => {
    const c = cluster([node('n1'), node('n2')]);
    t.after(() => c.ctx.stop());
    await settle();
    await elapse(c, 42_000, () => c.renewLease('n2'));
    assert.deepEqual(taintsOf(c.cached('n1')), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
    // n2 falls silent too: all nodes not Ready, master disruption mode.
    await elapse(c, 42_000);
    assert.equal(readyOf(c.cached('n2'))?.status, 'Unknown');
    assert.deepEqual(taintsOf(c.cached('n1')), ['node.kubernetes.io/unreachable:NoSchedule']);
    assert.deepEqual(taintsOf(c.cached('n2')), ['node.kubernetes.io/unreachable:NoSchedule']);
    // n2 is back: the mode ends, n1 is tainted for eviction again.
    const back = structuredClone(c.cached('n2'));
    back.status = node('n2', { heartbeatMs: c.ctx.clock.now() }).status;
    c.setNode(back);
    await elapse(c, 2_000, () => c.renewLease('n2'));
    assert.deepEqual(taintsOf(c.cached('n2')), []);
    // The zone's rate comes back drained (upstream's SwapLimiter): the next token is 10 s away.
    assert.deepEqual(taintsOf(c.cached('n1')), ['node.kubernetes.io/unreachable:NoSchedule']);
    await elapse(c, 10_000, () => c.renewLease('n2'));
    assert.deepEqual(taintsOf(c.cached('n1')), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
  });

  it('keeps other taints and does not add what is already there', async (t) => {
    const tainted = node('n1', { ready: 'False' });
    tainted.spec = {
      taints: [
        { key: 'dedicated', value: 'db', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule', timeAdded: iso(start - 1000) },
      ],
    };
    const c = cluster([tainted, node('n2')]);
    t.after(() => c.ctx.stop());
    await settle();
    assert.deepEqual(c.writes(), ['PATCH /api/v1/nodes/n1']);
    assert.deepEqual(c.ctx.api.actions.find((a) => a.verb === 'patch')?.body, {
      metadata: { resourceVersion: '10' },
      spec: {
        taints: [
          { key: 'dedicated', value: 'db', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule', timeAdded: iso(start - 1000) },
          { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute', timeAdded: iso(start) },
        ],
      },
    });
  });

  it('swaps not-ready for unreachable at once when a NotReady node then stops reporting', async (t) => {
    const notReady = node('n1', { ready: 'False' });
    notReady.spec = {
      taints: [
        { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule', timeAdded: iso(start) },
        { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute', timeAdded: iso(start) },
      ],
    };
    const c = cluster([notReady, node('n2')]);
    t.after(() => c.ctx.stop());
    await settle();
    assert.deepEqual(c.writes(), []);
    await elapse(c, 42_000, () => c.renewLease('n2'));
    assert.deepEqual(c.writes(), ['UPDATE /api/v1/nodes/n1/status', 'PATCH /api/v1/nodes/n1']);
    assert.deepEqual(taintsOf(c.cached('n1')), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
  });

  it('paces NoExecute taints at --node-eviction-rate per zone', async (t) => {
    const c = cluster([node('a', { ready: 'False' }), node('b', { ready: 'False' }), node('c'), node('d'), node('e')]);
    t.after(() => c.ctx.stop());
    await settle();
    const noExecuteNodes = (): string[] => ['a', 'b'].filter((n) => taintsOf(c.cached(n)).includes('node.kubernetes.io/not-ready:NoExecute')).sort();
    assert.equal(noExecuteNodes().length, 1, 'one token: one node at once');
    await elapse(c, 9_000, () => ['c', 'd', 'e', 'a', 'b'].forEach((n) => c.renewLease(n)));
    assert.equal(noExecuteNodes().length, 1);
    await elapse(c, 1_000, () => ['c', 'd', 'e', 'a', 'b'].forEach((n) => c.renewLease(n)));
    assert.deepEqual(noExecuteNodes(), ['a', 'b'], 'the next token comes 10 s later (0.1 per second)');
    // The NoSchedule taints are not paced.
    assert.ok(['a', 'b'].every((n) => taintsOf(c.cached(n)).includes('node.kubernetes.io/not-ready:NoSchedule')));
  });

  it('stops NoExecute tainting in a partially disrupted small zone', async (t) => {
    const down = ['a', 'b', 'c'];
    const c = cluster([...down.map((n) => node(n, { ready: 'False' })), node('d'), node('e')]);
    t.after(() => c.ctx.stop());
    await settle();
    await elapse(c, 30_000, () => ['a', 'b', 'c', 'd', 'e'].forEach((n) => c.renewLease(n)));
    for (const n of down) assert.deepEqual(taintsOf(c.cached(n)), ['node.kubernetes.io/not-ready:NoSchedule']);
  });

  it('judges zones apart: a fully disrupted zone beside a healthy one is tainted', async (t) => {
    const zone = (z: string): Record<string, string> => ({ 'topology.kubernetes.io/zone': z });
    const c = cluster([node('a', { ready: 'False', labels: zone('z1') }), node('b', { labels: zone('z2') })]);
    t.after(() => c.ctx.stop());
    await settle();
    assert.deepEqual(taintsOf(c.cached('a')), ['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/not-ready:NoSchedule']);
  });

  it('gives a node that never posted status the startup grace period', async (t) => {
    const fresh: Node = { metadata: { name: 'n1', uid: 'u1', resourceVersion: '3', creationTimestamp: iso(start) }, spec: {}, status: {} };
    const c = cluster([fresh, node('n2')], ['n2']);
    t.after(() => c.ctx.stop());
    await settle();
    await elapse(c, 60_000, () => c.renewLease('n2'));
    assert.deepEqual(c.writes(), []);
    await elapse(c, 1_000, () => c.renewLease('n2'));
    assert.deepEqual(c.writes().slice(0, 1), ['UPDATE /api/v1/nodes/n1/status']);
    const written = c.ctx.api.actions.find((a) => a.verb === 'update')?.body as Node;
    assert.deepEqual(
      (written.status?.conditions as NodeCondition[]).map((cond) => [cond.type, cond.status, cond.reason, cond.message, cond.lastHeartbeatTime]),
      ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => [
        type,
        'Unknown',
        'NodeStatusNeverUpdated',
        'Kubelet never posted node status.',
        iso(start),
      ]),
    );
  });

  it('mirrors pressure conditions and spec.unschedulable as NoSchedule taints', async (t) => {
    const pressured = node('n1', {
      conditions: [condition('Ready', 'True', start), condition('MemoryPressure', 'True', start), condition('NetworkUnavailable', 'True', start)],
    });
    pressured.spec = { unschedulable: true };
    const c = cluster([pressured]);
    t.after(() => c.ctx.stop());
    await settle();
    assert.deepEqual(taintsOf(c.cached('n1')), [
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/network-unavailable:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
  });

  it('retries a taint patch that conflicts, from the newer cache', async (t) => {
    const c = cluster([node('n1', { ready: 'False' }), node('n2')]);
    t.after(() => c.ctx.stop());
    let calls = 0;
    c.ctx.api.react((action) => {
      if (action.verb === 'patch' && ++calls === 1) throw conflict({ group: '', resource: 'nodes' }, 'n1', 'the object has been modified');
      return undefined;
    });
    await settle();
    assert.deepEqual(c.writes(), ['PATCH /api/v1/nodes/n1']);
    c.ctx.clock.step(1000);
    await settle();
    assert.deepEqual(c.writes(), ['PATCH /api/v1/nodes/n1', 'PATCH /api/v1/nodes/n1']);
    // The failed write spent the zone's token, as upstream's tainting queue does: NoExecute waits for the next.
    assert.deepEqual(taintsOf(c.cached('n1')), ['node.kubernetes.io/not-ready:NoSchedule']);
    await elapse(c, 9_000, () => ['n1', 'n2'].forEach((n) => c.renewLease(n)));
    assert.deepEqual(taintsOf(c.cached('n1')), ['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/not-ready:NoSchedule']);
  });

  it('records RemovingNode when a node is deleted, and forgets it', async (t) => {
    const c = cluster([node('n1')]);
    t.after(() => c.ctx.stop());
    await settle();
    c.ctx.informers.of<Node>('nodes').remove('n1');
    await settle();
    assert.deepEqual(
      c.ctx.events.events.map((e) => [e.key, e.reason, e.message]),
      [
        ['n1', 'RegisteredNode', 'Registered Node n1 in Controller'],
        ['n1', 'RemovingNode', 'Removing Node n1 from Controller'],
      ],
    );
    assert.deepEqual(c.writes(), []);
  });

  it('checks each node at least every --node-monitor-period', async (t) => {
    const c = cluster([node('n1')]);
    t.after(() => c.ctx.stop());
    await settle();
    const gets = (): number => c.ctx.clock.pending;
    assert.equal(gets(), 1, 'one timer for the node');
    c.ctx.clock.step(5_000);
    await settle();
    assert.equal(gets(), 1, 'and it is armed again');
  });
});
