/**
 * The watch messages as etcd writes and reads them: a WatchResponse built field by field as etcd's
 * server encodes it (puts, deletes, previous values, a cancellation for compaction) decodes into the
 * store's changes; a create request carries etcd's field numbers. A real etcd reads and writes them
 * in watch.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decoding, readBool, readInt64, readLength, readUint32, skipField } from '../../../shared/codec/protobuf/reader.ts';
import { WIRE_BYTES, WIRE_VARINT } from '../../../shared/codec/protobuf/wire.ts';
import { withWriter, type Writer } from '../../../shared/codec/protobuf/writer.ts';
import { grpcPrefixBytes } from './kv-messages.ts';
import { decodeWatchResponse, encodeWatchCreate } from './watch-messages.ts';

function keyValue(w: Writer, field: number, kv: { key: string; value: string; modRevision: number }): void {
  w.uint32((field << 3) | WIRE_BYTES);
  const at = w.begin();
  w.uint32((1 << 3) | WIRE_BYTES);
  w.string(kv.key);
  w.uint32((2 << 3) | WIRE_VARINT);
  w.int64(3); // create_revision: skipped
  w.uint32((3 << 3) | WIRE_VARINT);
  w.int64(kv.modRevision);
  w.uint32((4 << 3) | WIRE_VARINT);
  w.int64(2); // version: skipped
  if (kv.value) {
    w.uint32((5 << 3) | WIRE_BYTES);
    w.string(kv.value);
  }
  w.end(at);
}

interface EventSpec {
  delete?: boolean;
  kv: { key: string; value: string; modRevision: number };
  prev?: { key: string; value: string; modRevision: number };
}

function watchResponse(opts: {
  revision: number;
  created?: boolean;
  canceled?: boolean;
  compactRevision?: number;
  cancelReason?: string;
  events?: EventSpec[];
}): Buffer {
  return withWriter((w) => {
    w.uint32((1 << 3) | WIRE_BYTES);
    const header = w.begin();
    w.uint32((1 << 3) | WIRE_VARINT);
    w.int64(1234); // cluster_id: skipped
    w.uint32((3 << 3) | WIRE_VARINT);
    w.int64(opts.revision);
    w.end(header);
    w.uint32((2 << 3) | WIRE_VARINT);
    w.int64(7); // watch_id
    if (opts.created) {
      w.uint32((3 << 3) | WIRE_VARINT);
      w.uint32(1);
    }
    if (opts.canceled) {
      w.uint32((4 << 3) | WIRE_VARINT);
      w.uint32(1);
    }
    if (opts.compactRevision) {
      w.uint32((5 << 3) | WIRE_VARINT);
      w.int64(opts.compactRevision);
    }
    if (opts.cancelReason) {
      w.uint32((6 << 3) | WIRE_BYTES);
      w.string(opts.cancelReason);
    }
    for (const e of opts.events ?? []) {
      w.uint32((11 << 3) | WIRE_BYTES);
      const at = w.begin();
      if (e.delete) {
        w.uint32((1 << 3) | WIRE_VARINT);
        w.uint32(1);
      }
      keyValue(w, 2, e.kv);
      if (e.prev) keyValue(w, 3, e.prev);
      w.end(at);
    }
  });
}

describe('decodeWatchResponse', () => {
  it('reads puts, deletes and previous values as changes, and the header revision', () => {
    const res = decodeWatchResponse(
      watchResponse({
        revision: 90,
        events: [
          { kv: { key: '/registry/leases/kube-node-lease/n-ü', value: '{"a":"é"}', modRevision: 88 } },
          {
            kv: { key: '/registry/leases/kube-node-lease/m', value: '{"b":2}', modRevision: 89 },
            prev: { key: '/registry/leases/kube-node-lease/m', value: '{"b":1}', modRevision: 40 },
          },
          {
            delete: true,
            kv: { key: '/registry/pods/ns/p', value: '', modRevision: 90 },
            prev: { key: '/registry/pods/ns/p', value: '{"p":1}', modRevision: 12 },
          },
        ],
      }),
    );
    assert.equal(res.revision, 90);
    assert.equal(res.created, false);
    assert.equal(res.canceled, false);
    assert.deepEqual(res.changes, [
      { key: '/registry/leases/kube-node-lease/n-ü', revision: 88, value: '{"a":"é"}', previous: null },
      { key: '/registry/leases/kube-node-lease/m', revision: 89, value: '{"b":2}', previous: { text: '{"b":1}', modRevision: 40 } },
      { key: '/registry/pods/ns/p', revision: 90, value: null, previous: { text: '{"p":1}', modRevision: 12 } },
    ]);
  });

  it('reads a creation, and a cancellation with its compact revision and reason', () => {
    const created = decodeWatchResponse(watchResponse({ revision: 5, created: true }));
    assert.equal(created.created, true);
    assert.deepEqual(created.changes, []);
    const cancelled = decodeWatchResponse(
      watchResponse({ revision: 50, canceled: true, compactRevision: 42, cancelReason: 'mvcc: required revision has been compacted' }),
    );
    assert.equal(cancelled.canceled, true);
    assert.equal(cancelled.compactRevision, 42);
    assert.equal(cancelled.cancelReason, 'mvcc: required revision has been compacted');
  });

  it('refuses an event without its key-value, and truncated bytes', () => {
    const empty = withWriter((w) => {
      w.uint32((11 << 3) | WIRE_BYTES);
      w.uint32(0);
    });
    assert.throws(() => decodeWatchResponse(empty), /without its key-value/);
    const whole = watchResponse({ revision: 3, events: [{ kv: { key: '/k', value: 'v', modRevision: 3 } }] });
    assert.throws(() => decodeWatchResponse(whole.subarray(0, whole.length - 2)));
  });
});

describe('encodeWatchCreate', () => {
  it("writes a create request with etcd's field numbers behind the gRPC prefix", () => {
    const framed = encodeWatchCreate({ key: Buffer.from('/registry/'), rangeEnd: Buffer.from('/registry0'), startRevision: 2 ** 40, prevKv: true });
    assert.equal(framed[0], 0);
    assert.equal(framed.readUInt32BE(1), framed.length - grpcPrefixBytes);
    const read = decoding(framed.subarray(grpcPrefixBytes), (r) => {
      const end = r.buf.length;
      assert.equal(readUint32(r, end), (1 << 3) | WIRE_BYTES);
      const stop = readLength(r, end);
      const fields: Record<number, string | number | boolean> = {};
      while (r.pos < stop) {
        const tag = readUint32(r, stop);
        const field = tag >>> 3;
        if (field === 1 || field === 2) {
          const at = readLength(r, stop);
          fields[field] = r.buf.toString('utf8', r.pos, at);
          r.pos = at;
        } else if (field === 3) fields[field] = readInt64(r, stop);
        else if (field === 6) fields[field] = readBool(r, stop);
        else skipField(r, tag & 7, stop, field);
      }
      return fields;
    });
    assert.deepEqual(read, { 1: '/registry/', 2: '/registry0', 3: 2 ** 40, 6: true });
    // prev_kv false is left out (proto3's default): two bytes fewer.
    const withoutPrevious = encodeWatchCreate({ key: Buffer.from('/registry/'), rangeEnd: Buffer.from('/registry0'), startRevision: 2 ** 40, prevKv: false });
    assert.equal(withoutPrevious.length, framed.length - 2);
  });
});
