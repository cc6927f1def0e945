import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, Role } from '../../../shared/api/rbac.ts';
import { autoUpdateAnnotation, bootstrappingLabel, rbacGroup } from '../../../shared/api/rbac.ts';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapRoleBindings, bootstrapRoles } from './bootstrap-policy.ts';

function clusterRoleNamed(name: string): ClusterRole {
  const found = bootstrapClusterRoles().find((r) => r.metadata.name === name);
  assert.ok(found, `cluster role ${name}`);
  return found;
}

function roleNamed(namespace: string, name: string): Role {
  const found = bootstrapRoles().find((r) => r.metadata.namespace === namespace && r.metadata.name === name);
  assert.ok(found, `role ${namespace}/${name}`);
  return found;
}

function allObjects() {
  return [...bootstrapClusterRoles(), ...bootstrapClusterRoleBindings(), ...bootstrapRoles(), ...bootstrapRoleBindings()];
}

test('cluster-admin grants every verb on every resource and every non-resource URL', () => {
  assert.deepEqual(clusterRoleNamed('cluster-admin').rules, [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ]);
  const binding = bootstrapClusterRoleBindings().find((b) => b.metadata.name === 'cluster-admin');
  assert.deepEqual(binding?.subjects, [{ kind: 'Group', apiGroup: rbacGroup, name: 'system:masters' }]);
});

test('system:public-info-viewer lets everyone, anonymous included, read health and version', () => {
  assert.deepEqual(clusterRoleNamed('system:public-info-viewer').rules, [
    { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
  ]);
  const binding = bootstrapClusterRoleBindings().find((b) => b.metadata.name === 'system:public-info-viewer');
  assert.deepEqual(
    binding?.subjects?.map((s) => `${s.kind}:${s.name}`),
    ['Group:system:authenticated', 'Group:system:unauthenticated'],
  );
});

test('system:basic-user and system:discovery are for authenticated users only', () => {
  assert.deepEqual(clusterRoleNamed('system:basic-user').rules, [
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
  ]);
  for (const name of ['system:basic-user', 'system:discovery']) {
    const binding = bootstrapClusterRoleBindings().find((b) => b.metadata.name === name);
    assert.deepEqual(
      binding?.subjects?.map((s) => s.name),
      ['system:authenticated'],
      name,
    );
  }
});

test('admin, edit and view are filled by aggregation and chain view into edit into admin', () => {
  for (const [name, selects, label] of [
    ['admin', 'admin', undefined],
    ['edit', 'edit', 'admin'],
    ['view', 'view', 'edit'],
  ] as const) {
    const role = clusterRoleNamed(name);
    assert.equal(role.rules, undefined, name);
    assert.deepEqual(role.aggregationRule, {
      clusterRoleSelectors: [{ matchLabels: { [`rbac.authorization.k8s.io/aggregate-to-${selects}`]: 'true' } }],
    });
    const aggregatedInto = Object.keys(role.metadata.labels ?? {}).filter((k) => k.startsWith('rbac.authorization.k8s.io/aggregate-to-'));
    assert.deepEqual(aggregatedInto, label ? [`rbac.authorization.k8s.io/aggregate-to-${label}`] : [], name);
  }
  for (const to of ['admin', 'edit', 'view']) {
    const role = clusterRoleNamed(`system:aggregate-to-${to}`);
    assert.equal(role.metadata.labels?.[`rbac.authorization.k8s.io/aggregate-to-${to}`], 'true');
    assert.ok((role.rules ?? []).length > 0);
  }
});

test('system:aggregate-to-view never grants reading secrets; system:aggregate-to-edit does', () => {
  const grantsSecrets = (role: ClusterRole) =>
    (role.rules ?? []).some((r) => r.apiGroups?.includes('') && r.resources?.includes('secrets') && r.verbs.includes('get'));
  assert.equal(grantsSecrets(clusterRoleNamed('system:aggregate-to-view')), false);
  assert.equal(grantsSecrets(clusterRoleNamed('system:aggregate-to-edit')), true);
});

test('the system:node binding exists without subjects', () => {
  const binding = bootstrapClusterRoleBindings().find((b) => b.metadata.name === 'system:node');
  assert.ok(binding);
  assert.equal(binding.subjects, undefined);
  assert.deepEqual(binding.roleRef, { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'system:node' });
});

test('each controller role is bound to the service account of that controller in kube-system', () => {
  const controllerRoles = bootstrapClusterRoles().filter((r) => r.metadata.name?.startsWith('system:controller:'));
  assert.deepEqual(
    controllerRoles.map((r) => r.metadata.name),
    [
      'system:controller:certificate-controller',
      'system:controller:clusterrole-aggregation-controller',
      'system:controller:generic-garbage-collector',
      'system:controller:namespace-controller',
      'system:controller:node-controller',
    ],
  );
  const bindings = bootstrapClusterRoleBindings();
  for (const role of controllerRoles) {
    const name = role.metadata.name ?? '';
    const binding = bindings.find((b) => b.metadata.name === name);
    assert.ok(binding, name);
    assert.equal(binding.roleRef.name, name);
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: name.slice('system:controller:'.length), namespace: 'kube-system' }]);
  }
});

test('controllers that list through watches may watch what they list (1.32 backports)', () => {
  const namespaceController = clusterRoleNamed('system:controller:namespace-controller');
  assert.deepEqual(namespaceController.rules?.find((r) => r.apiGroups?.includes('*'))?.verbs, ['delete', 'deletecollection', 'get', 'list', 'watch']);
  const nodeController = clusterRoleNamed('system:controller:node-controller');
  for (const resource of ['nodes', 'pods']) {
    const verbs = nodeController.rules?.find((r) => r.resources?.length === 1 && r.resources[0] === resource)?.verbs ?? [];
    assert.ok(verbs.includes('list') && verbs.includes('watch'), resource);
  }
});

test('the clusterrole-aggregation controller may escalate, so it can copy rules it does not hold', () => {
  assert.deepEqual(clusterRoleNamed('system:controller:clusterrole-aggregation-controller').rules, [
    { verbs: ['escalate', 'get', 'list', 'patch', 'update', 'watch'], apiGroups: [rbacGroup], resources: ['clusterroles'] },
  ]);
});

test('the bootstrap signer may update no configmap but cluster-info in kube-public', () => {
  const rules = roleNamed('kube-public', 'system:controller:bootstrap-signer').rules ?? [];
  const updates = rules.filter((r) => r.resources?.includes('configmaps') && r.verbs.includes('update'));
  assert.deepEqual(updates, [{ verbs: ['update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }]);
  assert.deepEqual(roleNamed('kube-system', 'system:controller:bootstrap-signer').rules, [
    { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['secrets'] },
  ]);
  const tokenCleaner = roleNamed('kube-system', 'system:controller:token-cleaner').rules ?? [];
  assert.ok(tokenCleaner.some((r) => r.resources?.includes('secrets') && r.verbs.includes('delete')));
});

test('every binding refers to a role of the policy', () => {
  const clusterRoleNames = new Set(bootstrapClusterRoles().map((r) => r.metadata.name));
  for (const binding of bootstrapClusterRoleBindings()) {
    assert.equal(binding.roleRef.kind, 'ClusterRole');
    assert.equal(binding.roleRef.apiGroup, rbacGroup);
    assert.ok(clusterRoleNames.has(binding.roleRef.name), `${binding.metadata.name} -> ${binding.roleRef.name}`);
  }
  const roleKeys = new Set(bootstrapRoles().map((r) => `${r.metadata.namespace}/${r.metadata.name}`));
  for (const binding of bootstrapRoleBindings()) {
    assert.equal(binding.roleRef.kind, 'Role');
    assert.equal(binding.roleRef.apiGroup, rbacGroup);
    assert.ok(roleKeys.has(`${binding.metadata.namespace}/${binding.roleRef.name}`), `${binding.metadata.name} -> ${binding.roleRef.name}`);
  }
});

test('names are unique per kind and namespace', () => {
  for (const objects of [bootstrapClusterRoles(), bootstrapClusterRoleBindings(), bootstrapRoles(), bootstrapRoleBindings()]) {
    const keys = objects.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`);
    assert.equal(new Set(keys).size, keys.length, keys.join(', '));
  }
  for (const r of [...bootstrapRoles(), ...bootstrapRoleBindings()]) {
    assert.ok(r.metadata.namespace === 'kube-system' || r.metadata.namespace === 'kube-public', r.metadata.name);
  }
  for (const r of [...bootstrapClusterRoles(), ...bootstrapClusterRoleBindings()]) assert.equal(r.metadata.namespace, undefined);
});

test('every object is a v1 RBAC object carrying the bootstrapping label and the autoupdate annotation', () => {
  for (const object of allObjects()) {
    assert.equal(object.apiVersion, 'rbac.authorization.k8s.io/v1');
    assert.ok(['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(object.kind ?? ''));
    assert.equal(object.metadata.labels?.[bootstrappingLabel], 'rbac-defaults', object.metadata.name);
    assert.deepEqual(object.metadata.annotations, { [autoUpdateAnnotation]: 'true' }, object.metadata.name);
    assert.equal(object.metadata.creationTimestamp, undefined);
    assert.equal(object.metadata.resourceVersion, undefined);
  }
});

test('scheduler, proxy and kubeadm bootstrapping objects are left out', () => {
  const names = allObjects().map((o) => o.metadata.name ?? '');
  const absentNames = [
    'system:kube-scheduler',
    'system::leader-locking-kube-scheduler',
    'system:node-proxier',
    'system:heapster',
    'system:controller:cloud-provider',
  ];
  for (const absent of absentNames) {
    assert.ok(!names.includes(absent), absent);
  }
  const bootstrappers = bootstrapClusterRoleBindings().filter((b) => b.subjects?.some((s) => s.name === 'system:bootstrappers'));
  assert.deepEqual(bootstrappers, []);
});

test('every call returns fresh objects that callers may mutate', () => {
  const first = bootstrapClusterRoles();
  const admin = first.find((r) => r.metadata.name === 'cluster-admin');
  assert.ok(admin?.rules?.[0]);
  admin.rules[0].verbs.push('mutated');
  admin.metadata.labels = {};
  const node = first.find((r) => r.metadata.name === 'system:node');
  node?.rules?.splice(0);
  for (const binding of bootstrapClusterRoleBindings()) binding.subjects?.splice(0);

  assert.deepEqual(clusterRoleNamed('cluster-admin').rules?.[0]?.verbs, ['*']);
  assert.equal(clusterRoleNamed('cluster-admin').metadata.labels?.[bootstrappingLabel], 'rbac-defaults');
  assert.ok((clusterRoleNamed('system:node').rules ?? []).length > 0);
  assert.ok((bootstrapClusterRoleBindings().find((b) => b.metadata.name === 'cluster-admin')?.subjects ?? []).length > 0);

  const [a, b] = [bootstrapClusterRoles(), bootstrapClusterRoles()];
  assert.notEqual(a[0], b[0]);
  assert.deepEqual(a, b);
});
