import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ask } from '../../testing/rbac.ts';
import { bootstrapClusterRoles } from '../rbac/bootstrap-policy.ts';
import type { Pod } from '../../../shared/api/pod.ts';
import { ResourceCache } from '../../storage/cache/watch-cache.ts';
import { cachedNodeGraph, NodeAuthorizer, nodeIdentity } from './authorizer.ts';

const nodeA = { username: 'system:node:a', groups: ['system:nodes', 'system:authenticated'] };
const rules = bootstrapClusterRoles().find((r) => r.metadata.name === 'system:node')?.rules ?? [];

/** Caches as the watch cache fills them: two VolumeAttachments, and pods on nodes a and b. */
const volumeAttachments = new ResourceCache('/registry/volumeattachments/');
volumeAttachments.reset(
  ['va-a', 'va-b'].map((name) => ({ object: { metadata: { name }, spec: { nodeName: name.slice(3) } }, modRevision: 1 })),
  ['/registry/volumeattachments/va-a', '/registry/volumeattachments/va-b'],
  1,
);
const pod = (name: string, nodeName: string | undefined, spec: Pod['spec'] = {}): Pod => ({
  metadata: { name, namespace: 'default' },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'i' }], ...spec },
});
const pods = new ResourceCache('/registry/pods/');
const podList = [
  pod('web', 'a', {
    volumes: [
      { name: 'cfg', configMap: { name: 'web-config' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'web-data' } },
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
    ],
    containers: [{ name: 'c', image: 'i', env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'web-secret', key: 'p' } } }] }],
  }),
  pod('other', 'b', { imagePullSecrets: [{ name: 'pull-b' }] }),
  pod('pending', undefined, { imagePullSecrets: [{ name: 'pull-pending' }] }),
];
pods.reset(
  podList.map((object) => ({ object, modRevision: 1 })),
  podList.map((p) => `/registry/pods/default/${p.metadata.name ?? ''}`),
  1,
);
const authorizer = new NodeAuthorizer(cachedNodeGraph(volumeAttachments, pods), rules);
const decide = (...args: Parameters<typeof ask>) => authorizer.authorize(nodeA, ask(...args));

describe('the Node authorizer', () => {
  it('knows nodes by name prefix and group', () => {
    assert.equal(nodeIdentity(nodeA), 'a');
    assert.equal(nodeIdentity({ username: 'system:node:a', groups: [] }), undefined);
    assert.equal(nodeIdentity({ username: 'alice', groups: ['system:nodes'] }), undefined);
    assert.deepEqual(authorizer.authorize({ username: 'alice', groups: [] }, ask('get', 'nodes', '', { name: 'a' })), { decision: 'no-opinion', reason: '' });
  });

  it('lets a node read its own Node only, by name', () => {
    assert.equal(decide('get', 'nodes', '', { name: 'a' }).decision, 'allow');
    assert.equal(decide('watch', 'nodes', '', { name: 'a' }).decision, 'allow');
    assert.deepEqual(decide('get', 'nodes', '', { name: 'b' }), { decision: 'no-opinion', reason: "node 'a' cannot read 'b', only its own Node object" });
    assert.deepEqual(decide('list', 'nodes'), { decision: 'no-opinion', reason: "node 'a' cannot read all nodes, only its own Node object" });
    assert.equal(decide('update', 'nodes', '', { name: 'a', subresource: 'status' }).decision, 'allow', 'status writes by the node rules');
  });

  it('lets a node use its own Lease in kube-node-lease and its own CSINode', () => {
    assert.equal(decide('update', 'leases', 'kube-node-lease', { apiGroup: 'coordination.k8s.io', name: 'a' }).decision, 'allow');
    assert.equal(decide('create', 'leases', 'kube-node-lease', { apiGroup: 'coordination.k8s.io' }).decision, 'allow');
    assert.deepEqual(decide('update', 'leases', 'kube-node-lease', { apiGroup: 'coordination.k8s.io', name: 'b' }), {
      decision: 'no-opinion',
      reason: 'can only access node lease with the same name as the requesting node',
    });
    assert.deepEqual(decide('get', 'leases', 'default', { apiGroup: 'coordination.k8s.io', name: 'a' }), {
      decision: 'no-opinion',
      reason: 'can only access leases in the "kube-node-lease" system namespace',
    });
    assert.equal(decide('list', 'leases', 'kube-node-lease', { apiGroup: 'coordination.k8s.io' }).decision, 'no-opinion');
    assert.equal(decide('patch', 'csinodes', '', { apiGroup: 'storage.k8s.io', name: 'a' }).decision, 'allow');
    assert.equal(decide('patch', 'csinodes', '', { apiGroup: 'storage.k8s.io', name: 'b' }).decision, 'no-opinion');
  });

  it('lets a node read the Secrets, ConfigMaps and claims its pods refer to, and only its VolumeAttachments', () => {
    assert.equal(decide('get', 'secrets', 'default', { name: 'web-secret' }).decision, 'allow');
    assert.equal(decide('watch', 'configmaps', 'default', { name: 'web-config' }).decision, 'allow');
    assert.equal(decide('get', 'persistentvolumeclaims', 'default', { name: 'web-data' }).decision, 'allow');
    assert.equal(decide('get', 'persistentvolumeclaims', 'default', { name: 'web-scratch' }).decision, 'allow', 'the claim of an ephemeral volume');
    assert.deepEqual(decide('get', 'secrets', 'default', { name: 'pull-b' }), {
      decision: 'no-opinion',
      reason: "no relationship found between node 'a' and this object",
    });
    assert.equal(decide('get', 'secrets', 'default', { name: 'pull-pending' }).decision, 'no-opinion', 'an unbound pod relates to no node');
    assert.equal(decide('get', 'secrets', 'other', { name: 'web-secret' }).decision, 'no-opinion', 'same name, other namespace');
    assert.deepEqual(decide('get', 'persistentvolumes', '', { name: 'pv' }), {
      decision: 'no-opinion',
      reason: "no relationship found between node 'a' and this object",
    });
    assert.deepEqual(decide('list', 'configmaps', 'default'), { decision: 'no-opinion', reason: 'No Object name found' });
    assert.deepEqual(decide('delete', 'secrets', 'default', { name: 's' }), { decision: 'no-opinion', reason: 'can only read resources of this type' });
    assert.equal(decide('get', 'volumeattachments', '', { apiGroup: 'storage.k8s.io', name: 'va-a' }).decision, 'allow');
    assert.equal(decide('get', 'volumeattachments', '', { apiGroup: 'storage.k8s.io', name: 'va-b' }).decision, 'no-opinion');
    assert.deepEqual(decide('list', 'volumeattachments', '', { apiGroup: 'storage.k8s.io' }), {
      decision: 'no-opinion',
      reason: 'can only get individual resources of this type',
    });
  });

  it('lets a node get its pods, and list or watch them only with its spec.nodeName field selector', () => {
    assert.equal(decide('get', 'pods', 'default', { name: 'web' }).decision, 'allow');
    assert.deepEqual(decide('get', 'pods', 'default', { name: 'other' }), {
      decision: 'no-opinion',
      reason: "no relationship found between node 'a' and this object",
    });
    assert.deepEqual(decide('get', 'pods', 'default', { name: 'web', subresource: 'log' }), { decision: 'no-opinion', reason: '' });
    const own = [{ field: 'spec.nodeName', operator: '=' as const, value: 'a' }];
    assert.equal(decide('list', 'pods', '', { fieldSelector: own }).decision, 'allow');
    assert.equal(decide('watch', 'pods', 'default', { fieldSelector: own }).decision, 'allow');
    const reason = 'can only list/watch pods with spec.nodeName field selector';
    assert.deepEqual(decide('list', 'pods', ''), { decision: 'no-opinion', reason });
    assert.deepEqual(decide('list', 'pods', '', { fieldSelector: [{ field: 'spec.nodeName', operator: '=', value: 'b' }] }), {
      decision: 'no-opinion',
      reason,
    });
    assert.deepEqual(decide('watch', 'pods', '', { fieldSelector: [{ field: 'spec.nodeName', operator: '!=', value: 'a' }] }), {
      decision: 'no-opinion',
      reason,
    });
    assert.equal(decide('watch', 'pods', 'default', { name: 'web' }).decision, 'allow', 'a watch of one pod bound to it, by metadata.name');
  });

  it('lets a node create and delete pods, write their status and evict them (NodeRestriction narrows all)', () => {
    assert.equal(decide('create', 'pods', 'default').decision, 'allow');
    assert.equal(decide('delete', 'pods', 'default', { name: 'other' }).decision, 'allow');
    assert.equal(decide('patch', 'pods', 'default', { name: 'web', subresource: 'status' }).decision, 'allow');
    assert.equal(decide('create', 'pods', 'default', { name: 'web', subresource: 'eviction' }).decision, 'allow');
    assert.deepEqual(decide('update', 'pods', 'default', { name: 'web' }), { decision: 'no-opinion', reason: '' });
    assert.deepEqual(decide('get', 'pods', 'default', { name: 'web', subresource: 'status' }), { decision: 'no-opinion', reason: '' });
  });

  it('grants the rest by the system:node rules', () => {
    assert.equal(decide('create', 'events', 'default').decision, 'allow');
    assert.equal(decide('create', 'certificatesigningrequests', '', { apiGroup: 'certificates.k8s.io' }).decision, 'allow');
    assert.equal(decide('delete', 'namespaces', '', { name: 'default' }).decision, 'no-opinion');
    assert.equal(decide('list', 'clusterroles', '', { apiGroup: 'rbac.authorization.k8s.io' }).decision, 'no-opinion');
  });
});
