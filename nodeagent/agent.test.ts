import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../shared/api/types.ts';
import { keptNode } from './agent.ts';

describe('keptNode', () => {
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

  it('drops the managed fields and keeps everything else the agent reads', () => {
    const kept = keptNode(node);
    assert.equal(kept.metadata.managedFields, undefined);
    assert.deepEqual(kept.metadata, { name: 'node-1', uid: 'uid-1', resourceVersion: '7' });
    assert.deepEqual(kept.status, node.status);
  });

  it('leaves the Node it was given as it was', () => {
    keptNode(node);
    assert.equal(node.metadata.managedFields?.length, 1);
  });

  it('keeps a Node without managed fields as it is', () => {
    const bare: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-2' } };
    assert.equal(keptNode(bare), bare);
  });
});
