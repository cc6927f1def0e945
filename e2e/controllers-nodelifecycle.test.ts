/**
 * The node lifecycle controller in a running controller manager against a real API server, with
 * short grace periods given by flag: two Nodes whose "kubelets" are played by the test (their
 * Lease in kube-node-lease renewed, their Ready condition posted through nodes/<n>/status). One
 * falls silent: it goes Unknown with upstream's reason and message and gets the unreachable
 * NoSchedule and NoExecute taints (the other node keeps its zone out of master disruption mode);
 * once it posts Ready again and renews its Lease, the taints go.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { formatMicroTimeOf, formatTimeOf } from '../shared/go/time.ts';
import { startControllerManager, type ControllerManagerProcess } from './controller-manager.ts';
import { startCluster, succeeded, type Cluster } from './harness.ts';

interface NodeJson {
  spec?: { taints?: { key: string; effect: string; timeAdded?: string }[] };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string; lastHeartbeatTime?: string }[] };
}

describe('node lifecycle controller', () => {
  let cluster: Cluster;
  let manager: ControllerManagerProcess;
  /** Names of the nodes whose kubelet is alive: the test renews their Lease every 500 ms. */
  const alive = new Set<string>();
  let heartbeat: NodeJS.Timeout | undefined;

  const call = async (method: string, path: string, body: unknown, contentType = 'application/merge-patch+json'): Promise<void> => {
    const res = await cluster.request({ method, path, body: JSON.stringify(body), headers: { 'content-type': contentType } });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
  };
  const renewLease = (name: string): Promise<void> =>
    call('PATCH', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`, { spec: { renewTime: formatMicroTimeOf(new Date()) } });
  /** What a healthy kubelet posts: every condition with a fresh heartbeat. */
  const postReady = (name: string): Promise<void> => {
    const now = formatTimeOf(new Date());
    const condition = (type: string, status: string, reason: string): Record<string, string> => ({
      type,
      status,
      reason,
      message: `kubelet says ${reason}`,
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    });
    return call('PATCH', `/api/v1/nodes/${name}/status`, {
      status: {
        conditions: [
          condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
          condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
          condition('PIDPressure', 'False', 'KubeletHasSufficientPID'),
          condition('Ready', 'True', 'KubeletReady'),
        ],
      },
    });
  };
  const getNode = async (name: string): Promise<NodeJson> => JSON.parse(succeeded(await cluster.kubectl(['get', 'node', name, '-o', 'json']))) as NodeJson;
  const taintsOf = (node: NodeJson): string[] => (node.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
  const ready = (node: NodeJson): { status: string; reason?: string; message?: string } | undefined => node.status?.conditions?.find((c) => c.type === 'Ready');

  before(async () => {
    cluster = await startCluster();
    for (const name of ['n1', 'n2']) {
      succeeded(await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } }) }));
      const lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace: 'kube-node-lease' },
        spec: { holderIdentity: name, leaseDurationSeconds: 5, renewTime: formatMicroTimeOf(new Date()) },
      };
      succeeded(await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(lease) }));
      await postReady(name);
      alive.add(name);
    }
    heartbeat = setInterval(() => {
      for (const name of alive) void renewLease(name).catch(() => {});
    }, 500);
    manager = await startControllerManager(cluster, {
      args: [
        '--controllers=nodelifecycle',
        '--leader-elect=false',
        '--node-monitor-period=1s',
        '--node-monitor-grace-period=4s',
        '--node-startup-grace-period=8s',
      ],
    });
  });
  after(async () => {
    clearInterval(heartbeat);
    await manager?.stop();
    await cluster?.stop();
  });

  it('lets healthy nodes be: the not-ready taint admission put on creation goes once they are Ready', async () => {
    for (const name of ['n1', 'n2']) {
      await waitFor(`${name} without taints`, async () => taintsOf(await getNode(name)).length === 0, { detail: () => manager.log().slice(-3000) });
    }
  });

  it('marks a node whose Lease and status stop Unknown, with the unreachable taints, and untaints it when it is back', async () => {
    alive.delete('n1');
    const silent = await waitFor(
      'n1 to go Unknown with both unreachable taints',
      async () => {
        const node = await getNode('n1');
        return ready(node)?.status === 'Unknown' && taintsOf(node).length === 2 ? node : undefined;
      },
      { detail: () => manager.log().slice(-3000) },
    );
    assert.deepEqual(taintsOf(silent), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
    for (const taint of silent.spec?.taints ?? []) assert.ok(taint.timeAdded && !Number.isNaN(Date.parse(taint.timeAdded)), JSON.stringify(taint));
    for (const condition of silent.status?.conditions ?? []) {
      assert.deepEqual(
        [condition.type, condition.status, condition.reason, condition.message],
        [condition.type, 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'],
      );
    }
    assert.equal(silent.status?.conditions?.length, 4);
    // The other node kept renewing: untouched.
    const other = await getNode('n2');
    assert.equal(ready(other)?.status, 'True');
    assert.deepEqual(taintsOf(other), []);

    // The kubelet is back.
    await postReady('n1');
    await renewLease('n1');
    alive.add('n1');
    const back = await waitFor(
      'n1 Ready without taints',
      async () => {
        const node = await getNode('n1');
        return ready(node)?.status === 'True' && taintsOf(node).length === 0 ? node : undefined;
      },
      { detail: () => manager.log().slice(-3000) },
    );
    assert.equal(ready(back)?.reason, 'KubeletReady');

    const events = JSON.parse(
      succeeded(await cluster.kubectl(['get', 'events', '-n', 'default', '--field-selector', 'involvedObject.name=n1', '-o', 'json'])),
    ) as { items: { reason: string; message: string; source?: { component?: string } }[] };
    const messages = events.items.map((e) => `${e.reason}: ${e.message}`);
    assert.ok(messages.includes('RegisteredNode: Registered Node n1 in Controller'), messages.join('\n'));
    assert.ok(messages.includes('NodeNotReady: Node n1 status is now: NodeNotReady'), messages.join('\n'));
    assert.ok(events.items.every((e) => e.source?.component === 'node-controller'));
  });
});
