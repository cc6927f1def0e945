import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../shared/client/clock.ts';
import { FakeInformer, RecordingApiClient, settle } from '../../shared/client/testing.ts';
import { NoRuntime } from '../runtime/no-runtime.ts';
import { buildMirrorPod } from './mirror.ts';
import { boundPodsInformerOptions, hostIPsOf, NodePods, type StaticPods } from './node-pods.ts';
import { configHashAnnotation, configSourceAnnotation, type Pod } from './pod.ts';
import type { StaticPodSet } from './static-pod-source.ts';
import { capturingLogger } from './testing.ts';

const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'node-uid' } };

class FakeStaticPods implements StaticPods {
  private listeners: ((set: StaticPodSet) => void)[] = [];
  constructor(private set: StaticPodSet) {}
  onChange(listener: (set: StaticPodSet) => void): void {
    this.listeners.push(listener);
  }
  current(): StaticPodSet {
    return this.set;
  }
  publish(set: StaticPodSet): void {
    this.set = set;
    for (const l of this.listeners) l(set);
  }
}

const staticPod: Pod = {
  metadata: { name: 'etcd-node-1', namespace: 'kube-system', uid: 'h1', annotations: { [configHashAnnotation]: 'h1', [configSourceAnnotation]: 'file' } },
  spec: { nodeName: 'node-1', containers: [{ name: 'etcd', image: 'etcd' }] },
};

function setup(initial: Pod[] = []) {
  const api = new RecordingApiClient();
  const clock = new FakeClock();
  const pods = new FakeInformer<Pod>(initial);
  const statics = new FakeStaticPods({ pods: [], invalid: [], ready: false });
  const { logger } = capturingLogger();
  const loop = new NodePods({
    api,
    runtime: new NoRuntime(),
    clock,
    logger,
    pods,
    staticPods: statics,
    node: () => node,
    hostIPs: () => ['10.0.0.5'],
    syncFrequencyMs: 60_000,
  });
  return { api, clock, pods, statics, loop };
}

describe('node pod loop', () => {
  it('takes the host IPs from the Node: InternalIP first, one per family', () => {
    const addresses = [
      { type: 'Hostname', address: 'node-1' },
      { type: 'ExternalIP', address: '203.0.113.5' },
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'InternalIP', address: '10.0.0.6' },
      { type: 'InternalIP', address: 'fd00::5' },
    ];
    assert.deepEqual(hostIPsOf({ metadata: {}, status: { addresses } }), ['10.0.0.5', 'fd00::5']);
    assert.deepEqual(hostIPsOf({ metadata: {}, status: { addresses: addresses.slice(0, 2) } }), ['203.0.113.5']);
    assert.deepEqual(hostIPsOf(undefined), []);
  });

  it('selects the pods bound to the node', () => {
    assert.deepEqual(boundPodsInformerOptions('node-1'), { fieldSelector: 'spec.nodeName=node-1' });
  });

  it('writes the status of bound pods, creates mirror pods, and resyncs on the clock', async (t) => {
    const apiPod: Pod = {
      metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '3' },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'i' }] },
    };
    const { api, clock, pods, statics, loop } = setup([apiPod]);
    loop.start();
    t.after(() => loop.stop());
    loop.resync();
    await loop.idle();
    assert.deepEqual(api.writes(), ['UPDATE /api/v1/namespaces/default/pods/web/status']);

    statics.publish({ pods: [staticPod], invalid: [], ready: true });
    await loop.idle();
    assert.deepEqual(api.writes().slice(1), ['CREATE /api/v1/namespaces/kube-system/pods']);

    // The mirror pod appears in the informer: its status is written.
    const mirror = {
      ...buildMirrorPod(staticPod, { name: 'node-1', uid: 'node-uid' }),
      metadata: { ...buildMirrorPod(staticPod, { name: 'node-1', uid: 'node-uid' }).metadata, uid: 'm1', resourceVersion: '4' },
    };
    pods.set(mirror);
    await loop.idle();
    assert.deepEqual(api.writes().slice(2), ['UPDATE /api/v1/namespaces/kube-system/pods/etcd-node-1/status']);

    // A resync finds nothing to do (the cache still shows the versions written against).
    clock.step(60_000);
    await settle();
    await loop.idle();
    assert.equal(api.writes().length, 3);

    // The static pod is gone: its mirror pod is deleted.
    statics.publish({ pods: [], invalid: [], ready: true });
    await loop.idle();
    assert.deepEqual(api.writes().slice(3), ['DELETE /api/v1/namespaces/kube-system/pods/etcd-node-1']);
  });

  it('deletes pods being deleted for good', async (t) => {
    const { api, pods, loop } = setup();
    loop.start();
    t.after(() => loop.stop());
    pods.set({ metadata: { name: 'old', namespace: 'default', uid: 'u9', deletionTimestamp: '2026-01-01T00:00:00Z' }, spec: { containers: [] } });
    await loop.idle();
    assert.deepEqual(api.writes(), ['DELETE /api/v1/namespaces/default/pods/old']);
  });
});
