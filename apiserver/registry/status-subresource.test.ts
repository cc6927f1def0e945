import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../shared/api/types.ts';
import { keepSpec, keepStatus, statusSubresource } from './status-subresource.ts';

interface Thing extends KubeObject {
  spec?: { size?: number };
  status?: { phase?: string; note?: string };
}

const ctx = { user: { username: 'tester', groups: [] }, now: new Date('2024-01-01T00:00:00Z') };
const thing = (fields: Partial<Thing> = {}): Thing => ({ metadata: { name: 't' }, ...fields });

describe('keepSpec and keepStatus', () => {
  it('copy the stored part, never sharing it, and remove a part the stored object lacks', () => {
    const old = thing({ spec: { size: 1 }, status: { phase: 'Old' } });
    const obj = thing({ spec: { size: 2 }, status: { phase: 'New' } });
    keepSpec(obj, old);
    assert.deepEqual(obj, thing({ spec: { size: 1 }, status: { phase: 'New' } }));
    assert.notEqual(obj.spec, old.spec);
    keepStatus(obj, old);
    assert.deepEqual(obj.status, { phase: 'Old' });
    const bare = thing();
    keepSpec(obj, bare);
    keepStatus(obj, bare);
    assert.deepEqual(obj, thing());
  });
});

describe('statusSubresource', () => {
  it('serves get, update and patch; keeps the spec, then runs the kind step, and validates with the kind', () => {
    const seen: (string | undefined)[] = [];
    const sub = statusSubresource<Thing>({
      prepareForUpdate: (obj) => seen.push(`size ${obj.spec?.size}`),
      validateUpdate: (obj) => (obj.status?.phase ? [] : [{ type: 'FieldValueRequired', field: 'status.phase', value: '', detail: '' }]),
    });
    assert.deepEqual(sub.verbs, ['get', 'update', 'patch']);
    const old = thing({ metadata: { name: 't', labels: { a: 'old' } }, spec: { size: 1 } });
    const obj = thing({ metadata: { name: 't', labels: { a: 'new' } }, spec: { size: 9 }, status: { phase: 'Up' } });
    sub.prepareForUpdate(obj, old, ctx);
    assert.deepEqual(seen, ['size 1']);
    assert.deepEqual(obj, thing({ metadata: { name: 't', labels: { a: 'new' } }, spec: { size: 1 }, status: { phase: 'Up' } }));
    assert.deepEqual(sub.validateUpdate(obj, old, ctx), []);
    assert.equal(sub.validateUpdate(thing(), old, ctx).length, 1);
  });

  it('with resetMetadata keeps labels, annotations, finalizers and owner references as stored (ResetObjectMetaForStatus)', () => {
    const sub = statusSubresource<Thing>({ resetMetadata: true, validateUpdate: () => [] });
    const owner = { apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u' };
    const old = thing({ metadata: { name: 't', labels: { a: 'old' }, ownerReferences: [owner] } });
    const obj = thing({ metadata: { name: 't', labels: { a: 'new' }, annotations: { b: 'new' }, finalizers: ['x/y'], uid: 'kept' }, status: { note: 'n' } });
    sub.prepareForUpdate(obj, old, ctx);
    assert.deepEqual(obj, thing({ metadata: { name: 't', labels: { a: 'old' }, ownerReferences: [owner], uid: 'kept' }, status: { note: 'n' } }));
  });
});
