/**
 * Wire-level reading of protobuf: varints, lengths, strings and skipped fields, bounds-checked
 * against the end of the enclosing message. Decoding is synchronous and runs on one Reader that
 * lives as long as the module (see `reader`); what to read is the caller's (decode.ts, the
 * envelope, watch events).
 */
import { ProtobufError } from './errors.ts';
import type { NodeBuffer } from './node-buffer.ts';
import { WIRE_BYTES, WIRE_END_GROUP, WIRE_FIXED32, WIRE_FIXED64, WIRE_START_GROUP, WIRE_VARINT } from './wire.ts';

/** A position in the bytes being decoded. */
export interface Reader {
  buf: NodeBuffer;
  /** The same bytes, for reading four at a time. */
  view: DataView;
  pos: number;
}

const noBytes = Buffer.alloc(0) as NodeBuffer;
const noView = new DataView(noBytes.buffer, noBytes.byteOffset, 0);

/**
 * The one Reader of every decode. With a new reader per call, V8 was seen to discard the optimized
 * decoding code at each full garbage collection (deoptimization reason "weak objects") and compile
 * it again during the next decode: over a third of the CPU time of decoding a list in bench/codec.ts.
 * With one reader that lives as long as the module, the code stays.
 */
const reader: Reader = { buf: noBytes, view: noView, pos: 0 };

/**
 * Runs `read` with the reader at the start of `bytes`. Decoding is synchronous and calls out to no
 * code that could decode in turn, so the one reader is never needed twice at once.
 */
export function decoding<T>(bytes: Uint8Array, read: (r: Reader) => T): T {
  if (reader.buf !== noBytes) throw new Error('protobuf: decoding re-entered');
  reader.buf = (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as NodeBuffer;
  reader.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  reader.pos = 0;
  try {
    return read(reader);
  } finally {
    // The reader does not keep the input alive.
    reader.buf = noBytes;
    reader.view = noView;
  }
}

export const eof = (): ProtobufError => new ProtobufError('unexpected EOF');

/** A varint of at most 32 bits: tags and lengths. */
export function readUint32(r: Reader, end: number): number {
  const buf = r.buf;
  let pos = r.pos;
  if (pos >= end) throw eof();
  let b = buf[pos++]!;
  if (b < 0x80) {
    r.pos = pos;
    return b;
  }
  let v = b & 0x7f;
  // Two bytes in integer arithmetic: lengths up to 16 KiB (map entries, strings, most messages).
  if (pos < end) {
    b = buf[pos]!;
    if (b < 0x80) {
      r.pos = pos + 1;
      return v | (b << 7);
    }
  }
  for (let shift = 7; shift < 35; shift += 7) {
    if (pos >= end) throw eof();
    b = buf[pos++]!;
    v += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) {
      r.pos = pos;
      if (v > 0xffffffff) throw new ProtobufError('proto: integer overflow');
      return v;
    }
  }
  throw new ProtobufError('proto: integer overflow');
}

/** The low and high 32 bits of the varint readVarint64 read last. */
let lo64 = 0;
let hi64 = 0;

/** Reads a varint of up to 64 bits into lo64 and hi64 (readBool, readInt32, readInt64 and readBigInt64 take it from there). */
function readVarint64(r: Reader, end: number): void {
  const buf = r.buf;
  let pos = r.pos;
  let lo = 0;
  let hi = 0;
  let b = 0;
  let shift = 0;
  for (; shift < 28; shift += 7) {
    if (pos >= end) throw eof();
    b = buf[pos++]!;
    lo |= (b & 0x7f) << shift;
    if (b < 0x80) {
      r.pos = pos;
      lo64 = lo >>> 0;
      hi64 = 0;
      return;
    }
  }
  if (pos >= end) throw eof();
  b = buf[pos++]!;
  lo |= (b & 0x0f) << 28;
  hi = (b & 0x7f) >> 4;
  if (b >= 0x80) {
    for (shift = 3; ; shift += 7) {
      // Ten bytes at most: the tenth (shift 31) carries the 64th bit.
      if (shift > 31) throw new ProtobufError('proto: integer overflow');
      if (pos >= end) throw eof();
      b = buf[pos++]!;
      hi |= (b & 0x7f) << shift;
      if (b < 0x80) break;
    }
  }
  r.pos = pos;
  lo64 = lo >>> 0;
  hi64 = hi >>> 0;
}

/** A varint as a bool: any bit set is true. */
export function readBool(r: Reader, end: number): boolean {
  readVarint64(r, end);
  return (lo64 | hi64) !== 0;
}

/** A varint as Go's int32: its low 32 bits, signed. */
export function readInt32(r: Reader, end: number): number {
  readVarint64(r, end);
  return lo64 | 0;
}

export function readInt64(r: Reader, end: number): number {
  readVarint64(r, end);
  if (hi64 & 0x80000000) return -((~hi64 >>> 0) * 4294967296 + (~lo64 >>> 0) + 1);
  return hi64 * 4294967296 + lo64;
}

export function readBigInt64(r: Reader, end: number): bigint {
  readVarint64(r, end);
  return BigInt.asIntN(64, (BigInt(hi64) << 32n) | BigInt(lo64));
}

/** The end of a length-delimited value starting at r.pos. */
export function readLength(r: Reader, end: number): number {
  const len = readUint32(r, end);
  const stop = r.pos + len;
  if (stop > end) throw eof();
  return stop;
}

export function readDouble(r: Reader, end: number): number {
  if (r.pos + 8 > end) throw eof();
  const v = r.buf.readDoubleLE(r.pos);
  r.pos += 8;
  return v;
}

export function readString(r: Reader, end: number): string {
  const stop = readLength(r, end);
  const start = r.pos;
  r.pos = stop;
  return textAt(r, start, stop);
}

/** The UTF-8 text of r.buf from `start` to `stop`, short strings from the cache below. */
export function textAt(r: Reader, start: number, stop: number): string {
  return stop - start <= maxCachedLength ? shortString(r, start, stop) : r.buf.utf8Slice(start, stop);
}

/**
 * Short ASCII strings decoded recently. Lists repeat the same short strings in every item
 * (namespaces, label keys and values, map keys, managers, API versions, FieldsV1 keys): taking one
 * from here costs a few comparisons, where making it anew costs a call into the runtime, an
 * allocation and, for a property name, internalization. A string's slot follows from its length
 * and its first and last four bytes, compared first: they are the whole string up to 8 bytes, the
 * words between are compared for longer ones. A slot holds the last string that fell into it;
 * unique strings (names) merely replace each other there.
 */
const maxCachedLength = 32;
const slotBits = 12;
const cachedStrings: string[] = new Array<string>(1 << slotBits).fill('');
const cachedLengths = new Uint8Array(1 << slotBits);
const cachedFirst = new Int32Array(1 << slotBits);
const cachedLast = new Int32Array(1 << slotBits);
/** The bytes of each slot's string (maxCachedLength per slot). */
const cachedBytes = new Uint8Array(cachedLengths.length * maxCachedLength);
const cachedView = new DataView(cachedBytes.buffer);

/** The bytes of r.buf from `start` to `stop` (at most maxCachedLength) as a string. */
function shortString(r: Reader, start: number, stop: number): string {
  const len = stop - start;
  const buf = r.buf;
  let first: number;
  let last: number;
  if (len >= 4) {
    first = r.view.getInt32(start, true);
    last = r.view.getInt32(stop - 4, true);
  } else if (len > 0) {
    first = last = buf[start]! | (len > 1 ? buf[start + 1]! << 8 : 0) | (len > 2 ? buf[start + 2]! << 16 : 0);
  } else {
    return '';
  }
  const slot = (Math.imul(first ^ Math.imul(len, 0x27d4eb2d), 0x9e3779b1) ^ Math.imul(last, 0x85ebca6b)) >>> (32 - slotBits);
  const at = slot * maxCachedLength;
  if (cachedLengths[slot] === len && cachedFirst[slot] === first && cachedLast[slot] === last) {
    let i = 4;
    while (i < len - 4 && cachedView.getInt32(at + i, true) === r.view.getInt32(start + i, true)) i += 4;
    if (i >= len - 4) return cachedStrings[slot]!;
  }
  if ((first | last) & 0x80808080) return buf.utf8Slice(start, stop);
  for (let i = start + 4; i < stop - 4; i++) if (buf[i]! >= 0x80) return buf.utf8Slice(start, stop);
  const s = buf.latin1Slice(start, stop);
  cachedStrings[slot] = s;
  cachedLengths[slot] = len;
  cachedFirst[slot] = first;
  cachedLast[slot] = last;
  for (let i = 0; i < len; i++) cachedBytes[at + i] = buf[start + i]!;
  return s;
}

export function skipField(r: Reader, wireType: number, end: number, fieldNumber: number): void {
  switch (wireType) {
    case WIRE_VARINT:
      readVarint64(r, end);
      return;
    case WIRE_FIXED64:
      r.pos += 8;
      break;
    case WIRE_BYTES:
      r.pos = readLength(r, end);
      return;
    case WIRE_FIXED32:
      r.pos += 4;
      break;
    case WIRE_START_GROUP: {
      // Groups nest as deep as a client likes: the open ones are a stack, not recursion.
      const open = [fieldNumber];
      while (open.length > 0) {
        const tag = readUint32(r, end);
        const wt = tag & 7;
        if (wt === WIRE_END_GROUP) {
          if (tag >>> 3 !== open.pop()) throw new ProtobufError('proto: unmatched end group');
        } else if (wt === WIRE_START_GROUP) {
          open.push(tag >>> 3);
        } else {
          skipField(r, wt, end, tag >>> 3);
        }
      }
      return;
    }
    default:
      throw new ProtobufError(`proto: illegal wireType ${wireType}`);
  }
  if (r.pos > end) throw eof();
}
