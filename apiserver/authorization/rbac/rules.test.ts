import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PolicyRule } from '../../../shared/api/rbac.ts';
import type { AuthorizationAttributes } from '../authorizer.ts';
import { ruleAllows } from './rules.ts';

const resource = (verb: string, apiGroup: string, resource: string, more: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  verb,
  isResourceRequest: true,
  path: '',
  namespace: 'default',
  apiGroup,
  apiVersion: 'v1',
  resource,
  subresource: '',
  name: '',
  ...more,
});
const path = (verb: string, p: string): AuthorizationAttributes => ({ ...resource(verb, '', ''), isResourceRequest: false, path: p, namespace: '' });

// Cases after upstream's rbac rule tests (plugin/pkg/auth/authorizer/rbac).
describe('an RBAC rule', () => {
  it('matches verbs, groups and resources, with * as a wildcard', () => {
    const rule: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] };
    assert.equal(ruleAllows(resource('get', '', 'configmaps'), rule), true);
    assert.equal(ruleAllows(resource('watch', '', 'configmaps'), rule), false);
    assert.equal(ruleAllows(resource('get', 'apps', 'configmaps'), rule), false);
    assert.equal(ruleAllows(resource('get', '', 'secrets'), rule), false);
    const all: PolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'] };
    assert.equal(ruleAllows(resource('deletecollection', 'x.example.com', 'widgets'), all), true);
    assert.equal(ruleAllows(resource('get', '', 'nodes', { subresource: 'status' }), all), true, '* covers subresources');
  });

  it('grants a subresource only when named, or through */subresource', () => {
    const plain: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['nodes'] };
    assert.equal(ruleAllows(resource('get', '', 'nodes', { subresource: 'status' }), plain), false);
    assert.equal(ruleAllows(resource('get', '', 'nodes', { subresource: 'status' }), { ...plain, resources: ['nodes/status'] }), true);
    assert.equal(ruleAllows(resource('get', '', 'nodes', { subresource: 'status' }), { ...plain, resources: ['*/status'] }), true);
    assert.equal(ruleAllows(resource('get', '', 'nodes', { subresource: 'proxy' }), { ...plain, resources: ['*/status'] }), false);
    assert.equal(ruleAllows(resource('get', '', 'nodes'), { ...plain, resources: ['*/status'] }), false);
  });

  it('with resourceNames grants only requests that name one of them', () => {
    const rule: PolicyRule = { verbs: ['get', 'list', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] };
    assert.equal(ruleAllows(resource('get', '', 'configmaps', { name: 'a' }), rule), true);
    assert.equal(ruleAllows(resource('get', '', 'configmaps', { name: 'b' }), rule), false);
    assert.equal(ruleAllows(resource('list', '', 'configmaps'), rule), false, 'a list names nothing');
  });

  it('matches non-resource URLs exactly or by a trailing *', () => {
    const rule: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
    assert.equal(ruleAllows(path('get', '/healthz'), rule), true);
    assert.equal(ruleAllows(path('get', '/healthz/etcd'), rule), false);
    assert.equal(ruleAllows(path('get', '/apis/apps/v1'), rule), true);
    assert.equal(ruleAllows(path('get', '/apis'), rule), false);
    assert.equal(ruleAllows(path('post', '/healthz'), rule), false);
    assert.equal(ruleAllows(path('get', '/anything'), { verbs: ['get'], nonResourceURLs: ['*'] }), true);
    assert.equal(ruleAllows(resource('get', '', 'configmaps'), rule), false, 'URL rules grant no resources');
    assert.equal(ruleAllows(path('get', '/healthz'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }), false, 'resource rules grant no URLs');
  });
});
