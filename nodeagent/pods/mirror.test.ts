import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alreadyExists, notFound } from '../../shared/api/errors.ts';
import { RecordingApiClient } from '../../shared/client/testing.ts';
import { buildMirrorPod, reconcileMirrorPods } from './mirror.ts';
import { configHashAnnotation, configMirrorAnnotation, configSourceAnnotation, type Pod } from './pod.ts';
import { capturingLogger } from './testing.ts';

const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'node-uid' } };
const podsPath = '/api/v1/namespaces/kube-system/pods';

function staticPod(name: string, hash: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'kube-system', uid: hash, annotations: { [configHashAnnotation]: hash, [configSourceAnnotation]: 'file' } },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'i' }] },
    status: { phase: 'Pending' },
  };
}

function mirrorPod(name: string, hash: string, uid = `mirror-${name}`): Pod {
  const pod = buildMirrorPod(staticPod(name, hash), { name: 'node-1', uid: 'node-uid' });
  return { ...pod, metadata: { ...pod.metadata, uid, resourceVersion: '5' } };
}

describe('mirror pods', () => {
  it('builds the mirror pod as upstream: mirror annotation, Node owner, no UID or status', () => {
    const mirror = buildMirrorPod(staticPod('etcd-node-1', 'h1'), { name: 'node-1', uid: 'node-uid' });
    assert.deepEqual(mirror.metadata, {
      name: 'etcd-node-1',
      namespace: 'kube-system',
      annotations: { [configHashAnnotation]: 'h1', [configSourceAnnotation]: 'file', [configMirrorAnnotation]: 'h1' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'node-uid', controller: true }],
    });
    assert.equal(mirror.status, undefined);
    assert.equal(mirror.spec?.nodeName, 'node-1');
  });

  it('creates missing mirror pods and leaves current ones alone', async () => {
    const api = new RecordingApiClient();
    const { logger } = capturingLogger();
    const actions = await reconcileMirrorPods(api, logger, {
      staticPods: [staticPod('a-node-1', 'ha'), staticPod('b-node-1', 'hb')],
      sourcesReady: true,
      nodePods: [mirrorPod('a-node-1', 'ha')],
      node,
    });
    assert.deepEqual(api.writes(), [`CREATE ${podsPath}`]);
    assert.deepEqual(actions, { created: ['kube-system/b-node-1'], deleted: [], failed: [] });
    assert.equal((api.actions[0]?.body as Pod).metadata.annotations?.[configMirrorAnnotation], 'hb');
  });

  it('deletes and recreates a mirror pod whose hash is stale or that is being deleted', async () => {
    const api = new RecordingApiClient();
    const { logger } = capturingLogger();
    const deleting = { ...mirrorPod('b-node-1', 'hb'), metadata: { ...mirrorPod('b-node-1', 'hb').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
    await reconcileMirrorPods(api, logger, {
      staticPods: [staticPod('a-node-1', 'new'), staticPod('b-node-1', 'hb')],
      sourcesReady: true,
      nodePods: [mirrorPod('a-node-1', 'old'), deleting],
      node,
    });
    assert.deepEqual(api.writes(), [`DELETE ${podsPath}/a-node-1`, `CREATE ${podsPath}`, `DELETE ${podsPath}/b-node-1`, `CREATE ${podsPath}`]);
    assert.deepEqual(api.actions[0]?.body, { gracePeriodSeconds: 0, preconditions: { uid: 'mirror-a-node-1' } });
  });

  it('deletes orphaned mirror pods only once the static pod sources are ready', async () => {
    const { logger } = capturingLogger();
    const inputs = { staticPods: [], nodePods: [mirrorPod('gone-node-1', 'h'), { metadata: { name: 'api-pod', namespace: 'kube-system', uid: 'u' } }], node };
    const early = new RecordingApiClient();
    await reconcileMirrorPods(early, logger, { ...inputs, sourcesReady: false });
    assert.deepEqual(early.writes(), []);
    const api = new RecordingApiClient();
    const actions = await reconcileMirrorPods(api, logger, { ...inputs, sourcesReady: true });
    assert.deepEqual(api.writes(), [`DELETE ${podsPath}/gone-node-1`]);
    assert.deepEqual(api.actions[0]?.body, { gracePeriodSeconds: 0, preconditions: { uid: 'mirror-gone-node-1' } });
    assert.deepEqual(actions.deleted, ['kube-system/gone-node-1']);
  });

  it('tolerates AlreadyExists on create and NotFound on delete (and then waits for the next pass)', async () => {
    const api = new RecordingApiClient();
    api.react((a) => {
      if (a.verb === 'create') throw alreadyExists({ group: '', resource: 'pods' }, 'b-node-1');
      if (a.verb === 'delete') throw notFound({ group: '', resource: 'pods' }, 'a-node-1');
      return undefined;
    });
    const { logger, lines } = capturingLogger();
    const actions = await reconcileMirrorPods(api, logger, {
      staticPods: [staticPod('a-node-1', 'new'), staticPod('b-node-1', 'hb')],
      sourcesReady: true,
      nodePods: [mirrorPod('a-node-1', 'old')],
      node,
    });
    assert.deepEqual(api.writes(), [`DELETE ${podsPath}/a-node-1`, `CREATE ${podsPath}`]);
    assert.deepEqual(actions, { created: [], deleted: [], failed: [] });
    assert.equal(lines.filter((l) => l.level >= 50).length, 0);
  });

  it('creates nothing without a Node UID or when the Node is being deleted', async () => {
    const { logger } = capturingLogger();
    for (const n of [undefined, { metadata: { name: 'node-1' } }, { metadata: { ...node.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }]) {
      const api = new RecordingApiClient();
      await reconcileMirrorPods(api, logger, { staticPods: [staticPod('a-node-1', 'h')], sourcesReady: true, nodePods: [], node: n });
      assert.deepEqual(api.writes(), []);
    }
  });
});
