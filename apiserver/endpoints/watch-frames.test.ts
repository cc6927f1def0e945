import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../shared/api/types.ts';
import { configMapDefinition } from '../registry/core/configmap.ts';
import type { Representation } from './negotiation.ts';
import { toTable } from './table.ts';
import { eventEncoder, tableFrame } from './watch-frames.ts';

const created = '2024-05-01T11:56:40Z';
const now = new Date('2024-05-01T12:00:00Z');

function configMap(name: string, value = 'x'.repeat(1000)): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', resourceVersion: '42', creationTimestamp: created, uid: `uid-${name}` },
    data: { big: value },
  };
}

const table: Representation = { kind: 'table', format: 'json', version: 'v1' };

/** A frame encoded at once, as every frame of a small object is. */
function bytes(frame: Uint8Array | Promise<Uint8Array>): Uint8Array {
  assert.ok(frame instanceof Uint8Array, 'a small object is encoded at once');
  return frame;
}

function decode(frame: Uint8Array | Promise<Uint8Array>): {
  type: string;
  object: Record<string, unknown> & { columnDefinitions: unknown[]; rows: { cells: unknown[]; object?: unknown }[] };
} {
  const text = Buffer.from(bytes(frame)).toString('utf8');
  assert.ok(text.endsWith('\n'), 'a JSON frame is one line');
  return JSON.parse(text) as ReturnType<typeof decode>;
}

describe('eventEncoder', () => {
  it('gives every object or metadata watch of an event the same bytes', () => {
    const object = configMap('a');
    for (const representation of [
      { kind: 'object', format: 'json' },
      { kind: 'object', format: 'protobuf' },
      { kind: 'metadata', format: 'json', version: 'v1' },
      { kind: 'metadata', format: 'protobuf', version: 'v1' },
    ] satisfies Representation[]) {
      const one = eventEncoder(configMapDefinition, representation, 'Metadata');
      const other = eventEncoder(configMapDefinition, representation, 'Metadata');
      assert.equal(one('MODIFIED', object, now), other('MODIFIED', object, now), JSON.stringify(representation));
    }
  });

  it("gives Table watches of one variant the same bytes: columns in each watch's first event only", () => {
    const first = configMap('a');
    const second = configMap('b');
    const early = eventEncoder(configMapDefinition, table, 'Object');
    const late = eventEncoder(configMapDefinition, table, 'Object');
    const earlyFirst = early('ADDED', first, now);
    const earlySecond = early('ADDED', second, now);
    const lateFirst = late('ADDED', second, now);
    // The late watcher's first event is the early one's second: same event, other variant.
    assert.notEqual(lateFirst, earlySecond);
    assert.equal(decode(earlyFirst).object.columnDefinitions.length, 3);
    assert.equal(decode(lateFirst).object.columnDefinitions.length, 3);
    assert.deepEqual(decode(earlySecond).object.columnDefinitions, []);
    assert.deepEqual(decode(late('ADDED', first, now)).object.columnDefinitions, []);
    const third = eventEncoder(configMapDefinition, table, 'Object');
    assert.equal(third('ADDED', first, now), earlyFirst, 'a first event is shared between first events');
    assert.equal(third('ADDED', second, now), earlySecond, 'a later event is shared between later events');
  });

  it('keeps includeObject, Table version and event type apart', () => {
    const object = configMap('a');
    const frames = new Set<Uint8Array>();
    for (const includeObject of ['None', 'Metadata', 'Object'] as const) {
      for (const version of ['v1', 'v1beta1'] as const) {
        for (const type of ['ADDED', 'MODIFIED']) frames.add(tableFrame(configMapDefinition, type, object, { includeObject, version, columns: false }, now));
      }
    }
    assert.equal(frames.size, 12);
  });
});

describe('tableFrame', () => {
  it('is byte for byte the Table of the event as of `now`', () => {
    const object = configMap('a');
    for (const includeObject of ['None', 'Metadata', 'Object'] as const) {
      for (const columns of [true, false]) {
        const expected = toTable(configMapDefinition, [object], { resourceVersion: '42' }, includeObject, 'v1', now);
        if (!columns) expected.columnDefinitions = [];
        const frame = tableFrame(configMapDefinition, 'MODIFIED', object, { includeObject, version: 'v1', columns }, now);
        assert.equal(Buffer.from(frame).toString('utf8'), `${JSON.stringify({ type: 'MODIFIED', object: expected })}\n`);
      }
    }
  });

  it('gives a row object with includeObject=Object its apiVersion and kind, whatever the event carried', () => {
    const { apiVersion: _apiVersion, kind: _kind, ...bare } = configMap('a');
    const frame = tableFrame(configMapDefinition, 'ADDED', bare, { includeObject: 'Object', version: 'v1', columns: true }, now);
    const object = decode(frame).object.rows[0]?.object as Record<string, unknown>;
    assert.equal(object.kind, 'ConfigMap');
    assert.equal(object.apiVersion, 'v1');
    assert.deepEqual(object.metadata, bare.metadata);
    assert.equal('kind' in bare, false, 'the shared event object is not changed');
  });

  it('is rebuilt when the cells move with the clock, and shared again at the new time', () => {
    const object = configMap('a');
    const variant = { includeObject: 'Object', version: 'v1', columns: false } as const;
    const before = tableFrame(configMapDefinition, 'ADDED', object, variant, now);
    const sameSecond = new Date(now.getTime() + 400);
    assert.equal(tableFrame(configMapDefinition, 'ADDED', object, variant, sameSecond), before, 'the age reads the same, so the frame is shared');
    const later = new Date(now.getTime() + 61_000);
    const after = tableFrame(configMapDefinition, 'ADDED', object, variant, later);
    assert.notEqual(after, before);
    assert.deepEqual(decode(after).object.rows[0]?.cells, ['a', 1, '4m21s']);
    assert.equal(tableFrame(configMapDefinition, 'ADDED', object, variant, later), after);
  });
});
