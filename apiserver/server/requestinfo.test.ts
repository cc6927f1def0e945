import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTrue, parseRequestInfo } from './requestinfo.ts';

const parse = (method: string, path: string, query = '') => parseRequestInfo(method, path, new URLSearchParams(query));

test('namespaced resource paths', () => {
  const info = parse('GET', '/api/v1/namespaces/ns1/configmaps/cm1');
  assert.deepEqual(
    [info.verb, info.apiGroup, info.apiVersion, info.namespace, info.resource, info.name, info.subresource],
    ['get', '', 'v1', 'ns1', 'configmaps', 'cm1', ''],
  );
  assert.equal(parse('GET', '/api/v1/namespaces/ns1/configmaps').verb, 'list');
  assert.equal(parse('GET', '/api/v1/namespaces/ns1/configmaps', 'watch=1').verb, 'watch');
  assert.equal(parse('DELETE', '/api/v1/namespaces/ns1/configmaps').verb, 'deletecollection');
});

test('namespaces themselves and their subresources', () => {
  const ns = parse('GET', '/api/v1/namespaces/ns1');
  assert.deepEqual([ns.resource, ns.name, ns.subresource], ['namespaces', 'ns1', '']);
  const fin = parse('PUT', '/api/v1/namespaces/ns1/finalize');
  assert.deepEqual([fin.verb, fin.resource, fin.name, fin.subresource], ['update', 'namespaces', 'ns1', 'finalize']);
});

test('group paths and subresources', () => {
  const info = parse('PUT', '/apis/certificates.k8s.io/v1/certificatesigningrequests/csr1/approval');
  assert.deepEqual(
    [info.verb, info.apiGroup, info.apiVersion, info.resource, info.name, info.subresource],
    ['update', 'certificates.k8s.io', 'v1', 'certificatesigningrequests', 'csr1', 'approval'],
  );
});

test('non-resource paths', () => {
  assert.equal(parse('GET', '/apis/storage.k8s.io').isResourceRequest, false);
  assert.equal(parse('GET', '/api').isResourceRequest, false);
  assert.equal(parse('GET', '/healthz').verb, 'get');
});

test('?watch is read as upstream converts ListOptions: false only when absent, 0 or false in any case', () => {
  const verb = (query: string): string => parse('GET', '/api/v1/configmaps', query).verb;
  for (const query of ['watch=1', 'watch=true', 'watch=yes', 'watch=', 'watch', 'watch=True&watch=false']) assert.equal(verb(query), 'watch', query);
  for (const query of ['', 'watch=0', 'watch=false', 'watch=FALSE', 'watch=fAlSe', 'watch=0&watch=1']) assert.equal(verb(query), 'list', query);
  assert.equal(parse('GET', '/api/v1/configmaps/a', 'watch=true').verb, 'get');
});

test('isTrue is strconv.ParseBool, an invalid value being false (?pretty)', () => {
  for (const text of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(isTrue(text), true, text);
  for (const text of [null, '', '0', 'false', 'yes', 'tRuE']) assert.equal(isTrue(text), false, String(text));
});
