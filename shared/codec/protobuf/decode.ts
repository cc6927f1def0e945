/**
 * Decoding protobuf messages into the JSON shape of their schemas (layout.ts): times as RFC 3339
 * strings, quantities as strings, int-or-string as number or string, bytes as base64, FieldsV1 and
 * RawExtension as parsed JSON. Zero values of non-pointer fields are dropped (JSON omits them: Go's
 * omitempty), except Quantity and Duration, which Go's JSON always writes; values of pointer fields
 * are kept, explicit zeros included. Unknown field numbers are skipped. Decoded objects have their
 * properties in the schema's order, as Go's JSON follows the struct.
 */
import { formatGoDurationNs } from '../../go/duration.ts';
import { formatMicroTime, formatTime, isZeroTime } from '../../go/time.ts';
import type { Schema } from '../../api/schema.ts';
import { isObject } from '../../api/types.ts';
import { parseJson } from '../json.ts';
import { startsWithPrefix } from './envelope.ts';
import { ProtobufError } from './errors.ts';
import { parseFieldsV1 } from './fields-v1.ts';
import {
  BOOL,
  BYTES,
  DOUBLE,
  DURATION,
  EMBEDDED,
  FIELDS_V1,
  INT32,
  INT64,
  INT_OR_STRING,
  MESSAGE,
  MICRO_TIME,
  QUANTITY,
  RAW_EXTENSION,
  REPEATED,
  SINGLE,
  STRING,
  TIME,
  WRAPPED_LIST,
} from './layout.ts';
import { layoutOf, messageOf, type FieldLayout, type MessageLayout, type ValueType } from './layout.ts';
import type { NodeBuffer } from './node-buffer.ts';
import {
  decoding,
  eof,
  readBigInt64,
  readBool,
  readDouble,
  readInt32,
  readInt64,
  readLength,
  readString,
  readUint32,
  skipField,
  type Reader,
} from './reader.ts';
import { WIRE_BYTES } from './wire.ts';

/** Decodes the message between r.pos and `end` into `out`. */
function readMessage(r: Reader, layout: MessageLayout, end: number, out: Record<string, unknown>): Record<string, unknown> {
  const byNumber = layout.byNumber;
  while (r.pos < end) {
    const tag = readUint32(r, end);
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 0) throw new ProtobufError(`proto: illegal tag 0 (wire type ${wireType})`);
    const field = byNumber[number];
    if (field === undefined) {
      skipField(r, wireType, end, number);
      continue;
    }
    if (field.type.kind === EMBEDDED) {
      if (wireType !== WIRE_BYTES) throw wrongWireType(wireType, field);
      readMessage(r, field.type.message!, readLength(r, end), out);
    } else if (field.shape === SINGLE) {
      const type = field.type;
      if (wireType !== type.wireType) throw wrongWireType(wireType, field);
      // Strings, the most common fields, without readValue's dispatch. A message met again merges
      // into the first (protobuf's rule); other values replace it.
      const v = type.kind === STRING ? readString(r, end) : readValue(r, type, end, type.kind === MESSAGE ? out[field.name] : undefined);
      if (v === undefined || (!field.optional && !field.keepZero && (type.kind === STRING ? v === '' : isZero(type, v)))) {
        if (out[field.name] !== undefined) delete out[field.name];
      } else {
        out[field.name] = v;
      }
    } else if (field.shape === REPEATED) {
      let list = out[field.name] as unknown[] | undefined;
      if (list === undefined) out[field.name] = list = [];
      if (wireType === field.type.wireType) {
        list.push(readValue(r, field.type, end, undefined) ?? null);
        // Elements come one after another: read them without looking the list up again.
        while (r.pos < end && r.buf[r.pos] === field.tag && field.tag < 0x80) {
          r.pos++;
          list.push(readValue(r, field.type, end, undefined) ?? null);
        }
      } else if (wireType === WIRE_BYTES && field.type.wireType !== WIRE_BYTES) {
        // Packed numbers: upstream never writes them, but protobuf readers accept them.
        const stop = readLength(r, end);
        while (r.pos < stop) list.push(readValue(r, field.type, stop, undefined));
      } else {
        throw wrongWireType(wireType, field);
      }
    } else {
      if (wireType !== WIRE_BYTES) throw wrongWireType(wireType, field);
      let map = out[field.name] as Record<string, unknown> | undefined;
      if (map === undefined) out[field.name] = map = {};
      readMapEntry(r, field, end, map);
      // Entries come one after another: read them without looking the map up again.
      while (r.pos < end && r.buf[r.pos] === field.tag && field.tag < 0x80) {
        r.pos++;
        readMapEntry(r, field, end, map);
      }
    }
  }
  if (r.pos !== end) throw eof();
  return out;
}

function readMapEntry(r: Reader, field: FieldLayout, end: number, map: Record<string, unknown>): void {
  const stop = readLength(r, end);
  let key = '';
  let value: unknown;
  let seen = false;
  while (r.pos < stop) {
    const tag = readUint32(r, stop);
    if (tag === 0x0a) key = readString(r, stop);
    else if (tag === 16 + field.type.wireType) {
      value = field.type.kind === STRING ? readString(r, stop) : readValue(r, field.type, stop, undefined);
      seen = true;
    } else skipField(r, tag & 7, stop, tag >>> 3);
  }
  if (r.pos !== stop) throw eof();
  map[key] = seen ? (value ?? null) : zeroOf(field.type);
}

function wrongWireType(wireType: number, field: FieldLayout): ProtobufError {
  return new ProtobufError(`proto: wrong wireType = ${wireType} for field ${field.name || field.number}`);
}

/** The JSON form of a Go zero value, for a map entry without its value. */
function zeroOf(type: ValueType): unknown {
  switch (type.kind) {
    case STRING:
    case BYTES:
      return '';
    case BOOL:
      return false;
    case INT32:
    case INT64:
    case DOUBLE:
    case INT_OR_STRING:
      return 0;
    case MESSAGE:
      return {};
    case QUANTITY:
      return '0';
    case DURATION:
      return '0s';
    case WRAPPED_LIST:
      return [];
    default:
      return null;
  }
}

/** Whether Go's JSON omits the decoded value of a non-pointer field (omitempty, or a null time). */
function isZero(type: ValueType, v: unknown): boolean {
  switch (type.kind) {
    case STRING:
    case BYTES:
      return v === '';
    case BOOL:
      return v === false;
    case INT32:
    case INT64:
    case DOUBLE:
    case INT_OR_STRING:
      return v === 0;
    case MESSAGE:
      for (const _ in v as Record<string, unknown>) return false;
      return true;
    case WRAPPED_LIST:
      return (v as unknown[]).length === 0;
    default:
      return false;
  }
}

/** Reads one value (after its tag); `undefined` for a zero time or an empty raw value. */
function readValue(r: Reader, type: ValueType, end: number, previous: unknown): unknown {
  switch (type.kind) {
    case STRING:
      return readString(r, end);
    case BYTES: {
      const stop = readLength(r, end);
      const text = r.buf.base64Slice(r.pos, stop);
      r.pos = stop;
      return text;
    }
    case BOOL:
      return readBool(r, end);
    case INT32:
      return readInt32(r, end);
    case INT64:
      return readInt64(r, end);
    case DOUBLE:
      return readDouble(r, end);
    case MESSAGE: {
      const stop = readLength(r, end);
      const layout = messageOf(type);
      const decoded = readMessage(r, layout, stop, isObject(previous) ? previous : {});
      return layout.propertyOrder === null ? decoded : inSchemaOrder(decoded, layout.propertyOrder);
    }
    case TIME:
    case MICRO_TIME: {
      const stop = readLength(r, end);
      if (r.pos === stop) return undefined;
      let seconds = 0;
      let nanos = 0;
      while (r.pos < stop) {
        const tag = readUint32(r, stop);
        if (tag === 0x08) seconds = readInt64(r, stop);
        else if (tag === 0x10) nanos = readInt64(r, stop) | 0;
        else skipField(r, tag & 7, stop, tag >>> 3);
      }
      const kind = type.kind === TIME ? 'Time' : 'MicroTime';
      // Go's zero time reads back as null, which JSON omits.
      if (isZeroTime({ seconds, nanos }, kind)) return undefined;
      return kind === 'Time' ? formatTime(seconds) : formatMicroTime(seconds, nanos);
    }
    case DURATION: {
      const stop = readLength(r, end);
      let ns = 0n;
      while (r.pos < stop) {
        const tag = readUint32(r, stop);
        if (tag === 0x08) ns = readBigInt64(r, stop);
        else skipField(r, tag & 7, stop, tag >>> 3);
      }
      return formatGoDurationNs(ns);
    }
    case QUANTITY: {
      const stop = readLength(r, end);
      let text = '0';
      while (r.pos < stop) {
        const tag = readUint32(r, stop);
        if (tag === 0x0a) text = readString(r, stop);
        else skipField(r, tag & 7, stop, tag >>> 3);
      }
      return text;
    }
    case INT_OR_STRING: {
      const stop = readLength(r, end);
      let kind = 0;
      let intVal = 0;
      let strVal = '';
      while (r.pos < stop) {
        const tag = readUint32(r, stop);
        if (tag === 0x08) kind = readInt64(r, stop);
        else if (tag === 0x10) intVal = readInt32(r, stop);
        else if (tag === 0x1a) strVal = readString(r, stop);
        else skipField(r, tag & 7, stop, tag >>> 3);
      }
      return kind === 1 ? strVal : intVal;
    }
    case FIELDS_V1:
    case RAW_EXTENSION: {
      const stop = readLength(r, end);
      let rawStart = 0;
      let rawEnd = 0;
      while (r.pos < stop) {
        const tag = readUint32(r, stop);
        if (tag === 0x0a) {
          rawEnd = readLength(r, stop);
          rawStart = r.pos;
          r.pos = rawEnd;
        } else skipField(r, tag & 7, stop, tag >>> 3);
      }
      if (rawEnd === rawStart) return undefined;
      if (type.kind === FIELDS_V1) return parseFieldsV1(r, rawStart, rawEnd) ?? parseRawJson(r.buf, rawStart, rawEnd, 'FieldsV1');
      return parseRawJson(r.buf, rawStart, rawEnd, 'RawExtension');
    }
    case WRAPPED_LIST: {
      const stop = readLength(r, end);
      const element = type.element!;
      const list: unknown[] = [];
      while (r.pos < stop) {
        const tag = readUint32(r, stop);
        if (tag === 8 + element.wireType) list.push(readValue(r, element, stop, undefined) ?? null);
        else skipField(r, tag & 7, stop, tag >>> 3);
      }
      return list;
    }
  }
  throw new ProtobufError(`protobuf: unknown value kind ${type.kind}`);
}

/**
 * `decoded`, or a copy with its properties in the schema's order (`order`) when decoding put them
 * in another: decoded objects follow the schema, as Go's JSON follows the struct. Most messages
 * need no copy, as the fields whose numbers and places disagree are seldom both set.
 */
function inSchemaOrder(decoded: Record<string, unknown>, order: readonly string[]): Record<string, unknown> {
  let i = 0;
  let inOrder = true;
  for (const name in decoded) {
    while (i < order.length && order[i] !== name) i++;
    if (i === order.length) {
      inOrder = false;
      break;
    }
  }
  if (inOrder) return decoded;
  const ordered: Record<string, unknown> = {};
  for (const name of order) {
    const v = decoded[name];
    if (v !== undefined) ordered[name] = v;
  }
  return ordered;
}

/** Raw bytes of a FieldsV1 or RawExtension as JSON; corral keeps no other representation of them. */
function parseRawJson(buf: NodeBuffer, start: number, end: number, what: string): unknown {
  try {
    return parseJson(buf.utf8Slice(start, end));
  } catch {
    const kind = startsWithPrefix(buf.subarray(start, end)) ? 'a protobuf object' : 'bytes that are not JSON';
    throw new ProtobufError(`protobuf: ${what} holds ${kind}, which corral cannot represent`);
  }
}

/** Decodes a message into its JSON shape. */
export function decodeMessage(bytes: Uint8Array, schema: Schema): Record<string, unknown> {
  return decoding(bytes, (r) => decodeInto(r, layoutOf(schema), bytes.length, {}));
}

export function decodeInto(r: Reader, layout: MessageLayout, end: number, out: Record<string, unknown>): Record<string, unknown> {
  if (layout.propertyOrder === null) return readMessage(r, layout, end, out);
  const decoded = readMessage(r, layout, end, {});
  for (const name of layout.propertyOrder) {
    const v = decoded[name];
    if (v !== undefined) out[name] = v;
  }
  return out;
}
