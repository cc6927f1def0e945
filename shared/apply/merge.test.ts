import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atomicArray, int32, keyedArray, kindSchema, labelSelector, map, number, object, setArray, string } from '../api/schema.ts';
import { FieldSet, makePath, pathString } from './fieldpath.ts';
import { ApplyConflictError, applyConfiguration, recordUpdate, type ManagedSets, type UpdaterOptions } from './merge.ts';

const schema = kindSchema({
  data: map(string()),
  spec: object({
    replicas: int32(),
    ratio: number(),
    note: string(),
    selector: { ...labelSelector(), 'x-kubernetes-map-type': 'atomic' },
    containers: keyedArray(object({ name: string(), image: string(), workingDir: string() }), ['name']),
    finalizers: setArray(string()),
    args: atomicArray(string()),
  }),
  status: object({ phase: string(), message: string() }),
});

const opts: UpdaterOptions = { schema, apiVersion: 'v1' };

type Op = { apply: Record<string, unknown>; by: string; force?: boolean; conflicts?: string[] } | { update: Record<string, unknown>; by: string };

interface Case {
  name: string;
  ops: Op[];
  object: Record<string, unknown>;
  /** Manager → owned paths (applied managers marked with a leading `apply:`). */
  managed: Record<string, string[]>;
  options?: UpdaterOptions;
}

function run(ops: Op[], options: UpdaterOptions = opts, start: ManagedSets = new Map()): { object: Record<string, unknown>; managers: ManagedSets } {
  let object: Record<string, unknown> = {};
  let managers = start;
  for (const op of ops) {
    if ('update' in op) {
      managers = recordUpdate(options, object, op.update, managers, op.by);
      object = op.update;
      continue;
    }
    try {
      const result = applyConfiguration(options, object, op.apply, managers, op.by, op.force ?? false);
      assert.equal(op.conflicts, undefined, `expected conflicts for ${op.by}`);
      managers = result.managers;
      object = result.object ?? object;
    } catch (err) {
      if (!(err instanceof ApplyConflictError) || !op.conflicts) throw err;
      assert.deepEqual(
        err.conflicts.map((c) => `${c.manager} ${pathString(c.path)}`),
        op.conflicts,
      );
    }
  }
  return { object, managers };
}

function owned(managers: ManagedSets): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [manager, m] of managers) out[m.applied ? `apply:${manager}` : manager] = m.set.paths().map(pathString);
  return out;
}

const containers = (...names: string[]) => names.map((name) => ({ name }));

const cases: Case[] = [
  {
    name: 'an apply owns exactly what it applied; what it stops applying goes',
    ops: [
      { apply: { spec: { replicas: 1, note: 'a' } }, by: 'default' },
      { apply: { spec: { replicas: 2, ratio: 0.5 } }, by: 'default' },
    ],
    object: { spec: { replicas: 2, ratio: 0.5 } },
    managed: { 'apply:default': ['.spec.ratio', '.spec.replicas'] },
  },
  {
    name: 'an update owns what it adds, without conflicts',
    ops: [
      { apply: { spec: { replicas: 1, note: 's' } }, by: 'default' },
      { update: { spec: { replicas: 1, note: 's', ratio: 1.5 } }, by: 'controller' },
      { apply: { spec: { replicas: 2, note: 's' } }, by: 'default' },
    ],
    object: { spec: { replicas: 2, note: 's', ratio: 1.5 } },
    managed: { 'apply:default': ['.spec.note', '.spec.replicas'], controller: ['.spec.ratio'] },
  },
  {
    name: 'an update takes a field over; applying another value conflicts; force takes it back',
    ops: [
      { apply: { spec: { replicas: 1, note: 's' } }, by: 'default' },
      { update: { spec: { replicas: 1, note: 'controller', ratio: 1 } }, by: 'controller' },
      { apply: { spec: { replicas: 2, note: 'user' } }, by: 'default', conflicts: ['controller .spec.note'] },
      { apply: { spec: { replicas: 2, note: 'user' } }, by: 'default', force: true },
    ],
    object: { spec: { replicas: 2, note: 'user', ratio: 1 } },
    managed: { 'apply:default': ['.spec.note', '.spec.replicas'], controller: ['.spec.ratio'] },
  },
  {
    name: 'appliers of the same value share the field; it stays while one of them applies it',
    ops: [
      { apply: { spec: { replicas: 3, note: 'n' } }, by: 'one' },
      { apply: { spec: { replicas: 3, note: 'n' } }, by: 'two' },
      { apply: { spec: { note: 'n' } }, by: 'one' },
    ],
    object: { spec: { replicas: 3, note: 'n' } },
    managed: { 'apply:one': ['.spec.note'], 'apply:two': ['.spec.note', '.spec.replicas'] },
  },
  {
    name: 'a field the applier no longer owns (an updater took it) survives its omission',
    ops: [
      { apply: { spec: { replicas: 3, note: 'n' } }, by: 'applier' },
      { update: { spec: { replicas: 4, note: 'n' } }, by: 'updater' },
      { apply: { spec: { note: 'n' } }, by: 'applier' },
    ],
    object: { spec: { replicas: 4, note: 'n' } },
    managed: { 'apply:applier': ['.spec.note'], updater: ['.spec.replicas'] },
  },
  {
    name: 'a list item the applier drops goes, even where an updater changed a field of it',
    ops: [
      { apply: { spec: { containers: containers('nginx') } }, by: 'applier' },
      { update: { spec: { containers: [{ name: 'nginx', workingDir: '/w' }] } }, by: 'updater' },
      { apply: { spec: { containers: containers('other') } }, by: 'applier' },
    ],
    object: { spec: { containers: containers('other') } },
    // The removal takes the item's fields from the updater too.
    managed: { 'apply:applier': ['.spec.containers[name="other"]', '.spec.containers[name="other"].name'] },
  },
  {
    name: 'keyed list: items of other appliers stay (upstream remove_one_keep_one)',
    ops: [
      { apply: { spec: { containers: containers('a', 'b', 'c') } }, by: 'one' },
      { apply: { spec: { containers: containers('c', 'd') } }, by: 'two' },
      { apply: { spec: { containers: containers('a') } }, by: 'one' },
    ],
    object: { spec: { containers: containers('a', 'c', 'd') } },
    managed: {
      'apply:one': ['.spec.containers[name="a"]', '.spec.containers[name="a"].name'],
      'apply:two': ['.spec.containers[name="c"]', '.spec.containers[name="d"]', '.spec.containers[name="c"].name', '.spec.containers[name="d"].name'],
    },
  },
  {
    name: 'keyed list: changing a field another applier owns conflicts at the field',
    ops: [
      { apply: { spec: { containers: [{ name: 'a', image: '0' }] } }, by: 'one' },
      { apply: { spec: { containers: [{ name: 'a', image: '1' }] } }, by: 'two', conflicts: ['one .spec.containers[name="a"].image'] },
    ],
    object: { spec: { containers: [{ name: 'a', image: '0' }] } },
    managed: { 'apply:one': ['.spec.containers[name="a"]', '.spec.containers[name="a"].image', '.spec.containers[name="a"].name'] },
  },
  {
    name: 'set: items are owned one by one',
    ops: [
      { apply: { spec: { finalizers: ['a', 'b'] } }, by: 'one' },
      { apply: { spec: { finalizers: ['b', 'c'] } }, by: 'two' },
      { apply: { spec: { finalizers: [] } }, by: 'one' },
    ],
    object: { spec: { finalizers: ['b', 'c'] } },
    managed: { 'apply:two': ['.spec.finalizers[="b"]', '.spec.finalizers[="c"]'] },
  },
  {
    name: 'atomic list: owned whole; another applier conflicts, and by force replaces it',
    ops: [
      { apply: { spec: { args: ['a', 'b'] } }, by: 'one' },
      { apply: { spec: { args: ['c'] } }, by: 'two', conflicts: ['one .spec.args'] },
      { apply: { spec: { args: ['c'] } }, by: 'two', force: true },
    ],
    object: { spec: { args: ['c'] } },
    managed: { 'apply:two': ['.spec.args'] },
  },
  {
    name: 'granular map: entries are owned one by one and removed by their applier',
    ops: [
      { apply: { data: { a: '1', b: '2' } }, by: 'one' },
      { apply: { data: { c: '3' } }, by: 'two' },
      { apply: { data: { a: '1' } }, by: 'one' },
    ],
    object: { data: { a: '1', c: '3' } },
    managed: { 'apply:one': ['.data.a'], 'apply:two': ['.data.c'] },
  },
  {
    name: 'atomic map: owned whole, replaced whole',
    ops: [
      { apply: { spec: { selector: { matchLabels: { a: 'b' } } } }, by: 'one' },
      { apply: { spec: { selector: { matchExpressions: [] } } }, by: 'two', conflicts: ['one .spec.selector'] },
      { apply: { spec: { selector: { matchExpressions: [] } } }, by: 'two', force: true },
    ],
    object: { spec: { selector: { matchExpressions: [] } } },
    managed: { 'apply:two': ['.spec.selector'] },
  },
  {
    name: 'an update removing a field takes it from every owner',
    ops: [
      { apply: { data: { a: '1', b: '2' } }, by: 'one' },
      { apply: { data: { a: '1' } }, by: 'two' },
      { update: { data: { b: '2' } }, by: 'editor' },
    ],
    object: { data: { b: '2' } },
    managed: { 'apply:one': ['.data.b'] },
  },
  {
    name: 'conflicts with several managers, ordered by manager',
    ops: [
      { apply: { data: { a: '1' } }, by: 'm2' },
      { update: { data: { a: '1', b: '2' } }, by: 'm1' },
      { apply: { data: { a: 'x', b: 'y' } }, by: 'me', conflicts: ['m1 .data.b', 'm2 .data.a'] },
    ],
    object: { data: { a: '1', b: '2' } },
    managed: { 'apply:m2': ['.data.a'], m1: ['.data.b'] },
  },
  {
    name: 'reset fields (status through the main resource) are neither owned nor conflicting',
    options: { ...opts, resetFields: FieldSet.of(makePath('status')) },
    ops: [
      { apply: { spec: { note: 'n' }, status: { phase: 'A' } }, by: 'one' },
      { apply: { status: { phase: 'B' } }, by: 'two' },
    ],
    object: { spec: { note: 'n' }, status: { phase: 'B' } },
    managed: { 'apply:one': ['.spec.note'] },
  },
];

for (const c of cases) {
  test(`apply: ${c.name}`, () => {
    const { object, managers } = run(c.ops, c.options);
    assert.deepEqual(object, c.object);
    assert.deepEqual(owned(managers), c.managed);
  });
}

test('an apply that changes nothing in the object reports no object, but still records ownership', () => {
  const live = { data: { a: '1' } };
  const first = applyConfiguration(opts, {}, live, new Map(), 'one', false);
  const second = applyConfiguration(opts, live, { data: { a: '1' } }, first.managers, 'two', false);
  assert.equal(second.object, null);
  assert.deepEqual(owned(second.managers), { 'apply:one': ['.data.a'], 'apply:two': ['.data.a'] });
});

test('sets recorded at another API version are carried unchanged', () => {
  const managers: ManagedSets = new Map([['old', { set: FieldSet.of(makePath('data', 'a')), apiVersion: 'v1beta1', applied: false }]]);
  const result = applyConfiguration(opts, { data: { a: '1' } }, { data: { a: '2' } }, managers, 'me', false);
  assert.deepEqual(result.object, { data: { a: '2' } });
  assert.deepEqual(owned(result.managers), { old: ['.data.a'], 'apply:me': ['.data.a'] });
});

test('an update records its changes and keeps what it owned before', () => {
  let managers = recordUpdate(opts, {}, { data: { a: '1' }, spec: { note: 'n' } }, new Map(), 'kubectl');
  assert.deepEqual(owned(managers), { kubectl: ['.data', '.spec', '.data.a', '.spec.note'] });
  managers = recordUpdate(opts, { data: { a: '1' }, spec: { note: 'n' } }, { data: { a: '1' }, spec: {} }, managers, 'kubectl');
  assert.deepEqual(owned(managers), { kubectl: ['.data', '.spec', '.data.a'] });
});
