import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ask } from '../../testing/rbac.ts';
import { bootstrapClusterRoles } from '../rbac/bootstrap-policy.ts';
import { NodeAuthorizer, nodeIdentity } from './authorizer.ts';

const nodeA = { username: 'system:node:a', groups: ['system:nodes', 'system:authenticated'] };
const rules = bootstrapClusterRoles().find((r) => r.metadata.name === 'system:node')?.rules ?? [];
const attachments: Record<string, string> = { 'va-a': 'a', 'va-b': 'b' };
const authorizer = new NodeAuthorizer({ volumeAttachmentNode: (name) => attachments[name] }, rules);
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

  it('lets a node read no Secret or ConfigMap (no pod references one) and only its VolumeAttachments', () => {
    assert.deepEqual(decide('get', 'secrets', 'default', { name: 's' }), {
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

  it('grants the rest by the system:node rules', () => {
    assert.equal(decide('create', 'events', 'default').decision, 'allow');
    assert.equal(decide('create', 'certificatesigningrequests', '', { apiGroup: 'certificates.k8s.io' }).decision, 'allow');
    assert.equal(decide('delete', 'namespaces', '', { name: 'default' }).decision, 'no-opinion');
    assert.equal(decide('list', 'clusterroles', '', { apiGroup: 'rbac.authorization.k8s.io' }).decision, 'no-opinion');
  });
});
