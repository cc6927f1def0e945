/**
 * The etcd Watch messages of the store's watches (etcdserverpb's WatchRequest with its
 * WatchCreateRequest, and WatchResponse with mvccpb's Events), written and read with the
 * codebase's protobuf writer and reader, as kv-messages.ts does for the KV calls: a watch-stream
 * (kv-client.ts) carries them. Field numbers are etcd's (rpc.proto, kv.proto).
 *
 * A response's events come out as the store's changes (changes.ts): key and values read straight
 * into strings, revisions as numbers. Through etcd3 and protobufjs every event was a tree of
 * objects, each 64-bit number a decimal string and each key and value a Buffer turned into a string
 * afterwards: at 5,000 nodes, every Lease renewal on every replica.
 */
import { ProtobufError } from '../../../shared/codec/protobuf/errors.ts';
import { decoding, readBool, readInt64, readLength, readString, readUint32, skipField, type Reader } from '../../../shared/codec/protobuf/reader.ts';
import { WIRE_BYTES, WIRE_VARINT } from '../../../shared/codec/protobuf/wire.ts';
import type { StoredChange } from '../changes.ts';
import type { StoredText } from '../stored-value.ts';
import { grpcFramed, readHeaderRevision, readKeyValue } from './kv-messages.ts';

export interface WatchCreateRequest {
  key: Buffer;
  /** The end of the range (exclusive): a prefix's end watches the prefix. */
  rangeEnd: Buffer;
  /** The first revision to report (inclusive). */
  startRevision: number;
  /** Whether each event carries the value it replaced. */
  prevKv: boolean;
}

export interface WatchResponse {
  /** The header's revision: etcd's revision when it sent this response. */
  revision: number;
  created: boolean;
  canceled: boolean;
  /** Set on a cancellation because the start revision was compacted: the oldest revision left. */
  compactRevision: number;
  cancelReason: string;
  /**
   * The events, in revision order, as changes. A change's `previous` is the value etcd sent with it
   * (prev_kv), or null without one: a watch made without previous values has null throughout.
   */
  changes: StoredChange[];
}

// mvccpb.Event.EventType: PUT = 0, DELETE = 1.
const eventTypeDelete = 1;

/** A WatchRequest holding a WatchCreateRequest, framed for gRPC. */
export function encodeWatchCreate(req: WatchCreateRequest): Buffer {
  return grpcFramed((w) => {
    w.uint32((1 << 3) | WIRE_BYTES);
    const at = w.begin();
    w.uint32((1 << 3) | WIRE_BYTES);
    w.bytes(req.key);
    w.uint32((2 << 3) | WIRE_BYTES);
    w.bytes(req.rangeEnd);
    if (req.startRevision) {
      w.uint32((3 << 3) | WIRE_VARINT);
      w.int64(req.startRevision);
    }
    if (req.prevKv) {
      w.uint32((6 << 3) | WIRE_VARINT);
      w.uint32(1);
    }
    w.end(at);
  });
}

/** A WatchResponse from its bytes. */
export function decodeWatchResponse(bytes: Uint8Array): WatchResponse {
  return decoding(bytes, (r) => {
    const end = r.buf.length;
    const res: WatchResponse = { revision: 0, created: false, canceled: false, compactRevision: 0, cancelReason: '', changes: [] };
    while (r.pos < end) {
      const tag = readUint32(r, end);
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 1 && wire === WIRE_BYTES) res.revision = readHeaderRevision(r, readLength(r, end));
      else if (field === 3 && wire === WIRE_VARINT) res.created = readBool(r, end);
      else if (field === 4 && wire === WIRE_VARINT) res.canceled = readBool(r, end);
      else if (field === 5 && wire === WIRE_VARINT) res.compactRevision = readInt64(r, end);
      else if (field === 6 && wire === WIRE_BYTES) res.cancelReason = readString(r, end);
      else if (field === 11 && wire === WIRE_BYTES) res.changes.push(readEvent(r, readLength(r, end)));
      else skipField(r, wire, end, field);
    }
    return res;
  });
}

function readEvent(r: Reader, end: number): StoredChange {
  let type = 0;
  let kv: StoredText | undefined;
  let prev: StoredText | undefined;
  while (r.pos < end) {
    const tag = readUint32(r, end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === WIRE_VARINT) type = readUint32(r, end);
    else if (field === 2 && wire === WIRE_BYTES) kv = readKeyValue(r, readLength(r, end));
    else if (field === 3 && wire === WIRE_BYTES) prev = readKeyValue(r, readLength(r, end));
    else skipField(r, wire, end, field);
  }
  r.pos = end;
  if (!kv) throw new ProtobufError('a watch event without its key-value');
  return {
    key: kv.key,
    revision: kv.modRevision,
    value: type === eventTypeDelete ? null : kv.text,
    // A previous value without a value is no value (a key created by this change has none).
    previous: prev && prev.text.length ? { text: prev.text, modRevision: prev.modRevision } : null,
  };
}
