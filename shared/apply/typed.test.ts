import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  anyValue,
  array,
  atomicArray,
  int32,
  keyedArray,
  kindSchema,
  labelSelector,
  map,
  number,
  object,
  pb,
  quantity,
  setArray,
  string,
  type Schema,
} from '../api/schema.ts';
import { FieldSet, keyElement, makePath, pathString, toFieldsV1, valueElement } from './fieldpath.ts';
import {
  compare,
  compareSteps,
  dropNullFields,
  ensureNamedFieldsAreMembers,
  merge,
  mergeSteps,
  removeItems,
  toFieldSet,
  toFieldSetSteps,
  validate,
  validationErrorsString,
  withGoStructs,
} from './typed.ts';

const port = object({ containerPort: int32(), protocol: { ...string(), default: 'TCP' } });
const container = object({ name: string(), image: string(), ports: keyedArray(port, ['containerPort', 'protocol']) });

const thingSchema: Schema = kindSchema({
  data: map(string()),
  spec: object({
    replicas: int32(),
    ratio: number(),
    selector: { ...labelSelector(), 'x-kubernetes-map-type': 'atomic' },
    template: object({ labels: map(string()), note: string() }),
    containers: keyedArray(container, ['name']),
    finalizers: setArray(string()),
    args: atomicArray(string()),
    legacy: array(object({ name: string(), value: string() }), { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' }),
    raw: anyValue(),
    size: quantity(),
  }),
});

const fields = (value: unknown): string => JSON.stringify(toFieldsV1(toFieldSet(value, thingSchema)));
const paths = (set: FieldSet): string[] => set.paths().map(pathString);
const byName = (name: string) => keyElement([{ name: 'name', value: name }]);

test('the fields an applied object sets: leaves, map entries, list items, atomic values whole', () => {
  const config = {
    apiVersion: 'v1',
    kind: 'Thing',
    metadata: { name: 'x', labels: { a: 'b' } },
    data: { k: 'v' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { a: 'b' } },
      containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }],
      finalizers: ['x'],
      args: ['a', 'b'],
      legacy: [{ name: 'n', value: 'v' }],
      raw: { any: { thing: 1 } },
      size: '1Gi',
    },
  };
  // Struct fields (data, spec, metadata.labels) are not members; map entries and list items are.
  // The port's protocol key comes from its schema default.
  assert.equal(
    fields(config),
    '{"f:apiVersion":{},"f:data":{"f:k":{}},"f:kind":{},"f:metadata":{"f:labels":{"f:a":{}},"f:name":{}},"f:spec":{' +
      '"f:args":{},"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}},' +
      '"f:finalizers":{"v:\\"x\\"":{}},"f:legacy":{"k:{\\"name\\":\\"n\\"}":{".":{},"f:name":{},"f:value":{}}},"f:raw":{},"f:replicas":{},"f:selector":{},"f:size":{}}}',
  );
});

test('null and empty struct fields are owned; empty granular lists are not; atomic lists are', () => {
  assert.equal(fields({ data: {}, spec: { template: null, finalizers: [], args: [] } }), '{"f:data":{},"f:spec":{"f:args":{},"f:template":{}}}');
});

test('duplicated list items are owned as a whole, without their fields', () => {
  const value = { spec: { containers: [{ name: 'a', image: '1' }, { name: 'a', image: '2' }, { name: 'b' }] } };
  assert.deepEqual(paths(toFieldSet(value, thingSchema)), ['.spec.containers[name="a"]', '.spec.containers[name="b"]', '.spec.containers[name="b"].name']);
});

test('compare: leaves are modified; whatever appears or disappears is added or removed with its parents', () => {
  const live = { data: { a: '1', b: '2' }, spec: { replicas: 1, args: ['x'], template: { note: 'n' } } };
  const next = { metadata: { labels: { x: 'y' } }, data: { a: '1', b: '3', c: '4' }, spec: { args: ['y'], template: { note: 'n' } } };
  const c = compare(live, next, thingSchema);
  assert.deepEqual(paths(c.added), ['.metadata', '.data.c', '.metadata.labels', '.metadata.labels.x']);
  assert.deepEqual(paths(c.modified), ['.data.b', '.spec.args']);
  assert.deepEqual(paths(c.removed), ['.spec.replicas']);
});

test('compare: keyed items by key, set items by value, duplicates as one atomic value', () => {
  const live = { spec: { containers: [{ name: 'a', image: '1' }, { name: 'b' }], finalizers: ['x', 'y'] } };
  const next = { spec: { containers: [{ name: 'b' }, { name: 'a', image: '2' }, { name: 'c' }], finalizers: ['y'] } };
  const c = compare(live, next, thingSchema);
  assert.deepEqual(paths(c.modified), ['.spec.containers[name="a"].image']);
  assert.deepEqual(paths(c.added), ['.spec.containers[name="c"]', '.spec.containers[name="c"].name']);
  assert.deepEqual(paths(c.removed), ['.spec.finalizers[="x"]']);
  const dup = compare({ spec: { finalizers: ['x', 'x'] } }, { spec: { finalizers: ['x'] } }, thingSchema);
  // Duplicates resolved into one item: the duplicate marker is removed, the single item added.
  assert.deepEqual(paths(dup.removed), ['.spec.finalizers[="x"]']);
  assert.deepEqual(paths(dup.added), ['.spec.finalizers[="x"]']);
  // Empty on both sides is one leaf: [] and null differ.
  assert.deepEqual(paths(compare({ spec: { finalizers: [] } }, { spec: { finalizers: null } }, thingSchema).modified), ['.spec.finalizers']);
});

test('merge: the applied side wins leaves; structs, maps, keyed lists and sets merge; atomic values are replaced', () => {
  const live = {
    data: { a: '1', b: '2' },
    spec: { replicas: 1, selector: { matchLabels: { x: '1' } }, args: ['a', 'b'], containers: [{ name: 'a', image: '1' }, { name: 'b' }] },
  };
  const applied = {
    data: { b: '3', c: '4' },
    spec: { selector: { matchExpressions: [] }, args: ['c'], containers: [{ name: 'a', ports: [{ containerPort: 80 }] }] },
  };
  assert.deepEqual(merge(live, applied, thingSchema), {
    data: { a: '1', b: '3', c: '4' },
    spec: {
      replicas: 1,
      selector: { matchExpressions: [] },
      args: ['c'],
      containers: [{ name: 'a', image: '1', ports: [{ containerPort: 80 }] }, { name: 'b' }],
    },
  });
});

test('merge keeps upstream order for set items', () => {
  const set = (lhs: string[], rhs: string[]): unknown =>
    (merge({ spec: { finalizers: lhs } }, { spec: { finalizers: rhs } }, thingSchema) as { spec: unknown }).spec;
  assert.deepEqual(set(['a', 'b', 'c', 'g', 'f'], ['c', 'd', 'e', 'f']), { finalizers: ['a', 'b', 'c', 'g', 'd', 'e', 'f'] });
  assert.deepEqual(set(['a', 'b', 'c', 'd'], ['d', 'e', 'f', 'a']), { finalizers: ['b', 'c', 'd', 'e', 'f', 'a'] });
  assert.deepEqual(set(['a', 'b', 'c', 'd', 'e', 'c'], ['1', 'b', '2', 'e', 'd']), { finalizers: ['a', '1', 'b', 'c', '2', 'e', 'c', 'd'] });
  assert.deepEqual(set(['a', 'a', 'b', 'b'], ['b', 'c', 'd']), { finalizers: ['a', 'a', 'b', 'c', 'd'] });
});

test('merge rejects duplicates in the applied list', () => {
  assert.throws(
    () => merge({}, { spec: { finalizers: ['a', 'a'] } }, thingSchema),
    (err: Error) => err.message === '.spec.finalizers: duplicate entries for key [="a"]',
  );
});

test('validate: messages and paths of upstream', () => {
  const messages = (value: unknown, allowDuplicates = false): string[] => validate(value, thingSchema, allowDuplicates).map((e) => `${e.path}: ${e.message}`);
  assert.deepEqual(messages({ spec: { unknown: 1 } }), ['.spec.unknown: field not declared in schema']);
  assert.deepEqual(messages({ data: { a: 1 } }), ['.data.a: expected string, got &value.valueUnstructured{Value:1}']);
  assert.deepEqual(messages({ spec: { replicas: 'x' } }), ['.spec.replicas: expected numeric (int or float), got string']);
  assert.deepEqual(messages({ spec: { containers: [{ name: 'a' }, { name: 'a' }] } }), ['.spec.containers: duplicate entries for key [name="a"]']);
  assert.deepEqual(messages({ spec: { containers: [{ name: 'a' }, { name: 'a' }] } }, true), []);
  assert.deepEqual(messages({ spec: { containers: [{ image: 'x' }] } }), [
    '.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
  ]);
  assert.deepEqual(messages({ spec: { finalizers: [{ a: 1 }] } }), [
    ".spec.finalizers: element 0: associative list without keys has an element that's a map type",
  ]);
  assert.deepEqual(messages({ spec: { args: 'x' } }), ['.spec.args: expected list, got &{x}']);
  assert.deepEqual(messages({ spec: { raw: { free: ['form'] }, size: 3 }, metadata: { creationTimestamp: null } }), []);
  const errors = validate({ data: { a: 1 }, spec: { replicas: 'x' } }, thingSchema);
  assert.equal(
    validationErrorsString(errors),
    'errors:\n  .data.a: expected string, got &value.valueUnstructured{Value:1}\n  .spec.replicas: expected numeric (int or float), got string',
  );
});

test('removeItems: members go with everything below them; emptied structs and maps disappear', () => {
  const value = { data: { a: '1', b: '2' }, spec: { containers: [{ name: 'a', image: '1' }, { name: 'b' }], replicas: 2 } };
  assert.deepEqual(removeItems(value, FieldSet.of(makePath('data', 'a'), makePath('spec', 'containers', byName('b'))), thingSchema), {
    data: { b: '2' },
    spec: { containers: [{ name: 'a', image: '1' }], replicas: 2 },
  });
  assert.deepEqual(removeItems(value, FieldSet.of(makePath('data', 'a'), makePath('data', 'b'), makePath('spec', 'replicas')), thingSchema), {
    spec: { containers: [{ name: 'a', image: '1' }, { name: 'b' }] },
  });
  assert.deepEqual(removeItems(value, FieldSet.of(makePath('spec')), thingSchema), { data: { a: '1', b: '2' } });
  assert.deepEqual(removeItems({ spec: { finalizers: ['x', 'y'] } }, FieldSet.of(makePath('spec', 'finalizers', valueElement('x'))), thingSchema), {
    spec: { finalizers: ['y'] },
  });
});

test('ensureNamedFieldsAreMembers makes struct fields with owned paths below them members', () => {
  const set = FieldSet.of(makePath('spec', 'containers', byName('c'), 'image'), makePath('data', 'a'), makePath('metadata', 'labels', 'x'));
  assert.deepEqual(paths(ensureNamedFieldsAreMembers(set, thingSchema)), [
    '.data',
    '.metadata',
    '.spec',
    '.data.a',
    '.metadata.labels',
    '.metadata.labels.x',
    '.spec.containers',
    '.spec.containers[name="c"].image',
  ]);
});

test('dropNullFields drops null struct fields only', () => {
  assert.deepEqual(dropNullFields({ metadata: { labels: null, name: 'x' }, data: { a: null }, spec: { raw: { n: null }, template: null } }, thingSchema), {
    metadata: { name: 'x' },
    data: { a: null },
    spec: { raw: { n: null } },
  });
});

test('dropNullFields copies only what holds a dropped null, in key order, and shares the rest', () => {
  const labels: Record<string, string> = {};
  for (let i = 0; i < 1000; i++) labels[`l${i}`] = `v${i}`;
  const clean = { metadata: { name: 'x', labels }, data: { a: null } };
  assert.equal(dropNullFields(clean, thingSchema), clean);
  const value = { data: { a: 'b' }, metadata: { labels, namespace: null, name: 'x' }, spec: { raw: { n: null } } };
  const dropped = dropNullFields(value, thingSchema) as typeof value;
  assert.notEqual(dropped, value);
  assert.deepEqual(Object.keys(dropped), ['data', 'metadata', 'spec']);
  assert.deepEqual(dropped.metadata, { labels, name: 'x' });
  assert.deepEqual(Object.keys(dropped.metadata), ['labels', 'name']);
  assert.equal(dropped.metadata.labels, labels);
  assert.equal(dropped.data, value.data);
  assert.equal(dropped.spec, value.spec);
  assert.deepEqual(value.metadata, { labels, namespace: null, name: 'x' });
});

test('withGoStructs fills struct fields Go holds by value, not pointers, maps or lists', () => {
  const goSchema = kindSchema({
    spec: pb(
      1,
      object({ inner: pb(1, object({ a: pb(1, string()) })), pointer: pb(2, object({ b: pb(1, string()) }), 'optional'), labels: pb(3, map(string())) }),
    ),
    items: pb(2, keyedArray(object({ name: pb(1, string()), nested: pb(2, object({ c: pb(1, string()) })) }), ['name'])),
  });
  assert.deepEqual(withGoStructs({ items: [{ name: 'x' }], spec: null }, goSchema), {
    metadata: {},
    items: [{ name: 'x', nested: {} }],
    spec: { inner: {} },
  });
  // So creating spec.inner.a owns the leaf only, as upstream's Go objects have spec and inner already.
  const c = compare(withGoStructs({}, goSchema), withGoStructs({ spec: { inner: { a: 'v' }, pointer: { b: 'w' } } }, goSchema), goSchema);
  assert.deepEqual(paths(c.added), ['.spec.pointer', '.spec.inner.a', '.spec.pointer.b']);
});

test('the walks of a large map yield between entries and compute what they compute in one go', () => {
  const labels = (prefix: string): Record<string, string> => Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`l${i}`, `${prefix}${i}`]));
  const live = { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'x', labels: labels('a') }, data: { k: 'v' } };
  const config = { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'x', labels: { ...labels('b'), extra: 'e' } } };
  const drain = <T>(steps: Generator<void, T, undefined>): { value: T; yields: number } => {
    let yields = 0;
    for (;;) {
      const next = steps.next();
      if (next.done) return { value: next.value, yields };
      yields++;
    }
  };
  const set = drain(toFieldSetSteps(config, thingSchema));
  assert.ok(set.yields > 1);
  assert.equal(set.value.size(), 5004);
  assert.ok(set.value.has(makePath('metadata', 'labels', 'l4999')));
  assert.deepEqual(paths(set.value), paths(toFieldSet(config, thingSchema)));
  const compared = drain(compareSteps(live, config, thingSchema));
  assert.ok(compared.yields > 1);
  assert.equal(compared.value.modified.size(), 5000);
  assert.deepEqual(paths(compared.value.added), ['.metadata.labels.extra']);
  assert.deepEqual(paths(compared.value.removed), ['.data', '.data.k']);
  assert.deepEqual(paths(compared.value.removed), paths(compare(live, config, thingSchema).removed));
  const merged = drain(mergeSteps(live, config, thingSchema));
  assert.ok(merged.yields > 1);
  assert.deepEqual(merged.value, merge(live, config, thingSchema));
  assert.deepEqual(Object.keys((merged.value as { metadata: { labels: object } }).metadata.labels).slice(-2), ['l4999', 'extra']);
});
