import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../shared/api/types.ts';
import { emptyFieldSet } from '../../shared/apply/empty-field-sets.ts';
import { slicedParseMinLength } from '../../shared/codec/json-sliced.ts';
import { decodeStoredObject, encodeStoredObject } from './stored-value.ts';

const lease: KubeObject = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: {
    name: 'node-1',
    namespace: 'kube-node-lease',
    managedFields: [
      {
        manager: 'corral-nodeagent',
        operation: 'Update',
        apiVersion: 'coordination.k8s.io/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:renewTime': {} } },
      },
    ],
  },
  spec: { holderIdentity: 'node-1', renewTime: '2026-01-01T00:00:00.000000Z' },
};

const renewTimeLeaf = (obj: KubeObject): unknown => (obj.metadata.managedFields?.[0]?.fieldsV1?.['f:spec'] as Record<string, unknown>)['f:renewTime'];

describe('decodeStoredObject', () => {
  it('reads an object with its resourceVersion from the revision, its managed field leaves shared', () => {
    const text = encodeStoredObject({ ...lease, metadata: { ...lease.metadata, resourceVersion: '1' } });
    const a = decodeStoredObject('/registry/leases/kube-node-lease/node-1', text, 7);
    const b = decodeStoredObject('/registry/leases/kube-node-lease/node-1', text, 8);
    assert.equal(a.modRevision, 7);
    assert.deepEqual(a.object, { ...lease, metadata: { ...lease.metadata, resourceVersion: '7' } });
    assert.equal(renewTimeLeaf(a.object), emptyFieldSet);
    assert.equal(renewTimeLeaf(b.object), renewTimeLeaf(a.object));
  });

  it('leaves the trees of a value large enough to be parsed in slices as parsed', () => {
    const big = { ...lease, metadata: { ...lease.metadata, annotations: { filler: 'x'.repeat(slicedParseMinLength) } } };
    const decoded = decodeStoredObject('/registry/leases/kube-node-lease/node-1', encodeStoredObject(big), 9);
    assert.deepEqual(renewTimeLeaf(decoded.object), {});
    assert.notEqual(renewTimeLeaf(decoded.object), emptyFieldSet);
  });

  it('refuses a value that is not a JSON object', () => {
    assert.throws(() => decodeStoredObject('/k', 'nope', 1), /the value of \/k is not JSON/);
    assert.throws(() => decodeStoredObject('/k', '[1]', 1), /the value of \/k is not an object/);
  });
});
