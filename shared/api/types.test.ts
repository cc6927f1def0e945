import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withoutManagedFields, type KubeObject } from './types.ts';

describe('withoutManagedFields', () => {
  const node: KubeObject = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: 'node-1',
      uid: 'uid-1',
      resourceVersion: '7',
      managedFields: [{ manager: 'corral-nodeagent', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:conditions': {} } } }],
    },
    status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], conditions: [{ type: 'Ready', status: 'True' }] },
  };

  it('drops the managed fields and keeps everything else', () => {
    const kept = withoutManagedFields(node);
    assert.equal(kept.metadata.managedFields, undefined);
    assert.deepEqual(kept.metadata, { name: 'node-1', uid: 'uid-1', resourceVersion: '7' });
    assert.deepEqual(kept.status, node.status);
  });

  it('leaves the object it was given as it was', () => {
    withoutManagedFields(node);
    assert.equal(node.metadata.managedFields?.length, 1);
  });

  it('answers an object without managed fields with itself', () => {
    const bare: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-2' } };
    assert.equal(withoutManagedFields(bare), bare);
  });
});
