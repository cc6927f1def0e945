import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ask, MemorySource, user } from '../../testing/rbac.ts';
import { RbacAuthorizer } from './authorizer.ts';

const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
const subject = (kind: string, name: string, namespace?: string) => ({
  kind,
  name,
  ...(kind === 'ServiceAccount' ? { namespace } : { apiGroup: 'rbac.authorization.k8s.io' }),
});

describe('the RBAC authorizer', () => {
  const source = new MemorySource();
  source.addClusterRole('view-cm', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]);
  source.addRole('team', 'edit-cm', [{ verbs: ['update'], apiGroups: [''], resources: ['configmaps'] }]);
  source.bind({ metadata: { name: 'readers' }, subjects: [subject('Group', 'readers')], roleRef: ref('ClusterRole', 'view-cm') });
  source.bind({ metadata: { name: 'alice-edit', namespace: 'team' }, subjects: [subject('User', 'alice')], roleRef: ref('Role', 'edit-cm') });
  source.bind({ metadata: { name: 'alice-view', namespace: 'team' }, subjects: [subject('User', 'alice')], roleRef: ref('ClusterRole', 'view-cm') });
  source.bind({ metadata: { name: 'sa', namespace: 'team' }, subjects: [{ kind: 'ServiceAccount', name: 'robot' }], roleRef: ref('ClusterRole', 'view-cm') });
  source.bind({ metadata: { name: 'ghost', namespace: 'team' }, subjects: [subject('User', 'bob')], roleRef: ref('Role', 'missing') });
  const rbac = new RbacAuthorizer(source);

  it('grants ClusterRoleBindings everywhere and RoleBindings in their namespace only', () => {
    assert.equal(rbac.authorize(user('carol', 'readers'), ask('list', 'configmaps', 'anywhere')).decision, 'allow');
    assert.equal(rbac.authorize(user('carol', 'readers'), ask('list', 'configmaps')).decision, 'allow', 'cluster scope');
    assert.equal(rbac.authorize(user('alice'), ask('update', 'configmaps', 'team')).decision, 'allow');
    assert.equal(rbac.authorize(user('alice'), ask('get', 'configmaps', 'team')).decision, 'allow', 'a ClusterRole bound in a namespace');
    assert.equal(rbac.authorize(user('alice'), ask('get', 'configmaps', 'other')).decision, 'no-opinion');
    assert.equal(rbac.authorize(user('alice'), ask('list', 'configmaps')).decision, 'no-opinion', 'a RoleBinding grants nothing at cluster scope');
    assert.equal(rbac.authorize(user('alice'), ask('delete', 'configmaps', 'team')).decision, 'no-opinion');
  });

  it('names the binding that allowed, as upstream does', () => {
    assert.equal(
      rbac.authorize(user('carol', 'readers'), ask('get', 'configmaps', 'x')).reason,
      'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "view-cm" to Group "readers"',
    );
    assert.equal(
      rbac.authorize(user('alice'), ask('update', 'configmaps', 'team')).reason,
      'RBAC: allowed by RoleBinding "alice-edit/team" of Role "edit-cm" to User "alice"',
    );
  });

  it("treats a service account subject without namespace as one of the binding's namespace", () => {
    assert.equal(rbac.authorize(user('system:serviceaccount:team:robot'), ask('get', 'configmaps', 'team')).decision, 'allow');
    assert.equal(rbac.authorize(user('system:serviceaccount:other:robot'), ask('get', 'configmaps', 'team')).decision, 'no-opinion');
  });

  it('grants nothing through a binding to a missing role, and says so', () => {
    const result = rbac.authorize(user('bob'), ask('get', 'configmaps', 'team'));
    assert.deepEqual(result, { decision: 'no-opinion', reason: 'RBAC: role.rbac.authorization.k8s.io "missing" not found' });
    assert.deepEqual(rbac.authorize(user('nobody'), ask('get', 'configmaps', 'team')), { decision: 'no-opinion', reason: '' });
  });

  it('sees new bindings at once', () => {
    assert.equal(rbac.authorize(user('dave'), ask('get', 'configmaps', 'x')).decision, 'no-opinion');
    source.bind({ metadata: { name: 'dave' }, subjects: [subject('User', 'dave')], roleRef: ref('ClusterRole', 'view-cm') });
    assert.equal(rbac.authorize(user('dave'), ask('get', 'configmaps', 'x')).decision, 'allow');
  });

  it('lists the rules of a user in a namespace', () => {
    const { rules, errors } = rbac.rulesFor(user('alice'), 'team');
    assert.deepEqual(
      rules.map((r) => r.verbs.join()),
      ['update', 'get,list'],
    );
    assert.deepEqual(errors, []);
  });
});
