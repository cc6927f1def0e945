import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiVerb, isSubpath, nodeRequestAttributes, nodeSubresources } from './request-attributes.ts';

describe('nodeSubresources', () => {
  // [path, without KubeletFineGrainedAuthz, with it]
  const table: [string, string[], string[]][] = [
    ['/stats', ['stats'], ['stats']],
    ['/stats/summary', ['stats'], ['stats']],
    ['/statsx', ['proxy'], ['proxy']],
    ['/metrics', ['metrics'], ['metrics']],
    ['/metrics/cadvisor', ['metrics'], ['metrics']],
    ['/metricsfoo', ['proxy'], ['proxy']],
    ['/logs', ['log'], ['log']],
    ['/logs/syslog', ['log'], ['log']],
    ['/checkpoint/ns/pod/c', ['checkpoint'], ['checkpoint']],
    ['/pods', ['proxy'], ['pods', 'proxy']],
    ['/pods/', ['proxy'], ['pods', 'proxy']],
    ['/podsx', ['proxy'], ['proxy']],
    ['/runningpods/', ['proxy'], ['pods', 'proxy']],
    ['/runningpods', ['proxy'], ['pods', 'proxy']],
    ['/healthz', ['proxy'], ['healthz', 'proxy']],
    ['/healthz/ping', ['proxy'], ['healthz', 'proxy']],
    ['/configz', ['proxy'], ['configz', 'proxy']],
    ['/spec/', ['proxy'], ['proxy']],
    ['/exec/ns/pod/c', ['proxy'], ['proxy']],
    ['/', ['proxy'], ['proxy']],
  ];
  for (const [path, coarse, fine] of table) {
    it(`maps ${path}`, () => {
      assert.deepEqual(nodeSubresources(path, false), coarse);
      assert.deepEqual(nodeSubresources(path, true), fine);
    });
  }
});

describe('request attributes', () => {
  it('maps HTTP methods to verbs as upstream does', () => {
    assert.deepEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map(apiVerb), ['get', 'create', 'update', 'patch', 'delete', '', '']);
  });

  it('names this node, in the core group', () => {
    const user = { username: 'u', groups: ['g'] };
    assert.deepEqual(nodeRequestAttributes(user, 'GET', '/pods', 'node-a', true), [
      { user, verb: 'get', namespace: '', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'pods', name: 'node-a', path: '/pods' },
      { user, verb: 'get', namespace: '', apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource: 'proxy', name: 'node-a', path: '/pods' },
    ]);
  });

  it('compares paths segment by segment', () => {
    assert.equal(isSubpath('/stats', '/stats/'), true);
    assert.equal(isSubpath('/stats/x', '/stats/'), true);
    assert.equal(isSubpath('/statsx', '/stats/'), false);
  });
});
