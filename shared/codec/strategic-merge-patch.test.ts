/**
 * Cases follow upstream's strategicpatch tests (their "current + three-way patch = result" halves)
 * on a schema shaped like upstream's test type MergeItem, plus the errors a malformed patch gets.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../api/errors.ts';
import { anyValue, array, int64, kindSchema, map, object, patchMerge, pb, string, type Schema } from '../api/schema.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';

// A list item's type is the item type itself, as upstream's MergeItem.
const itemFields: Record<string, Schema> = {};
const item = object(itemFields);
Object.assign(itemFields, {
  name: string(),
  value: string(),
  other: string(),
  mergingList: patchMerge(array(item), 'name'),
  nonMergingList: array(item),
  mergingIntList: patchMerge(array(int64())),
  nonMergingIntList: array(int64()),
  mergingListWithoutKey: patchMerge(array(item)),
  mergeItemPtr: pb(1, patchMerge(item, 'name'), 'optional'),
  simpleMap: map(string()),
  retainKeysMap: {
    ...object({ name: string(), value: string(), other: string(), mergingIntList: patchMerge(array(int64())) }),
    'x-kubernetes-patch-strategy': 'retainKeys',
  },
  retainKeysMergingList: { ...array(item), 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' },
  raw: anyValue(),
  replacingRaw: { ...anyValue(), 'x-kubernetes-patch-strategy': 'replace' },
  listOfLists: array(array(string())),
});

interface Case {
  name: string;
  original: unknown;
  patch: unknown;
  result: unknown;
}

function table(cases: readonly Case[], schema: Schema = item): void {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(applyStrategicMergePatch(c.original, c.patch, schema), c.result));
  }
}

interface ErrorCase {
  name: string;
  original: unknown;
  patch: unknown;
  code: number;
  message: string;
  reason?: string;
}

function errors(cases: readonly ErrorCase[]): void {
  for (const c of cases) {
    it(c.name, () => {
      assert.throws(
        () => applyStrategicMergePatch(c.original, c.patch, item),
        (err: unknown) => {
          assert.ok(err instanceof StatusError);
          assert.equal(err.code, c.code);
          assert.equal(err.message, c.message);
          assert.equal(err.status.reason, c.reason);
          return true;
        },
      );
    });
  }
}

describe('maps', () => {
  table([
    { name: 'adds and replaces fields', original: { name: '1', other: 'a' }, patch: { name: '2', value: '1' }, result: { name: '2', value: '1', other: 'a' } },
    { name: 'null deletes a field', original: { name: '1', value: '1', other: 'a' }, patch: { name: null, value: null }, result: { other: 'a' } },
    { name: 'null for an absent field changes nothing', original: { other: 'a' }, patch: { value: null }, result: { other: 'a' } },
    {
      name: 'nested maps merge',
      original: { simpleMap: { key1: '1', key2: '1', other: 'a' } },
      patch: { simpleMap: { key1: '2', key2: null } },
      result: { simpleMap: { key1: '2', other: 'a' } },
    },
    { name: 'a new map keeps its values but not its nulls', original: {}, patch: { simpleMap: { a: null, b: 'x' } }, result: { simpleMap: { b: 'x' } } },
    { name: 'a value of another type replaces', original: { simpleMap: { a: 'x' } }, patch: { simpleMap: 'scalar' }, result: { simpleMap: 'scalar' } },
    { name: 'a JSON null patch changes nothing', original: { name: '1' }, patch: null, result: { name: '1' } },
    {
      name: '$patch: replace replaces the map',
      original: { simpleMap: { a: '1', b: '2' } },
      patch: { simpleMap: { $patch: 'replace', c: '3' } },
      result: { simpleMap: { c: '3' } },
    },
    {
      name: '$patch: delete empties the map',
      original: { simpleMap: { a: '1' }, name: '1' },
      patch: { simpleMap: { $patch: 'delete' } },
      result: { simpleMap: {}, name: '1' },
    },
    { name: '$patch: delete at the top empties the object', original: { name: '1', value: '2' }, patch: { $patch: 'delete' }, result: {} },
    { name: 'a new map holding $patch is dropped', original: { name: '1' }, patch: { simpleMap: { $patch: 'replace', a: '1' } }, result: { name: '1' } },
    {
      name: 'replace strategy replaces a map',
      original: { replacingRaw: { a: { b: 1 }, c: 2 } },
      patch: { replacingRaw: { a: { d: 3 } } },
      result: { replacingRaw: { a: { d: 3 } } },
    },
    {
      name: 'a struct field held by pointer merges',
      original: { mergeItemPtr: { name: 'a', value: '1' } },
      patch: { mergeItemPtr: { other: 'x' } },
      result: { mergeItemPtr: { name: 'a', value: '1', other: 'x' } },
    },
  ]);
});

describe('lists without a merge strategy', () => {
  table([
    {
      name: 'a list of objects is replaced',
      original: { nonMergingList: [{ name: '1', value: '1' }, { name: '2' }] },
      patch: { nonMergingList: [{ name: '1', other: 'b' }] },
      result: { nonMergingList: [{ name: '1', other: 'b' }] },
    },
    { name: 'a list of scalars is replaced', original: { nonMergingIntList: [1, 2] }, patch: { nonMergingIntList: [3] }, result: { nonMergingIntList: [3] } },
    { name: 'an empty list empties it', original: { nonMergingIntList: [1, 2] }, patch: { nonMergingIntList: [] }, result: { nonMergingIntList: [] } },
  ]);
});

describe('merged lists of scalars', () => {
  table([
    {
      name: 'a new item goes before the server-only items',
      original: { mergingIntList: [1, 2] },
      patch: { mergingIntList: [3] },
      result: { mergingIntList: [3, 1, 2] },
    },
    {
      name: 'a new item stays after a live item the patch puts before it',
      original: { mergingIntList: [1, 2] },
      patch: { mergingIntList: [2, 3] },
      result: { mergingIntList: [1, 2, 3] },
    },
    {
      name: 'items already present keep their place',
      original: { mergingIntList: [1, 2, 3] },
      patch: { mergingIntList: [1, 3] },
      result: { mergingIntList: [1, 2, 3] },
    },
    { name: 'duplicates collapse', original: { mergingIntList: [1] }, patch: { mergingIntList: [1, 1, 4] }, result: { mergingIntList: [1, 4] } },
    { name: 'a new list is taken as it is', original: {}, patch: { mergingIntList: [2, 1] }, result: { mergingIntList: [2, 1] } },
  ]);
});

describe('merged lists of objects', () => {
  table([
    {
      name: 'an item merges into the item with its key',
      original: {
        mergingList: [
          { name: '1', value: '1', other: 'a' },
          { name: '2', value: '2' },
        ],
      },
      patch: { mergingList: [{ name: '2', value: 'x', other: 'b' }] },
      result: {
        mergingList: [
          { name: '1', value: '1', other: 'a' },
          { name: '2', value: 'x', other: 'b' },
        ],
      },
    },
    {
      name: 'a new item is added before the server-only items',
      original: { mergingList: [{ name: '1' }, { name: '2' }] },
      patch: { mergingList: [{ name: '3', value: '3' }] },
      result: { mergingList: [{ name: '3', value: '3' }, { name: '1' }, { name: '2' }] },
    },
    {
      name: 'null deletes a field of an item',
      original: { mergingList: [{ name: '1', value: '1', other: 'a' }] },
      patch: { mergingList: [{ name: '1', value: null }] },
      result: { mergingList: [{ name: '1', other: 'a' }] },
    },
    {
      name: 'lists nested in items merge by their own strategy',
      original: { mergingList: [{ name: '1', mergingList: [{ name: 'a', value: '1' }], nonMergingIntList: [1, 2] }] },
      patch: { mergingList: [{ name: '1', mergingList: [{ name: 'a', other: 'x' }], nonMergingIntList: [3] }] },
      result: { mergingList: [{ name: '1', mergingList: [{ name: 'a', value: '1', other: 'x' }], nonMergingIntList: [3] }] },
    },
    {
      name: '$patch: delete removes every item with the key',
      original: { mergingList: [{ name: '1' }, { name: '2', value: '2' }, { name: '1', value: 'again' }] },
      patch: { mergingList: [{ name: '1', $patch: 'delete' }] },
      result: { mergingList: [{ name: '2', value: '2' }] },
    },
    {
      name: '$patch: delete of a missing item changes nothing',
      original: { mergingList: [{ name: '1' }] },
      patch: { mergingList: [{ name: '9', $patch: 'delete' }] },
      result: { mergingList: [{ name: '1' }] },
    },
    {
      name: 'adding and deleting in one patch',
      original: { mergingList: [{ name: '1' }, { name: '2', value: '2' }] },
      patch: { mergingList: [{ name: '3' }, { name: '1', $patch: 'delete' }] },
      result: { mergingList: [{ name: '3' }, { name: '2', value: '2' }] },
    },
    {
      name: '$patch: replace makes the other items the list',
      original: { mergingList: [{ name: '1', value: '1' }, { name: '2' }] },
      patch: { mergingList: [{ name: '1', other: 'x' }, { $patch: 'replace' }] },
      result: { mergingList: [{ name: '1', other: 'x' }] },
    },
    {
      name: 'a new list drops its $patch items',
      original: {},
      patch: { mergingList: [{ name: '1' }, { name: '2', $patch: 'delete' }] },
      result: { mergingList: [{ name: '1' }] },
    },
  ]);
});

describe('$deleteFromPrimitiveList', () => {
  table([
    {
      name: 'deletes from a merged list',
      original: { mergingIntList: [1, 2, 3] },
      patch: { '$deleteFromPrimitiveList/mergingIntList': [2] },
      result: { mergingIntList: [1, 3] },
    },
    {
      name: 'deletes from a replaced list',
      original: { nonMergingIntList: [1, 2, 3] },
      patch: { '$deleteFromPrimitiveList/nonMergingIntList': [2] },
      result: { nonMergingIntList: [1, 3] },
    },
    {
      name: 'a missing item is not added',
      original: { mergingIntList: [1, 2] },
      patch: { '$deleteFromPrimitiveList/mergingIntList': [3] },
      result: { mergingIntList: [1, 2] },
    },
    { name: 'a missing list is not added', original: { name: '1' }, patch: { '$deleteFromPrimitiveList/mergingIntList': [3] }, result: { name: '1' } },
    {
      name: 'a value that is not a list is ignored',
      original: { mergingIntList: [1] },
      patch: { '$deleteFromPrimitiveList/mergingIntList': 'x' },
      result: { mergingIntList: [1] },
    },
    {
      name: 'adds and deletes in one patch',
      original: { mergingIntList: [1, 2] },
      patch: { mergingIntList: [3], '$deleteFromPrimitiveList/mergingIntList': [1] },
      result: { mergingIntList: [3, 2] },
    },
  ]);
});

describe('$setElementOrder', () => {
  table([
    {
      name: 'orders a list of scalars, keeping server-only items in place',
      original: { mergingIntList: [1, 4, 2] },
      patch: { '$setElementOrder/mergingIntList': [3, 1, 2], mergingIntList: [3] },
      result: { mergingIntList: [3, 1, 4, 2] },
    },
    {
      name: 'orders and deletes in a list of scalars',
      original: { mergingIntList: [1, 2, 3] },
      patch: { '$setElementOrder/mergingIntList': [2, 1], '$deleteFromPrimitiveList/mergingIntList': [3] },
      result: { mergingIntList: [2, 1] },
    },
    {
      name: 'orders a list of objects with server-only items',
      original: { mergingList: [{ name: '1', other: 'a' }, { name: '2' }, { name: '7' }, { name: '9' }, { name: '8' }, { name: '3' }, { name: '4' }] },
      patch: { '$setElementOrder/mergingList': [{ name: '2' }, { name: '1' }, { name: '4' }, { name: '3' }] },
      result: { mergingList: [{ name: '2' }, { name: '1', other: 'a' }, { name: '7' }, { name: '9' }, { name: '8' }, { name: '4' }, { name: '3' }] },
    },
    {
      // Upstream deletes within the live list's array and appends into the freed slot; the
      // ordering step sees that array, which puts the server-only item 4 before the new item 3.
      name: 'adds and deletes items of an ordered list',
      original: { mergingList: [{ name: '1' }, { name: '2', other: 'b' }, { name: '4', other: 'c' }] },
      patch: { '$setElementOrder/mergingList': [{ name: '2' }, { name: '3' }], mergingList: [{ name: '3' }, { name: '1', $patch: 'delete' }] },
      result: { mergingList: [{ name: '2', other: 'b' }, { name: '4', other: 'c' }, { name: '3' }] },
    },
    {
      name: 'orders two lists of one map',
      original: { mergingList: [{ name: 'a' }, { name: 'b' }], mergeItemPtr: [{ name: 'c' }, { name: 'd' }] },
      patch: {
        '$setElementOrder/mergingList': [{ name: 'b' }],
        '$setElementOrder/mergeItemPtr': [{ name: 'd' }, { name: 'c' }],
        mergingList: [{ $patch: 'delete', name: 'a' }],
      },
      result: { mergingList: [{ name: 'b' }], mergeItemPtr: [{ name: 'd' }, { name: 'c' }] },
    },
    {
      name: 'orders a new list',
      original: {},
      patch: { '$setElementOrder/mergingList': [{ name: '2' }, { name: '1' }], mergingList: [{ name: '2' }, { name: '9', $patch: 'delete' }, { name: '1' }] },
      result: { mergingList: [{ name: '2' }, { name: '1' }] },
    },
    {
      name: 'ignores items it names that no list has',
      original: { mergingList: [{ name: '1' }, { name: '3' }] },
      patch: {
        '$setElementOrder/mergingList': [{ name: '3' }, { name: '2' }, { name: '1' }],
        mergingList: [
          { name: '3', value: '3' },
          { name: '1', value: '1' },
        ],
      },
      result: {
        mergingList: [
          { name: '3', value: '3' },
          { name: '1', value: '1' },
        ],
      },
    },
  ]);
});

describe('$retainKeys', () => {
  table([
    {
      name: 'clears the fields it does not name',
      original: { retainKeysMap: { name: 'type1', value: 'foo' } },
      patch: { retainKeysMap: { $retainKeys: ['name', 'other'], name: 'type2', other: 'bar' } },
      result: { retainKeysMap: { name: 'type2', other: 'bar' } },
    },
    {
      name: 'named fields merge',
      original: { retainKeysMap: { name: 'foo', mergingIntList: [1, 2] } },
      patch: { retainKeysMap: { $retainKeys: ['name', 'mergingIntList'], mergingIntList: [3] } },
      result: { retainKeysMap: { name: 'foo', mergingIntList: [3, 1, 2] } },
    },
    {
      name: 'nulls need not be named',
      original: { retainKeysMap: { name: 'foo', value: 'x' } },
      patch: { retainKeysMap: { $retainKeys: ['name'], value: null } },
      result: { retainKeysMap: { name: 'foo' } },
    },
    {
      name: 'in items of a merged list',
      original: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a', other: 'x' }] },
      patch: {
        '$setElementOrder/retainKeysMergingList': [{ name: 'bar' }, { name: 'foo' }],
        retainKeysMergingList: [{ $retainKeys: ['name', 'value'], name: 'foo' }],
      },
      result: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] },
    },
  ]);
});

describe('fields without patch metadata', () => {
  table([{ name: 'a RawExtension merges its scalars', original: { raw: { a: 1, b: 2 } }, patch: { raw: { a: 3 } }, result: { raw: { a: 3, b: 2 } } }]);
});

describe('malformed patches', () => {
  errors([
    {
      name: 'a patch that is not an object',
      original: {},
      patch: ['a'],
      code: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
    {
      name: 'a string patch',
      original: {},
      patch: 'a',
      code: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal string into Go value of type map[string]interface {}',
    },
    {
      name: '$deleteFromPrimitiveList without a list name',
      original: { mergingIntList: [1] },
      patch: { $deleteFromPrimitiveList: [1] },
      code: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of primitive list',
    },
    {
      name: '$setElementOrder without a list name',
      original: {},
      patch: { $setElementOrder: [1] },
      code: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of setElementOrder list',
    },
    {
      name: '$retainKeys that is not a list',
      original: { retainKeysMap: {} },
      patch: { retainKeysMap: { $retainKeys: 'name' } },
      code: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of retainKeys',
    },
    {
      name: 'a field $retainKeys does not name',
      original: { retainKeysMap: {} },
      patch: { retainKeysMap: { $retainKeys: ['name'], value: 'x' } },
      code: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of retainKeys',
    },
    {
      name: 'a list of lists',
      original: { mergingIntList: [] },
      patch: { mergingIntList: [[1]] },
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    },
    {
      name: 'a list field whose items are lists',
      original: { listOfLists: [['a']] },
      patch: { '$deleteFromPrimitiveList/listOfLists': [['a']] },
      code: 400,
      reason: 'BadRequest',
      message: 'unexpected slice of slice',
    },
    {
      name: 'an item without the merge key',
      original: { mergingList: [{ name: '1', value: 'a' }] },
      patch: { mergingList: [{ value: 'b' }] },
      code: 400,
      reason: 'BadRequest',
      message: 'map: map[value:b] does not contain declared merge key: name',
    },
    {
      name: '$patch: delete without the merge key',
      original: { mergingList: [{ name: '1' }] },
      patch: { mergingList: [{ $patch: 'delete' }] },
      code: 400,
      reason: 'BadRequest',
      message: 'map: map[$patch:delete] does not contain declared merge key: name',
    },
    {
      name: '$patch: merge in a map',
      original: { simpleMap: {} },
      patch: { simpleMap: { $patch: 'merge' } },
      code: 400,
      reason: 'BadRequest',
      message: 'unknown patch type: merge in map: map[$patch:merge]',
    },
    {
      name: 'an unknown $patch in a map',
      original: {},
      patch: { $patch: 1, a: true },
      code: 400,
      reason: 'BadRequest',
      message: 'unknown patch type: %!s(int64=1) in map: map[$patch:1 a:true]',
    },
    {
      name: '$patch: merge in a list',
      original: { mergingList: [{ name: '1' }] },
      patch: { mergingList: [{ name: '1', $patch: 'merge' }] },
      code: 400,
      reason: 'BadRequest',
      message: 'merging lists cannot yet be specified in the patch',
    },
    {
      name: 'an unknown $patch in a list',
      original: { mergingList: [{ name: '1' }] },
      patch: { mergingList: [{ name: '1', $patch: 'x' }] },
      code: 400,
      reason: 'BadRequest',
      message: 'unknown patch type: x in map: map[$patch:x name:1]',
    },
    {
      name: 'items of different types',
      original: { mergingIntList: [1, 2] },
      patch: { mergingIntList: ['a'] },
      code: 400,
      reason: 'BadRequest',
      message: 'list element types are not identical: [[1 2] [a]]',
    },
    {
      name: 'a merged list of objects without a merge key',
      original: { mergingListWithoutKey: [{ name: '1' }] },
      patch: { mergingListWithoutKey: [{ name: '2' }] },
      code: 400,
      reason: 'BadRequest',
      message: 'cannot merge lists without merge key for struct',
    },
    {
      name: 'a patch list out of $setElementOrder order',
      original: { mergingList: [{ name: '1' }, { name: '3' }, { name: '2' }] },
      patch: {
        '$setElementOrder/mergingList': [{ name: '1' }, { name: '2' }, { name: '3' }],
        mergingList: [
          { name: '3', value: '3' },
          { name: '1', value: '1' },
        ],
      },
      code: 400,
      reason: 'BadRequest',
      message:
        "The order in patch list:\n[map[name:3 value:3] map[name:1 value:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n",
    },
    {
      name: '$setElementOrder that is not a list',
      original: {},
      patch: { '$setElementOrder/mergingList': 'x' },
      code: 400,
      reason: 'BadRequest',
      message: 'expected a []interface {}, but received a string',
    },
    {
      name: '$setElementOrder of an unknown field',
      original: {},
      patch: { '$setElementOrder/nope': [] },
      code: 400,
      reason: 'BadRequest',
      message: 'unable to find api field in struct Object for the json field "nope"',
    },
    {
      name: '$setElementOrder of a field that is no list',
      original: {},
      patch: { '$setElementOrder/simpleMap': [] },
      code: 400,
      reason: 'BadRequest',
      message: 'expected slice or array type, but got: struct',
    },
    {
      name: 'objects inside a RawExtension',
      original: { raw: { a: { b: 1 } } },
      patch: { raw: { a: { c: 2 } } },
      code: 400,
      reason: 'BadRequest',
      message: 'unable to find api field in struct RawExtension for the json field "a"',
    },
  ]);
});

describe('object metadata', () => {
  const schema = kindSchema({ data: map(string()) });
  const owner = (uid: string, name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid });
  table(
    [
      {
        name: 'finalizers merge as a set and ownerReferences by uid',
        original: { kind: 'ConfigMap', metadata: { name: 'a', finalizers: ['x/a'], ownerReferences: [owner('1', 'one')], labels: { l: '1' } } },
        patch: { metadata: { finalizers: ['x/b'], ownerReferences: [{ uid: '1', name: 'renamed' }, owner('2', 'two')], labels: { l: null, m: '2' } } },
        result: {
          kind: 'ConfigMap',
          metadata: { name: 'a', finalizers: ['x/b', 'x/a'], ownerReferences: [{ ...owner('1', 'renamed') }, owner('2', 'two')], labels: { m: '2' } },
        },
      },
      {
        name: '$deleteFromPrimitiveList deletes finalizers',
        original: { kind: 'ConfigMap', metadata: { name: 'a', finalizers: ['x/a', 'x/b'] } },
        patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['x/a'] } },
        result: { kind: 'ConfigMap', metadata: { name: 'a', finalizers: ['x/b'] } },
      },
    ],
    schema,
  );

  it('names the kind in lookup errors', () => {
    assert.throws(() => applyStrategicMergePatch({ kind: 'ConfigMap' }, { '$setElementOrder/nope': [] }, schema), {
      message: 'unable to find api field in struct ConfigMap for the json field "nope"',
    });
  });
});

it('modifies neither the original nor the patch', () => {
  const original = { mergingList: [{ name: '1', value: '1' }], simpleMap: { a: '1' } };
  const patch = {
    mergingList: [
      { name: '1', value: null },
      { name: '2', $patch: 'delete' },
    ],
    simpleMap: { $patch: 'replace', b: '2' },
  };
  const originalCopy = structuredClone(original);
  const patchCopy = structuredClone(patch);
  applyStrategicMergePatch(original, patch, item);
  assert.deepEqual(original, originalCopy);
  assert.deepEqual(patch, patchCopy);
});

it('keeps a __proto__ key as data', () => {
  const result = applyStrategicMergePatch({ simpleMap: { a: '1' } }, JSON.parse('{"simpleMap":{"__proto__":"x"},"__proto__":{"y":1}}'), item) as Record<
    string,
    Record<string, unknown>
  >;
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.equal(Object.getPrototypeOf(result.simpleMap), Object.prototype);
  assert.deepEqual(Object.keys(result), ['simpleMap', '__proto__']);
  assert.deepEqual(Object.keys(result.simpleMap ?? {}), ['a', '__proto__']);
});
