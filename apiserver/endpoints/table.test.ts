import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../shared/api/types.ts';
import type { TableDefinition } from '../registry/definition.ts';
import { age, ageColumn, nameColumn } from '../registry/table.ts';
import { toTable } from './table.ts';

const now = new Date('2024-05-01T12:00:00Z');
const created = '2024-05-01T11:56:40Z';

function obj(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Thing', metadata: { name, creationTimestamp: created, resourceVersion: '7' }, ...extra };
}

interface Thing extends KubeObject {
  size?: number;
}

/** A core kind, so that `obj()`'s apiVersion is the kind's own. */
const thingKind = { group: '', version: 'v1', kind: 'Thing' };

const thingTable: TableDefinition<Thing> = {
  columns: [
    nameColumn,
    { name: 'Size', type: 'integer', description: 'How big.' },
    ageColumn,
    { name: 'Extra', type: 'string', priority: 1, description: 'Wide only.' },
  ],
  cells: (thing, at) => [thing.metadata.name, thing.size ?? 0, age(thing, at), 'x'],
};

test('a kind without its own table gets the default Name / Created At columns', () => {
  const table = toTable(thingKind, [obj('a')], { resourceVersion: '9' }, 'None', 'v1', now);
  assert.equal(table.kind, 'Table');
  assert.equal(table.apiVersion, 'meta.k8s.io/v1');
  assert.deepEqual(table.metadata, { resourceVersion: '9' });
  const columns = table.columnDefinitions as { name: string; type: string; format: string; priority: number }[];
  assert.deepEqual(
    columns.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Created At', 'date', '', 0],
    ],
  );
  assert.deepEqual(table.rows, [{ cells: ['a', created] }]);
});

test('the default Created At cell is null without a creation time', () => {
  const table = toTable(thingKind, [{ apiVersion: 'v1', kind: 'Thing', metadata: { name: 'a' } }], { resourceVersion: '1' }, 'None', 'v1', now);
  assert.deepEqual(table.rows, [{ cells: ['a', null] }]);
});

test("a kind's table gives its columns, every field present, and its cells for each object", () => {
  const table = toTable({ ...thingKind, table: thingTable }, [obj('a', { size: 3 }), obj('b')], { resourceVersion: '9' }, 'None', 'v1', now);
  assert.deepEqual(table.columnDefinitions, [
    { name: 'Name', type: 'string', format: 'name', description: nameColumn.description, priority: 0 },
    { name: 'Size', type: 'integer', format: '', description: 'How big.', priority: 0 },
    { name: 'Age', type: 'string', format: '', description: ageColumn.description, priority: 0 },
    { name: 'Extra', type: 'string', format: '', description: 'Wide only.', priority: 1 },
  ]);
  assert.deepEqual(table.rows, [{ cells: ['a', 3, '3m20s', 'x'] }, { cells: ['b', 0, '3m20s', 'x'] }]);
});

test('includeObject selects what each row carries', () => {
  const thing = obj('a', { size: 1 });
  const none = toTable({ ...thingKind, table: thingTable }, [thing], { resourceVersion: '1' }, 'None', 'v1', now);
  assert.equal((none.rows as Record<string, unknown>[])[0]?.object, undefined);
  const metadata = toTable({ ...thingKind, table: thingTable }, [thing], { resourceVersion: '1' }, 'Metadata', 'v1', now);
  assert.deepEqual((metadata.rows as Record<string, unknown>[])[0]?.object, {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: thing.metadata,
  });
  const whole = toTable(thingKind, [thing], { resourceVersion: '1' }, 'Object', 'v1beta1', now);
  assert.equal(whole.apiVersion, 'meta.k8s.io/v1beta1');
  assert.deepEqual((whole.rows as Record<string, unknown>[])[0]?.object, thing);
});

test('with includeObject=Object, a row object without apiVersion and kind (a list item) is given them; the item is not changed', () => {
  const item: KubeObject = { metadata: { name: 'a', resourceVersion: '3' }, data: { k: 'v' } };
  const grouped = { group: 'example.com', version: 'v2', kind: 'Widget' };
  const table = toTable(grouped, [item], { resourceVersion: '3' }, 'Object', 'v1', now);
  const object = (table.rows as Record<string, unknown>[])[0]?.object;
  assert.deepEqual(object, { kind: 'Widget', apiVersion: 'example.com/v2', metadata: item.metadata, data: { k: 'v' } });
  // Upstream's encoding of a typed object starts with kind, then apiVersion.
  assert.deepEqual(Object.keys(object as object).slice(0, 2), ['kind', 'apiVersion']);
  assert.deepEqual(item, { metadata: { name: 'a', resourceVersion: '3' }, data: { k: 'v' } });

  const core = toTable(thingKind, [{ metadata: { name: 'b' } }], { resourceVersion: '3' }, 'Object', 'v1', now);
  assert.deepEqual((core.rows as Record<string, unknown>[])[0]?.object, { kind: 'Thing', apiVersion: 'v1', metadata: { name: 'b' } });

  // A served object, which names them already, is carried as it is.
  const served = obj('c');
  const same = toTable(thingKind, [served], { resourceVersion: '3' }, 'Object', 'v1', now);
  assert.equal((same.rows as Record<string, unknown>[])[0]?.object, served);
});

test('list metadata carries continue and remainingItemCount', () => {
  const table = toTable(thingKind, [], { resourceVersion: '5', continue: 'tok', remainingItemCount: 3 }, 'None', 'v1', now);
  assert.deepEqual(table.metadata, { resourceVersion: '5', continue: 'tok', remainingItemCount: 3 });
  assert.deepEqual(table.rows, []);
});
