import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeList, KubeObject } from '../../shared/api/types.ts';
import { decodeObject } from '../../shared/codec/protobuf/object.ts';
import { decodeWatchEvent } from '../../shared/codec/protobuf/watch.ts';
import { allDefinitions } from '../registry/all.ts';
import { testKindDependencies } from '../testing/kind-dependencies.ts';
import { fixtureKey, fixtures } from '../registry/conformance-fixtures.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/definition.ts';
import { TimeSlice } from '../../shared/apply/time-slice.ts';
import { stopCodecWorker } from '../../shared/codec/offload/pool.ts';
import { listType, objectType, serialize, serializeList, watchFrame, watchFrameYielding, type MessageType, type WireFormat } from './serialize.ts';

// The store is reached only when ComponentStatus is probed, which this test never does.
const definitions = allDefinitions(async () => undefined, testKindDependencies());

/** Three list items (no apiVersion and kind, as lists carry them) of the kind's conformance fixture. */
function itemsOf(def: ResourceDefinition): KubeObject[] | undefined {
  const fixture = fixtures[fixtureKey(def)];
  if (!fixture || fixture.readOnly) return undefined;
  return ['a', 'b', 'c'].map((suffix, i) => {
    const { apiVersion: _apiVersion, kind: _kind, ...item } = fixture.valid(`item-${suffix}`, def.namespaced ? 'default' : '');
    item.metadata = { ...item.metadata, uid: `uid-${suffix}`, resourceVersion: String(100 + i), creationTimestamp: '2024-03-04T05:06:07Z' };
    return item;
  });
}

function listOf(def: ResourceDefinition, items: KubeObject[], metadata: KubeList['metadata'] = { resourceVersion: '123' }): KubeList {
  return { apiVersion: apiVersionOf(def), kind: `${def.kind}List`, metadata, items };
}

function bytes(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
}

/** serializeList with a slice of its own (a zero budget: it yields at every chance). */
function serializeListSliced(
  list: KubeList,
  format: WireFormat,
  type: MessageType,
  pretty = false,
  slice = new TimeSlice(),
): Promise<{ contentType: string; body: Buffer }> {
  return serializeList(list, format, type, pretty, slice).then((s) => ({ contentType: s.contentType, body: bytes(s.body) }));
}

describe('serializeList', () => {
  after(() => stopCodecWorker());

  it("writes every kind's list byte for byte as serialize does, in JSON and protobuf, again once its items are kept", async () => {
    let kinds = 0;
    for (const def of definitions) {
      const items = itemsOf(def);
      if (!items) continue;
      kinds++;
      const type = listType(def);
      for (const metadata of [{ resourceVersion: '123' }, { resourceVersion: '9', continue: 'token', remainingItemCount: 4 }]) {
        const list = listOf(def, items, metadata);
        for (const format of ['json', 'protobuf'] as const) {
          const expected = serialize(list, format, type);
          for (let round = 0; round < 2; round++) {
            const got = await serializeListSliced(list, format, type);
            assert.equal(got.contentType, expected.contentType);
            assert.ok(got.body.equals(bytes(expected.body)), `${def.kind} ${format} round ${round}`);
          }
        }
      }
    }
    assert.ok(kinds >= 10, `only ${kinds} kinds had fixtures`);
  });

  it('writes empty lists and lists that share items with others', async () => {
    const def = definitions.find((d) => d.kind === 'ConfigMap')!;
    const [a, b, c] = itemsOf(def)!;
    const type = listType(def);
    for (const items of [[], [a!], [c!, a!], [a!, b!, c!], [b!]]) {
      const list = listOf(def, items);
      for (const format of ['json', 'protobuf'] as const) {
        assert.ok((await serializeListSliced(list, format, type)).body.equals(bytes(serialize(list, format, type).body)), `${format} ${items.length} items`);
      }
    }
    const decoded = decodeObject((await serializeListSliced(listOf(def, [c!, a!]), 'protobuf', type)).body, type.schema);
    assert.deepEqual(
      (decoded.items as KubeObject[]).map((i) => i.metadata.name),
      [c!.metadata.name, a!.metadata.name],
    );
  });

  it('writes pretty JSON, YAML and lists whose items are not their last key whole, as serialize does', async () => {
    const def = definitions.find((d) => d.kind === 'Secret')!;
    const items = itemsOf(def)!;
    const type = listType(def);
    const list = listOf(def, items);
    assert.equal((await serializeListSliced(list, 'json', type, true)).body.toString(), serialize(list, 'json', type, true).body);
    assert.equal((await serializeListSliced(list, 'yaml', type)).body.toString(), serialize(list, 'yaml', type).body);
    const itemsFirst = { items, apiVersion: list.apiVersion, kind: list.kind, metadata: list.metadata };
    const body = (await serializeListSliced(itemsFirst, 'json', type)).body.toString();
    assert.equal(body, JSON.stringify(itemsFirst));
    assert.ok(body.startsWith('{"items":['));
  });

  it('writes a list holding a large item, or many items, as serialize does, letting the loop run between pieces', async () => {
    const def = definitions.find((d) => d.kind === 'ConfigMap')!;
    const [a, b] = itemsOf(def)!;
    const data: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) data[`k${i}`] = `v${i}`;
    const large = { ...a!, metadata: { ...a!.metadata, name: 'large' }, data } as KubeObject;
    const many = Array.from({ length: 2_000 }, (_, i) => ({ ...b!, metadata: { ...b!.metadata, name: `item-${i}` } }));
    const type = listType(def);
    for (const list of [listOf(def, [a!, large, b!]), listOf(def, many)]) {
      for (const [format, pretty] of [
        ['json', false],
        ['protobuf', false],
        ['yaml', false],
        ['json', true],
      ] as const) {
        const slice = new TimeSlice(0);
        const got = await serializeListSliced(list, format, type, pretty, slice);
        assert.ok(got.body.equals(bytes(serialize(list, format, type, pretty).body)), `${format}${pretty ? ' pretty' : ''} of ${list.items.length} items`);
        assert.ok(slice.yields > 0, `${format}${pretty ? ' pretty' : ''} of ${list.items.length} items never let the loop run`);
      }
    }
  });
});

/** watchFrameYielding of a small object, whose frame is written at once. */
function smallFrame(type: string, object: KubeObject, format: 'json' | 'protobuf', messageType: MessageType): Uint8Array {
  const frame = watchFrameYielding(type, object, format, messageType);
  assert.ok(frame instanceof Uint8Array, "a small object's frame is written at once");
  return frame;
}

describe('watchFrameYielding of a small object', () => {
  it('encodes an object once per format and event type, and each frame as the stream expects', () => {
    const def = definitions.find((d) => d.kind === 'ConfigMap')!;
    const object = { apiVersion: 'v1', kind: 'ConfigMap', ...itemsOf(def)![0]! } as KubeObject;
    const type = objectType(def);
    const added = smallFrame('ADDED', object, 'json', type);
    assert.equal(smallFrame('ADDED', object, 'json', type), added);
    assert.equal(Buffer.from(added).toString(), `${JSON.stringify({ type: 'ADDED', object })}\n`);
    const modified = smallFrame('MODIFIED', object, 'json', type);
    assert.notEqual(modified, added);
    assert.equal(JSON.parse(Buffer.from(modified).toString()).type, 'MODIFIED');
    const frame = smallFrame('DELETED', object, 'protobuf', type);
    assert.equal(smallFrame('DELETED', object, 'protobuf', type), frame);
    assert.equal(Buffer.from(frame).readUInt32BE(0), frame.length - 4);
    const event = decodeWatchEvent(frame.subarray(4));
    assert.equal(event.type, 'DELETED');
    assert.deepEqual(decodeObject(event.object, type.schema).metadata, object.metadata);
    assert.ok(Buffer.from(watchFrame('DELETED', object, 'protobuf', type)).equals(Buffer.from(frame)), 'watchFrame writes the same bytes, unshared');
    assert.notEqual(watchFrame('DELETED', object, 'protobuf', type), frame);
  });

  it('keeps the frames of the newest events only', () => {
    const def = definitions.find((d) => d.kind === 'ConfigMap')!;
    const type = objectType(def);
    const event = (i: number): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'default' } });
    const first = event(0);
    const frame = smallFrame('ADDED', first, 'json', type);
    for (let i = 1; i <= 5000; i++) smallFrame('ADDED', event(i), 'json', type);
    const again = smallFrame('ADDED', first, 'json', type);
    assert.notEqual(again, frame, 'an old event is encoded anew');
    assert.ok(Buffer.from(again).equals(Buffer.from(frame)));
  });
});

describe('watchFrameYielding', () => {
  after(() => stopCodecWorker());

  const def = definitions.find((d) => d.kind === 'ConfigMap')!;
  const type = objectType(def);
  const configMap = (keys: number): KubeObject => {
    const data: Record<string, string> = {};
    for (let i = 0; i < keys; i++) data[`k${i}`] = `v${i}`;
    return { apiVersion: 'v1', kind: 'ConfigMap', ...itemsOf(def)![0]!, data };
  };

  it("writes a large object's frame later, once for every watcher asking meanwhile, with watchFrame's bytes", async () => {
    for (const format of ['json', 'protobuf'] as const) {
      const object = configMap(40_000);
      const pending = watchFrameYielding('MODIFIED', object, format, type);
      assert.ok(pending instanceof Promise, `${format}: a large object's frame is not written at once`);
      assert.equal(watchFrameYielding('MODIFIED', object, format, type), pending, `${format}: watchers asking meanwhile share the work`);
      const frame = await pending;
      // The same bytes as the one-pass encoding of an equal object (a copy: encodings are kept per object).
      assert.ok(Buffer.from(frame).equals(Buffer.from(watchFrame('MODIFIED', structuredClone(object), format, type))), format);
      assert.equal(watchFrameYielding('MODIFIED', object, format, type), frame, `${format}: kept for later watchers`);
    }
  });

  it("returns a small object's frame at once", () => {
    const object = configMap(3);
    const frame = watchFrameYielding('ADDED', object, 'json', type);
    assert.ok(frame instanceof Uint8Array);
    assert.equal(watchFrameYielding('ADDED', object, 'json', type), frame);
  });
});
