import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ManagedFieldsEntry } from '../api/types.ts';
import { emptyFieldSet, shareEmptyFieldSets } from './empty-field-sets.ts';

const entry = (fieldsV1: Record<string, unknown>): ManagedFieldsEntry => ({
  manager: 'corral-nodeagent',
  operation: 'Update',
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  fieldsV1,
});

describe('shareEmptyFieldSets', () => {
  it('makes every empty leaf, at any depth, the one shared field set, and keeps the trees equal', () => {
    const text = JSON.stringify([
      entry({ 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { 'f:renewTime': {} } }),
      entry({ 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } } } }),
    ]);
    const entries = JSON.parse(text) as ManagedFieldsEntry[];
    shareEmptyFieldSets(entries);
    const first = entries[0]!.fieldsV1 as { 'f:metadata': { 'f:labels': Record<string, unknown> }; 'f:spec': Record<string, unknown> };
    assert.equal(first['f:metadata']['f:labels']['.'], emptyFieldSet);
    assert.equal(first['f:metadata']['f:labels']['f:a'], emptyFieldSet);
    assert.equal(first['f:spec']['f:renewTime'], emptyFieldSet);
    const second = entries[1]!.fieldsV1 as { 'f:status': { 'f:conditions': Record<string, Record<string, unknown>> } };
    assert.equal(second['f:status']['f:conditions']['k:{"type":"Ready"}']?.['f:status'], emptyFieldSet);
    assert.equal(JSON.stringify(entries), text);
  });

  it('leaves non-empty sets their own objects, and an empty entry tree as it is', () => {
    const labels = { 'f:a': {} };
    const empty = {};
    const entries = [entry({ 'f:metadata': { 'f:labels': labels } }), entry(empty)];
    shareEmptyFieldSets(entries);
    assert.equal((entries[0]!.fieldsV1 as { 'f:metadata': { 'f:labels': unknown } })['f:metadata']['f:labels'], labels);
    assert.equal(entries[1]!.fieldsV1, empty);
  });

  it('skips entries that are not objects or hold no tree, and values in a tree that are not objects', () => {
    const entries = [null, 'x', { manager: 'm' }, entry({ 'f:a': 1, 'f:b': [{}], 'f:c': {} })] as unknown as ManagedFieldsEntry[];
    shareEmptyFieldSets(entries);
    const tree = entries[3]!.fieldsV1 as Record<string, unknown>;
    assert.equal(tree['f:a'], 1);
    assert.notEqual((tree['f:b'] as unknown[])[0], emptyFieldSet);
    assert.equal(tree['f:c'], emptyFieldSet);
  });

  it('refuses a change to the shared field set instead of changing every object that holds it', () => {
    assert.throws(() => {
      (emptyFieldSet as Record<string, unknown>)['f:x'] = {};
    }, TypeError);
    assert.deepEqual(emptyFieldSet, {});
  });
});
