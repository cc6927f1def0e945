/**
 * The etcd KV messages of the store's reads and writes (etcdserverpb's RangeRequest and TxnRequest,
 * their answers, mvccpb's KeyValue), written and read with the codebase's protobuf writer and
 * reader: the unary calls of kv-client.ts carry them. Field numbers are etcd's (rpc.proto,
 * kv.proto); only the fields the store uses are written, and unknown fields are skipped when read.
 *
 * Why not the generated code the etcd3 library carries: it reads every message into plain objects
 * with each 64-bit number as a decimal string made by long division (four of them in every
 * answer's header), and every key and value as a Buffer that the store then turned into a string.
 * Here a key and a value are read straight into the StoredText the store decodes, a value is
 * written straight from the stored text, and revisions are numbers (etcd's revisions stay far
 * below 2^53). A request comes out framed for gRPC (kv-client.ts sends it as it is): its 5-byte
 * prefix (uncompressed, the message's length) is written in front of it, not copied in later.
 */
import { ProtobufError } from '../../../shared/codec/protobuf/errors.ts';
import { decoding, readBool, readInt64, readLength, readUint32, skipField, type Reader } from '../../../shared/codec/protobuf/reader.ts';
import { varintSize, WIRE_BYTES, WIRE_VARINT } from '../../../shared/codec/protobuf/wire.ts';
import { withWriter, type Writer } from '../../../shared/codec/protobuf/writer.ts';
import type { StoredText } from '../stored-value.ts';

export interface RangeRequest {
  key: Buffer;
  /** The end of the range (exclusive); only `key` without it. */
  rangeEnd?: Buffer;
  /** At most this many keys; 0 or unset for all. */
  limit?: number;
  /** Read at this revision; 0 or unset for the newest. */
  revision?: number;
  /** Only the count (and the header's revision), no key-values. */
  countOnly?: boolean;
}

export interface RangeResponse {
  /** The store's revision the range was read at (the header's). */
  revision: number;
  /** mvccpb.KeyValue's key, value (as `text`) and mod revision. */
  kvs: StoredText[];
  more: boolean;
  count: number;
}

/** A compare-and-swap guard on a key's mod revision (0: the key does not exist). */
export interface ModRevisionEquals {
  key: Buffer;
  modRevision: number;
}

export type RequestOp =
  | { range: RangeRequest }
  /** `value`: the stored text; `lease`: the lease's ID in decimal (lease IDs use all 64 bits). */
  | { put: { key: Buffer; value: string; lease?: string } }
  | { deleteRange: { key: Buffer } };

export interface TxnRequest {
  compare: ModRevisionEquals[];
  success: RequestOp[];
  failure?: RequestOp[];
}

/** One operation's answer; only a range's is read, the others are known by their kind. */
export type ResponseOp = { range: RangeResponse } | { put: true } | { deleteRange: true };

export interface TxnResponse {
  revision: number;
  succeeded: boolean;
  responses: ResponseOp[];
}

// Compare's enums (rpc.proto): CompareResult.EQUAL = 0, CompareTarget.MOD = 2.
const compareTargetMod = 2;

/** gRPC's message prefix: a compression flag (0) and the message's length, big-endian. */
export const grpcPrefixBytes = 5;

/** `write`'s message behind its gRPC prefix. */
export function grpcFramed(write: (w: Writer) => void): Buffer {
  const framed = withWriter((w) => {
    w.begin(grpcPrefixBytes);
    write(w);
  });
  framed[0] = 0;
  framed.writeUInt32BE(framed.length - grpcPrefixBytes, 1);
  return framed;
}

/** A RangeRequest, framed for gRPC. */
export function encodeRangeRequest(req: RangeRequest): Buffer {
  return grpcFramed((w) => writeRangeRequest(w, req));
}

/** A TxnRequest, framed for gRPC. */
export function encodeTxnRequest(req: TxnRequest): Buffer {
  return grpcFramed((w) => {
    for (const compare of req.compare) {
      w.uint32((1 << 3) | WIRE_BYTES);
      const at = w.begin();
      // result EQUAL (0) is the default and not written.
      w.uint32((2 << 3) | WIRE_VARINT);
      w.uint32(compareTargetMod);
      w.uint32((3 << 3) | WIRE_BYTES);
      w.bytes(compare.key);
      // mod_revision (6) is a member of a oneof: written even when 0.
      w.uint32((6 << 3) | WIRE_VARINT);
      w.int64(compare.modRevision);
      w.end(at);
    }
    for (const op of req.success) writeRequestOp(w, 2, op);
    for (const op of req.failure ?? []) writeRequestOp(w, 3, op);
  });
}

function writeRangeRequest(w: Writer, req: RangeRequest): void {
  w.uint32((1 << 3) | WIRE_BYTES);
  w.bytes(req.key);
  if (req.rangeEnd) {
    w.uint32((2 << 3) | WIRE_BYTES);
    w.bytes(req.rangeEnd);
  }
  if (req.limit) {
    w.uint32((3 << 3) | WIRE_VARINT);
    w.int64(req.limit);
  }
  if (req.revision) {
    w.uint32((4 << 3) | WIRE_VARINT);
    w.int64(req.revision);
  }
  if (req.countOnly) {
    w.uint32((9 << 3) | WIRE_VARINT);
    w.uint32(1);
  }
}

function writeRequestOp(w: Writer, field: number, op: RequestOp): void {
  // The room for the lengths: a value may be 1.5 MiB, whose length takes 3 bytes; a wrong guess costs a move (Writer.end).
  const width = 'put' in op ? varintSize(op.put.key.length + op.put.value.length + 32) : 1;
  w.uint32((field << 3) | WIRE_BYTES);
  const at = w.begin(width);
  if ('range' in op) {
    w.uint32((1 << 3) | WIRE_BYTES);
    const inner = w.begin();
    writeRangeRequest(w, op.range);
    w.end(inner);
  } else if ('put' in op) {
    w.uint32((2 << 3) | WIRE_BYTES);
    const inner = w.begin(width);
    w.uint32((1 << 3) | WIRE_BYTES);
    w.bytes(op.put.key);
    w.uint32((2 << 3) | WIRE_BYTES);
    w.string(op.put.value);
    if (op.put.lease !== undefined && op.put.lease !== '0') {
      w.uint32((3 << 3) | WIRE_VARINT);
      const id = BigInt.asUintN(64, BigInt(op.put.lease));
      w.varint64(Number(id & 0xffffffffn), Number(id >> 32n));
    }
    w.end(inner, width);
  } else {
    w.uint32((3 << 3) | WIRE_BYTES);
    const inner = w.begin();
    w.uint32((1 << 3) | WIRE_BYTES);
    w.bytes(op.deleteRange.key);
    w.end(inner);
  }
  w.end(at, width);
}

/** A RangeResponse from its bytes. */
export function decodeRangeResponse(bytes: Uint8Array): RangeResponse {
  return decoding(bytes, (r) => readRangeResponse(r, r.buf.length));
}

/** A TxnResponse from its bytes. */
export function decodeTxnResponse(bytes: Uint8Array): TxnResponse {
  return decoding(bytes, (r) => {
    const end = r.buf.length;
    const res: TxnResponse = { revision: 0, succeeded: false, responses: [] };
    while (r.pos < end) {
      const tag = readUint32(r, end);
      const field = tag >>> 3;
      if (field === 1 && (tag & 7) === WIRE_BYTES) res.revision = readHeaderRevision(r, readLength(r, end));
      else if (field === 2 && (tag & 7) === WIRE_VARINT) res.succeeded = readBool(r, end);
      else if (field === 3 && (tag & 7) === WIRE_BYTES) res.responses.push(readResponseOp(r, readLength(r, end)));
      else skipField(r, tag & 7, end, field);
    }
    return res;
  });
}

function readResponseOp(r: Reader, end: number): ResponseOp {
  // A oneof: its one member's field number says which operation answered.
  let op: ResponseOp | undefined;
  while (r.pos < end) {
    const tag = readUint32(r, end);
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === WIRE_BYTES) {
      op = { range: readRangeResponse(r, readLength(r, end)) };
      continue;
    }
    if (field === 2) op = { put: true };
    else if (field === 3) op = { deleteRange: true };
    skipField(r, tag & 7, end, field);
  }
  r.pos = end;
  if (!op) throw new ProtobufError('a ResponseOp without a response');
  return op;
}

function readRangeResponse(r: Reader, end: number): RangeResponse {
  const res: RangeResponse = { revision: 0, kvs: [], more: false, count: 0 };
  while (r.pos < end) {
    const tag = readUint32(r, end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === WIRE_BYTES) res.revision = readHeaderRevision(r, readLength(r, end));
    else if (field === 2 && wire === WIRE_BYTES) res.kvs.push(readKeyValue(r, readLength(r, end)));
    else if (field === 3 && wire === WIRE_VARINT) res.more = readBool(r, end);
    else if (field === 4 && wire === WIRE_VARINT) res.count = readInt64(r, end);
    else skipField(r, wire, end, field);
  }
  r.pos = end;
  return res;
}

/** ResponseHeader's revision (field 3); the cluster, member and term are skipped. */
export function readHeaderRevision(r: Reader, end: number): number {
  let revision = 0;
  while (r.pos < end) {
    const tag = readUint32(r, end);
    if (tag === ((3 << 3) | WIRE_VARINT)) revision = readInt64(r, end);
    else skipField(r, tag & 7, end, tag >>> 3);
  }
  r.pos = end;
  return revision;
}

/** mvccpb.KeyValue's key, value (as `text`) and mod revision; the other fields are skipped. */
export function readKeyValue(r: Reader, end: number): StoredText {
  const kv: StoredText = { key: '', text: '', modRevision: 0 };
  while (r.pos < end) {
    const tag = readUint32(r, end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === WIRE_BYTES) {
      const stop = readLength(r, end);
      kv.key = r.buf.utf8Slice(r.pos, stop);
      r.pos = stop;
    } else if (field === 5 && wire === WIRE_BYTES) {
      const stop = readLength(r, end);
      kv.text = r.buf.utf8Slice(r.pos, stop);
      r.pos = stop;
    } else if (field === 3 && wire === WIRE_VARINT) {
      kv.modRevision = readInt64(r, end);
    } else {
      skipField(r, wire, end, field);
    }
  }
  r.pos = end;
  return kv;
}
