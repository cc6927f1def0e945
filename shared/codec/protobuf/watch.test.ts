import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { watchEventSchema } from '../../api/schema.ts';
import { encodeMessage } from './encode.ts';
import { decodeObject, encodeObject } from './object.ts';
import { FrameSplitter, decodeWatchEvent, encodeWatchFrame } from './watch.ts';
import { configMapSchema, hex, upstreamEncode, type Json } from './test-fixtures.ts';

describe('watch streams', () => {
  it('watch frames: a length, then a bare WatchEvent whose object is the object’s envelope', () => {
    const envelope = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w', resourceVersion: '5' } }, configMapSchema);
    const frame = encodeWatchFrame('ADDED', envelope);
    const event = upstreamEncode('WatchEvent', { type: 'ADDED', object: { raw: envelope } });
    const length = Buffer.alloc(4);
    length.writeUInt32BE(event.length);
    assert.equal(hex(frame), hex(Buffer.concat([length, event])));
    // The event is the WatchEvent schema's message too.
    assert.equal(hex(encodeMessage({ type: 'ADDED', object: envelope }, watchEventSchema())), hex(event));
  });

  it('splits frames across chunk boundaries and decodes each event', () => {
    const objects = ['a', 'b', 'c'].map((name, i) =>
      encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: String(i + 1) }, data: { k: name.repeat(200) } }, configMapSchema),
    );
    const stream = Buffer.concat([encodeWatchFrame('ADDED', objects[0]!), encodeWatchFrame('MODIFIED', objects[1]!), encodeWatchFrame('DELETED', objects[2]!)]);
    const splitter = new FrameSplitter();
    const frames: Uint8Array[] = [];
    for (let i = 0; i < stream.length; i += 7) frames.push(...splitter.push(stream.subarray(i, i + 7)));
    assert.equal(splitter.buffered, 0);
    const events = frames.map(decodeWatchEvent).map((e) => ({ type: e.type, object: decodeObject(e.object, configMapSchema) }));
    assert.deepEqual(
      events.map((e) => [e.type, (e.object.metadata as Json).name, e.object.kind]),
      [
        ['ADDED', 'a', 'ConfigMap'],
        ['MODIFIED', 'b', 'ConfigMap'],
        ['DELETED', 'c', 'ConfigMap'],
      ],
    );
  });
});
