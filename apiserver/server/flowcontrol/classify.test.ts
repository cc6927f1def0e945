import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../requestinfo.ts';
import type { UserInfo } from '../../registry/definition.ts';
import { FlowClassifier } from './classify.ts';
import { bootstrapFlowSchemas } from './configuration.ts';

const classifier = new FlowClassifier(bootstrapFlowSchemas);

function classify(user: UserInfo, method: string, path: string): [string, string] {
  const url = new URL(path, 'https://x');
  const found = classifier.classify(user, parseRequestInfo(method, url.pathname, url.searchParams));
  assert.ok(found, `${method} ${path} matched no schema`);
  return [found.flowSchema.name, found.flowDistinguisher];
}

const authenticated = 'system:authenticated';
const node: UserInfo = { username: 'system:node:n1', groups: ['system:nodes', authenticated] };
const admin: UserInfo = { username: 'admin', groups: ['system:masters', authenticated] };
const bob: UserInfo = { username: 'bob', groups: ['devs', authenticated] };
const anonymous: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
const controllerManager: UserInfo = { username: 'system:kube-controller-manager', groups: [authenticated] };
const kubeSystemAccount = (name: string): UserInfo => ({
  username: `system:serviceaccount:kube-system:${name}`,
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', authenticated],
});
const appAccount: UserInfo = { username: 'system:serviceaccount:apps:web', groups: ['system:serviceaccounts', 'system:serviceaccounts:apps', authenticated] };

describe('FlowClassifier with the bootstrap configuration', () => {
  it("sends a node's lease and Node writes to system-node-high, its other requests to system-nodes, one flow per node", () => {
    assert.deepEqual(classify(node, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1'), ['system-node-high', 'system:node:n1']);
    assert.deepEqual(classify(node, 'PATCH', '/api/v1/nodes/n1/status'), ['system-node-high', 'system:node:n1']);
    assert.deepEqual(classify(node, 'GET', '/api/v1/namespaces/default/pods'), ['system-nodes', 'system:node:n1']);
    // the lease rule is namespaced only: a list across namespaces is not among the node's high-priority requests
    assert.deepEqual(classify(node, 'GET', '/apis/coordination.k8s.io/v1/leases'), ['system-nodes', 'system:node:n1']);
  });

  it('exempts system:masters, and probes of anyone but not their sub-paths', () => {
    assert.deepEqual(classify(admin, 'POST', '/api/v1/namespaces/default/configmaps'), ['exempt', '']);
    assert.deepEqual(classify(admin, 'GET', '/metrics'), ['exempt', '']);
    assert.deepEqual(classify(anonymous, 'GET', '/readyz'), ['probes', '']);
    assert.deepEqual(classify(bob, 'GET', '/livez'), ['probes', '']);
    assert.deepEqual(classify(bob, 'GET', '/livez/etcd'), ['global-default', 'bob']);
    assert.deepEqual(classify(anonymous, 'GET', '/version'), ['global-default', 'system:anonymous']);
  });

  it('tells the controller manager and kube-system service accounts apart by purpose, with their distinguishers', () => {
    assert.deepEqual(classify(controllerManager, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kcm'), [
      'system-leader-election',
      'system:kube-controller-manager',
    ]);
    assert.deepEqual(classify(controllerManager, 'PUT', '/api/v1/namespaces/apps/endpoints/web'), ['endpoint-controller', 'system:kube-controller-manager']);
    assert.deepEqual(classify(controllerManager, 'DELETE', '/api/v1/namespaces/apps/endpoints/web'), ['kube-controller-manager', 'apps']);
    assert.deepEqual(classify(controllerManager, 'GET', '/api/v1/nodes'), ['kube-controller-manager', '']);
    assert.deepEqual(classify(kubeSystemAccount('endpoint-controller'), 'GET', '/api/v1/namespaces/apps/endpoints/web'), [
      'endpoint-controller',
      'system:serviceaccount:kube-system:endpoint-controller',
    ]);
    assert.deepEqual(classify(kubeSystemAccount('gc'), 'PUT', '/api/v1/namespaces/apps/configmaps/lock'), [
      'workload-leader-election',
      'system:serviceaccount:kube-system:gc',
    ]);
    assert.deepEqual(classify(kubeSystemAccount('gc'), 'DELETE', '/api/v1/namespaces/apps/configmaps/lock'), ['kube-system-service-accounts', 'apps']);
  });

  it('sends other service accounts to service-accounts and everyone else to global-default, per user', () => {
    assert.deepEqual(classify(appAccount, 'GET', '/api/v1/namespaces/apps/configmaps'), ['service-accounts', 'system:serviceaccount:apps:web']);
    assert.deepEqual(classify(bob, 'POST', '/api/v1/namespaces/default/configmaps'), ['global-default', 'bob']);
    assert.deepEqual(classify(anonymous, 'GET', '/api'), ['global-default', 'system:anonymous']);
  });

  it('falls through to catch-all without the suggested schemas, and matches nothing without any', () => {
    const mandatory = new FlowClassifier(bootstrapFlowSchemas.filter((s) => s.name === 'exempt' || s.name === 'catch-all'));
    const url = new URL('https://x/api/v1/namespaces/default/pods');
    const info = parseRequestInfo('GET', url.pathname, url.searchParams);
    assert.equal(mandatory.classify(bob, info)?.flowSchema.name, 'catch-all');
    assert.equal(new FlowClassifier([]).classify(bob, info), undefined);
  });

  it('orders schemas of equal precedence by name', () => {
    const both = bootstrapFlowSchemas.filter((s) => s.name === 'kube-scheduler' || s.name === 'kube-controller-manager');
    const anyone = both.map((s) => ({
      ...s,
      spec: { ...s.spec, rules: [{ ...s.spec.rules[0]!, subjects: [{ kind: 'Group' as const, group: { name: '*' } }] }] },
    }));
    const url = new URL('https://x/api/v1/pods');
    assert.equal(
      new FlowClassifier(anyone.reverse()).classify(bob, parseRequestInfo('GET', url.pathname, url.searchParams))?.flowSchema.name,
      'kube-controller-manager',
    );
  });
});
