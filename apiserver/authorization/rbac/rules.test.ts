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

/** `verb group resource[/subresource] → allowed` for resource requests, `verb /path → allowed` otherwise. */
type Expectation = readonly [request: string, allowed: boolean];

function requestOf(text: string): AuthorizationAttributes {
  const [verb = '', target = '', combined = ''] = text.split(' ');
  if (target.startsWith('/')) return path(verb, target);
  const [res = '', sub = ''] = combined.split('/');
  return resource(verb, target, res, { subresource: sub });
}

// The rule-matching cases of upstream's rbac_test.go (TestRuleMatches).
const upstreamCases: readonly { name: string; rule: PolicyRule; expect: readonly Expectation[] }[] = [
  {
    name: 'star verb, exact match other',
    rule: { verbs: ['*'], apiGroups: ['group1'], resources: ['resource1'] },
    expect: [
      ['verb1 group1 resource1', true],
      ['verb1 group2 resource1', false],
      ['verb1 group1 resource2', false],
      ['verb2 group1 resource1', true],
      ['verb2 group2 resource2', false],
    ],
  },
  {
    name: 'star group, exact match other',
    rule: { verbs: ['verb1'], apiGroups: ['*'], resources: ['resource1'] },
    expect: [
      ['verb1 group1 resource1', true],
      ['verb1 group2 resource1', true],
      ['verb1 group1 resource2', false],
      ['verb2 group1 resource1', false],
    ],
  },
  {
    name: 'star resource, exact match other',
    rule: { verbs: ['verb1'], apiGroups: ['group1'], resources: ['*'] },
    expect: [
      ['verb1 group1 resource1', true],
      ['verb1 group1 resource2', true],
      ['verb1 group2 resource1', false],
      ['verb2 group1 resource1', false],
    ],
  },
  {
    name: 'tuple expansion',
    rule: { verbs: ['verb1', 'verb2'], apiGroups: ['group1', 'group2'], resources: ['resource1', 'resource2'] },
    expect: ['verb1', 'verb2'].flatMap((v) =>
      ['group1', 'group2'].flatMap((g) => ['resource1', 'resource2'].map((r): Expectation => [`${v} ${g} ${r}`, true])),
    ),
  },
  {
    name: 'subresource expansion',
    rule: { verbs: ['*'], apiGroups: ['*'], resources: ['resource1/subresource1'] },
    expect: [
      ['verb1 group1 resource1/subresource1', true],
      ['verb1 group2 resource1/subresource2', false],
      ['verb1 group1 resource2/subresource1', false],
      ['verb2 group1 resource1/subresource1', true],
    ],
  },
  {
    name: 'star nonresource, exact match other',
    rule: { verbs: ['verb1'], nonResourceURLs: ['*'] },
    expect: [
      ['verb1 /foo', true],
      ['verb1 /foo/bar/one', true],
      ['verb2 /foo', false],
      ['verb2 /foo/baz/one', false],
    ],
  },
  {
    name: 'star nonresource subpath',
    rule: { verbs: ['verb1'], nonResourceURLs: ['/foo/*'] },
    expect: [
      ['verb1 /foo', false],
      ['verb1 /foo/bar', true],
      ['verb1 /foo/baz/one', true],
      ['verb1 /notfoo', false],
      ['verb1 /notfoo/bar/one', false],
    ],
  },
  {
    name: 'star verb, exact nonresource',
    rule: { verbs: ['*'], nonResourceURLs: ['/foo', '/foo/bar/one'] },
    expect: [
      ['verb1 /foo', true],
      ['verb1 /foo/bar', false],
      ['verb1 /foo/bar/one', true],
      ['verb2 /foo', true],
      ['verb2 /foo/baz/one', false],
    ],
  },
];

describe("upstream's rule-matching cases", () => {
  for (const { name, rule, expect } of upstreamCases) {
    it(name, () => {
      for (const [request, allowed] of expect) assert.equal(ruleAllows(requestOf(request), rule), allowed, request);
    });
  }
});
