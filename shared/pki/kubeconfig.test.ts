import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { renderKubeconfig } from './kubeconfig.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('renderKubeconfig', () => {
  it('renders one cluster, user and context with embedded credentials', () => {
    const text = renderKubeconfig({ server: 'https://127.0.0.1:6443', caPem: 'CA\n', clientCertPem: 'CERT\n', clientKeyPem: 'KEY\n' });
    assert.deepEqual(parse(text), {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'corral', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64('CA\n') } }],
      users: [{ name: 'admin', user: { 'client-certificate-data': b64('CERT\n'), 'client-key-data': b64('KEY\n') } }],
      contexts: [{ name: 'corral', context: { cluster: 'corral', user: 'admin' } }],
      'current-context': 'corral',
      preferences: {},
    });
    assert.match(text, /^apiVersion: v1\n/);
  });

  it('honours names, namespace and token credentials', () => {
    const doc = parse(
      renderKubeconfig({ server: 'https://h:1', caPem: 'CA', token: 'abc.def', clusterName: 'c', userName: 'u', contextName: 'x', namespace: 'ns' }),
    );
    assert.deepEqual(doc.users, [{ name: 'u', user: { token: 'abc.def' } }]);
    assert.deepEqual(doc.contexts, [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'ns' } }]);
    assert.equal(doc['current-context'], 'x');
  });

  it('rejects a certificate without its key', () => {
    assert.throws(() => renderKubeconfig({ server: 'https://h', caPem: 'CA', clientCertPem: 'C' }), /client certificate and client key must be given together/);
  });
});
