import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientKindOfPath, clientSchemaOf } from './kinds.ts';

describe('clientKindOfPath', () => {
  it('finds the kind of objects, collections and the status subresource, namespaced or not', () => {
    assert.equal(clientKindOfPath('/api/v1/nodes')?.kind, 'Node');
    assert.equal(clientKindOfPath('/api/v1/nodes/n1/status')?.kind, 'Node');
    assert.equal(clientKindOfPath('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1')?.kind, 'Lease');
    assert.equal(clientKindOfPath('/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dn1')?.kind, 'Pod');
    assert.equal(clientKindOfPath('/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-1')?.kind, 'CertificateSigningRequest');
  });

  it('knows nothing of other kinds, other subresources and paths outside the API', () => {
    assert.equal(clientKindOfPath('/api/v1/namespaces/default'), undefined, 'a Namespace');
    assert.equal(clientKindOfPath('/api/v1/namespaces/default/configmaps/a'), undefined);
    assert.equal(clientKindOfPath('/api/v1/namespaces/default/pods/p/eviction'), undefined);
    assert.equal(clientKindOfPath('/apis/authorization.k8s.io/v1/subjectaccessreviews'), undefined);
    assert.equal(clientKindOfPath('/apis/coordination.k8s.io/v2/namespaces/x/leases'), undefined, 'another version');
    assert.equal(clientKindOfPath('/healthz'), undefined);
  });
});

describe('clientSchemaOf', () => {
  it('holds each kind, its list, Status and DeleteOptions, each built once', () => {
    const lease = clientSchemaOf('coordination.k8s.io/v1', 'Lease');
    assert.ok(lease);
    assert.equal(clientSchemaOf('coordination.k8s.io/v1', 'Lease'), lease);
    assert.ok(clientSchemaOf('v1', 'PodList')?.properties?.['items']);
    assert.ok(clientSchemaOf('v1', 'Status'));
    assert.ok(clientSchemaOf('v1', 'DeleteOptions'));
    assert.equal(clientSchemaOf('v1', 'ConfigMap'), undefined);
    assert.equal(clientSchemaOf('v1', 'Lease'), undefined, 'the group belongs to the type');
  });
});
