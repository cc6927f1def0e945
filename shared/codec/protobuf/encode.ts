/**
 * Encoding values as the protobuf messages their schemas describe (layout.ts), as upstream's
 * gogo-protobuf code writes them: fields in ascending field number; non-pointer scalars and strings
 * always, even when zero; non-pointer nested messages always (possibly empty); pointer (`optional`)
 * fields only when set; `[]byte` when present; lists element by element (never packed); maps as
 * {key=1, value=2} entries in sorted key order. Values come in their JSON shape: times as RFC 3339
 * strings, quantities as strings, int-or-string as number or string, bytes as base64, FieldsV1 and
 * RawExtension as parsed JSON.
 */
import { parseGoDurationNs } from '../../go/duration.ts';
import { isZeroTime, tryParseTime, type Instant } from '../../go/time.ts';
import type { Schema } from '../../api/schema.ts';
import { ProtobufError } from './errors.ts';
import { fieldsV1Message } from './fields-v1.ts';
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
import { withWriter, type Writer } from './writer.ts';

export function writeMessage(w: Writer, layout: MessageLayout, value: Record<string, unknown> | undefined): void {
  for (const field of layout.fields) {
    if (field.type.kind === EMBEDDED) {
      // Always written: Go embeds the struct itself, not a pointer.
      w.uint32(field.tag);
      const type = field.type;
      const at = w.begin(type.lengthWidth);
      writeMessage(w, type.message!, value);
      type.lengthWidth = w.end(at, type.lengthWidth);
      continue;
    }
    const v = value === undefined ? undefined : value[field.name];
    if (v === undefined || v === null) {
      // Lists, maps, pointers and nil []byte are not written; other Go values are, as their zero.
      if (field.optional || field.shape !== SINGLE || field.type.kind === BYTES) continue;
      w.uint32(field.tag);
      writeValue(w, field.type, undefined, field.name);
    } else if (field.shape === SINGLE) {
      w.uint32(field.tag);
      writeValue(w, field.type, v, field.name);
    } else if (field.shape === REPEATED) {
      if (!Array.isArray(v)) throw mismatch(field.name, 'a list', v);
      for (const element of v as unknown[]) {
        w.uint32(field.tag);
        writeValue(w, field.type, element ?? undefined, field.name);
      }
    } else {
      if (!isRecord(v)) throw mismatch(field.name, 'a map', v);
      writeMapEntries(w, field, v);
    }
  }
}

function writeMapEntries(w: Writer, field: FieldLayout, map: Record<string, unknown>): void {
  const keys = sortedKeys(map);
  const valueTag = 16 + field.type.wireType;
  let width = field.entryWidth;
  for (const key of keys) {
    const v = map[key];
    w.uint32(field.tag);
    const at = w.begin(width);
    w.byte(0x0a);
    w.string(key);
    w.uint32(valueTag);
    writeValue(w, field.type, v ?? undefined, field.name);
    width = w.end(at, width);
  }
  field.entryWidth = width;
}

/** Keys in Go's sort.Strings order: by UTF-8 bytes, which is code point order. */
function sortedKeys(map: Record<string, unknown>): string[] {
  const keys = Object.keys(map);
  if (keys.length < 2) return keys;
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
  if (!sorted) keys.sort();
  if (hasHighUnits(keys)) keys.sort(compareCodePoints);
  return keys;
}

/** Whether a key holds a unit of U+D800..U+FFFF: only there does UTF-16 order differ from code point order. */
function hasHighUnits(keys: readonly string[]): boolean {
  for (const key of keys) {
    for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) >= 0xd800) return true;
  }
  return false;
}

function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < x.length && i < y.length; i++) {
    const d = (x[i]!.codePointAt(0) ?? 0) - (y[i]!.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Writes one value (after its tag); `undefined` writes the Go zero value of the type. */
function writeValue(w: Writer, type: ValueType, v: unknown, name: string): void {
  switch (type.kind) {
    case STRING:
      if (v === undefined) w.byte(0);
      else if (typeof v === 'string') w.string(v);
      else throw mismatch(name, 'a string', v);
      return;
    case BYTES:
      if (v === undefined) w.byte(0);
      else if (typeof v === 'string') w.bytes(Buffer.from(v, 'base64'));
      else if (v instanceof Uint8Array) w.bytes(v);
      else throw mismatch(name, 'a base64 string', v);
      return;
    case BOOL:
      if (v === undefined) w.byte(0);
      else if (typeof v === 'boolean') w.byte(v ? 1 : 0);
      else throw mismatch(name, 'a boolean', v);
      return;
    case INT32:
    case INT64:
      if (v === undefined) w.byte(0);
      else if (typeof v === 'number' && Number.isInteger(v)) w.int64(type.kind === INT32 ? v | 0 : v);
      else throw mismatch(name, 'an integer', v);
      return;
    case DOUBLE:
      if (v === undefined) w.double(0);
      else if (typeof v === 'number') w.double(v);
      else throw mismatch(name, 'a number', v);
      return;
    case MESSAGE: {
      if (v !== undefined && !isRecord(v)) throw mismatch(name, 'an object', v);
      const at = w.begin(type.lengthWidth);
      writeMessage(w, messageOf(type), v);
      type.lengthWidth = w.end(at, type.lengthWidth);
      return;
    }
    case TIME:
    case MICRO_TIME: {
      const at = w.begin();
      if (v !== undefined) {
        if (typeof v !== 'string') throw mismatch(name, 'a time', v);
        const t = parseRFC3339(v);
        if (!t) throw new ProtobufError(`protobuf: "${name}": ${JSON.stringify(v)} is not an RFC 3339 time`);
        // Go's zero time (0001-01-01T00:00:00Z, JSON null) is an empty message.
        if (isZeroTime(t, type.kind === TIME ? 'Time' : 'MicroTime')) {
          w.end(at);
          return;
        }
        w.byte(0x08);
        w.int64(t.seconds);
        w.byte(0x10);
        // metav1.Time keeps whole seconds; MicroTime microseconds.
        w.int64(type.kind === TIME ? 0 : t.nanos - (t.nanos % 1000));
      }
      w.end(at);
      return;
    }
    case DURATION: {
      let ns = 0n;
      if (v !== undefined) {
        const parsed = typeof v === 'string' ? parseGoDuration(v) : null;
        if (parsed === null) throw mismatch(name, 'a duration', v);
        ns = parsed;
      }
      const at = w.begin();
      w.byte(0x08);
      const u = BigInt.asUintN(64, ns);
      w.varint64(Number(u & 0xffffffffn), Number(u >> 32n));
      w.end(at);
      return;
    }
    case QUANTITY: {
      let text = '0';
      if (typeof v === 'string') text = v;
      else if (typeof v === 'number') text = String(v);
      else if (v !== undefined) throw mismatch(name, 'a quantity', v);
      const at = w.begin();
      w.byte(0x0a);
      w.string(text);
      w.end(at);
      return;
    }
    case INT_OR_STRING: {
      const at = w.begin();
      if (typeof v === 'string') {
        w.byte(0x08);
        w.byte(1);
        w.byte(0x10);
        w.byte(0);
        w.byte(0x1a);
        w.string(v);
      } else if (v === undefined || (typeof v === 'number' && Number.isInteger(v))) {
        w.byte(0x08);
        w.byte(0);
        w.byte(0x10);
        w.int64((v ?? 0) | 0);
        w.byte(0x1a);
        w.byte(0);
      } else {
        throw mismatch(name, 'an integer or a string', v);
      }
      w.end(at);
      return;
    }
    case FIELDS_V1:
    case RAW_EXTENSION: {
      if (type.kind === FIELDS_V1 && isRecord(v)) {
        w.raw(fieldsV1Message(v));
        return;
      }
      const at = w.begin();
      if (v instanceof Uint8Array) {
        w.byte(0x0a);
        w.bytes(v);
      } else if (v !== undefined) {
        w.byte(0x0a);
        w.string(JSON.stringify(v));
      }
      w.end(at);
      return;
    }
    case WRAPPED_LIST: {
      if (v !== undefined && !Array.isArray(v)) throw mismatch(name, 'a list', v);
      const element = type.element!;
      const tag = 8 + element.wireType;
      const at = w.begin(type.lengthWidth);
      for (const item of (v ?? []) as unknown[]) {
        w.uint32(tag);
        writeValue(w, element, item ?? undefined, name);
      }
      type.lengthWidth = w.end(at, type.lengthWidth);
      return;
    }
  }
}

function mismatch(name: string, expected: string, v: unknown): ProtobufError {
  return new ProtobufError(`protobuf: "${name}" must be ${expected}, not ${JSON.stringify(v)}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/**
 * Seconds since the epoch and non-negative nanoseconds of an RFC 3339 time, as Go's time.Unix() and
 * Nanosecond(); null when Go would not parse it. Stored times are canonical (shared/go/time.ts);
 * this reads older ones too.
 */
function parseRFC3339(text: string): Instant | null {
  if (text === lastParsedText) return lastParsed;
  lastParsed = tryParseTime(text);
  lastParsedText = text;
  return lastParsed;
}

/** The last time parsed: objects of one list often share their timestamps. */
let lastParsedText = '';
let lastParsed: Instant | null = null;

/** Go's time.ParseDuration in nanoseconds; null when malformed (the codec reports its own error). */
function parseGoDuration(text: string): bigint | null {
  try {
    return parseGoDurationNs(text);
  } catch {
    return null;
  }
}

/** Encodes a value as the message its schema (an object schema with `x-corral-protobuf` properties) describes. */
export function encodeMessage(value: Record<string, unknown>, schema: Schema): Uint8Array {
  const layout = layoutOf(schema);
  return withWriter((w) => writeMessage(w, layout, value));
}
