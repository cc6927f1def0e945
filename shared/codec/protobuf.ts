/**
 * Kubernetes' protobuf wire format (`application/vnd.kubernetes.protobuf`), driven by the kind
 * schemas' `x-corral-protobuf` field numbers so that upstream clients interoperate byte for byte.
 *
 * Messages are written as upstream's gogo-protobuf code writes them: fields in ascending field
 * number; non-pointer scalars and strings always, even when zero; non-pointer nested messages
 * always (possibly empty); pointer (`optional`) fields only when set; `[]byte` when present; lists
 * element by element (never packed); maps as {key=1, value=2} entries in sorted key order.
 * A list (or map value) of lists is a named slice type upstream (`ExtraValue`), a message holding
 * the inner list as its field 1. A struct embedded with `json:",inline"` (schema.ts `embedded()`)
 * is a nested message in protobuf whose fields are the parent's in JSON.
 *
 * Decoding yields the JSON shape: times as RFC 3339 strings, quantities as strings, int-or-string as
 * number or string, bytes as base64, FieldsV1 and RawExtension as parsed JSON. Zero values of
 * non-pointer fields are dropped (JSON omits them: Go's omitempty), except Quantity and Duration,
 * which Go's JSON always writes; values of pointer fields are kept, explicit zeros included.
 * Unknown field numbers are skipped.
 *
 * Bodies are wrapped in the envelope: the prefix `k8s\0`, then a runtime.Unknown message
 * {typeMeta=1 {apiVersion=1, kind=2}, raw=2 (the object), contentEncoding=3, contentType=4}. Watch
 * streams are length-delimited frames (4-byte big-endian length) of bare meta/v1 WatchEvent
 * messages (no envelope: upstream encodes the event with its raw serializer) whose object.raw is
 * the object's own envelope.
 */
import { formatGoDurationNs, parseGoDurationNs } from '../api/goduration.ts';
import { formatMicroTime, formatTime, isZeroTime, tryParseTime, type Instant } from '../api/gotime.ts';
import type { Schema } from '../api/schema.ts';
import { parseJson } from './json.ts';

export const protobufMediaType = 'application/vnd.kubernetes.protobuf';
/** The Content-Type of a protobuf watch response. */
export const protobufWatchMediaType = 'application/vnd.kubernetes.protobuf;stream=watch';
/** `k8s\0`: the magic prefix; its last byte selects the encoding (0: runtime.Unknown). */
export const envelopePrefix: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** Malformed protobuf input, or a value that does not fit its schema. */
export class ProtobufError extends Error {
  override name = 'ProtobufError';
}

/** A body without the `k8s\0` prefix (upstream rejects it: a 400 for request bodies). */
export class ProtobufPrefixError extends ProtobufError {
  override name = 'ProtobufPrefixError';
}

export interface Envelope {
  apiVersion: string;
  kind: string;
  /** The object's own message (a view into the decoded bytes, not a copy). */
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

// ---------------------------------------------------------------------------------------------
// Schemas compiled to field tables.

const STRING = 0;
const BYTES = 1;
const BOOL = 2;
const INT32 = 3;
const INT64 = 4;
const DOUBLE = 5;
const MESSAGE = 6;
const TIME = 7;
const MICRO_TIME = 8;
const DURATION = 9;
const QUANTITY = 10;
const INT_OR_STRING = 11;
const FIELDS_V1 = 12;
const RAW_EXTENSION = 13;
/** A named slice type: a message whose field 1 repeats the element. */
const WRAPPED_LIST = 14;
/** A struct embedded with `json:",inline"`: its own message in protobuf, its fields the parent's in JSON. */
const EMBEDDED = 15;

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;
const WIRE_START_GROUP = 3;
const WIRE_END_GROUP = 4;
const WIRE_FIXED32 = 5;

/** How one value is encoded, without its tag. */
interface ValueType {
  kind: number;
  wireType: number;
  /** The message's schema (MESSAGE); its layout compiles on first use, as schemas may be recursive. */
  schema?: Schema;
  /** The message's layout (MESSAGE once compiled, EMBEDDED). */
  message?: MessageLayout;
  /** The element (WRAPPED_LIST). */
  element?: ValueType;
  /**
   * Bytes the length prefix of this value took when last written (MESSAGE, WRAPPED_LIST): the
   * writer reserves as many for the next one, as values of one field tend to be of similar size.
   */
  lengthWidth: number;
}

const SINGLE = 0;
const REPEATED = 1;
const MAP = 2;

interface FieldLayout {
  /** The property's name; empty for an EMBEDDED message, whose properties are the parent's. */
  name: string;
  number: number;
  optional: boolean;
  /** Go's JSON tag has no omitempty: a decoded zero is part of the object, not an absence. */
  keepZero: boolean;
  shape: typeof SINGLE | typeof REPEATED | typeof MAP;
  /** The type of the field, of each element (REPEATED) or of each map value (MAP). */
  type: ValueType;
  /** number << 3 | wire type, as written before each value (each entry of a map). */
  tag: number;
  /** As ValueType.lengthWidth, for the entries of a map. */
  entryWidth: number;
}

interface MessageLayout {
  /** Ascending field number: the order of encoding. */
  fields: FieldLayout[];
  byNumber: (FieldLayout | undefined)[];
  /**
   * The schema's property names in order, when decoding (field number order, embedded messages'
   * properties at their message's place) would order them differently: decoded objects follow the
   * schema, as Go's JSON follows the struct.
   */
  propertyOrder: string[] | null;
  /** As ValueType.lengthWidth, for the message as the raw object of an envelope (encodeObject). */
  rawWidth: number;
}

const layouts = new WeakMap<Schema, MessageLayout>();

function layoutOf(schema: Schema): MessageLayout {
  let layout = layouts.get(schema);
  if (layout) return layout;
  // Properties without a field number are not part of the message: apiVersion and kind travel in
  // the envelope.
  const entries = Object.entries(schema.properties ?? {}).filter(([, property]) => property['x-corral-protobuf'] !== undefined);
  layout = buildLayout(entries, 0);
  const inSchemaOrder = entries.map(([name]) => name);
  const inWireOrder = wireOrder(layout);
  if (inWireOrder.some((name, i) => name !== inSchemaOrder[i])) layout.propertyOrder = inSchemaOrder;
  layouts.set(schema, layout);
  return layout;
}

/** The layout of the properties at `depth` levels of embedding (0: the message itself). */
function buildLayout(entries: [string, Schema][], depth: number): MessageLayout {
  const layout: MessageLayout = { fields: [], byNumber: [], propertyOrder: null, rawWidth: 1 };
  const groups = new Map<number, [string, Schema][]>();
  const add = (field: FieldLayout, name: string): void => {
    if (layout.byNumber[field.number]) throw new ProtobufError(`protobuf: field number ${field.number} of "${name}" is already used`);
    layout.byNumber[field.number] = field;
    layout.fields.push(field);
  };
  for (const entry of entries) {
    const [name, property] = entry;
    const marker = property['x-corral-protobuf']!;
    const embeddedIn = marker.embedded?.[depth];
    if (embeddedIn !== undefined) {
      let group = groups.get(embeddedIn);
      if (!group) {
        groups.set(embeddedIn, (group = []));
        // A placeholder keeps the number taken until the group is complete.
        add({ name: '', number: embeddedIn, optional: false, keepZero: false, shape: SINGLE, type: valueType(EMBEDDED, WIRE_BYTES), tag: 0, entryWidth: 1 }, name);
      }
      group.push(entry);
      continue;
    }
    let shape: FieldLayout['shape'] = SINGLE;
    let type: ValueType;
    if (property.type === 'array' && !property['x-corral-type']) {
      shape = REPEATED;
      type = valueTypeOf(property.items ?? {}, name);
    } else if (isMapSchema(property)) {
      shape = MAP;
      type = valueTypeOf(property.additionalProperties ?? {}, name);
    } else {
      type = valueTypeOf(property, name);
    }
    add({ name, number: marker.field, optional: marker.optional === true, keepZero: marker.keepZero === true, shape, type, tag: 0, entryWidth: 1 }, name);
  }
  for (const [number, group] of groups) layout.byNumber[number]!.type.message = buildLayout(group, depth + 1);
  layout.fields.sort((a, b) => a.number - b.number);
  for (const field of layout.fields) field.tag = (field.shape === MAP ? WIRE_BYTES : field.type.wireType) + field.number * 8;
  return layout;
}

/** Property names in the order decoding meets them. */
function wireOrder(layout: MessageLayout): string[] {
  return layout.fields.flatMap((field) => (field.type.kind === EMBEDDED ? wireOrder(field.type.message!) : [field.name]));
}

function isMapSchema(schema: Schema): boolean {
  return schema.additionalProperties !== undefined && schema.properties === undefined && !schema['x-corral-type'];
}

/** Every ValueType has all properties, so that the hot paths that read them see one object shape. */
function valueType(kind: number, wireType: number, schema?: Schema, element?: ValueType): ValueType {
  return { kind, wireType, schema, message: undefined, element, lengthWidth: 1 };
}

function valueTypeOf(schema: Schema, name: string): ValueType {
  switch (schema['x-corral-type']) {
    case 'Time':
      return valueType(TIME, WIRE_BYTES);
    case 'MicroTime':
      return valueType(MICRO_TIME, WIRE_BYTES);
    case 'Duration':
      return valueType(DURATION, WIRE_BYTES);
    case 'Quantity':
      return valueType(QUANTITY, WIRE_BYTES);
    case 'IntOrString':
      return valueType(INT_OR_STRING, WIRE_BYTES);
    case 'FieldsV1':
      return valueType(FIELDS_V1, WIRE_BYTES);
    case 'RawExtension':
      return valueType(RAW_EXTENSION, WIRE_BYTES);
    case undefined:
      break;
  }
  if (schema['x-kubernetes-int-or-string']) return valueType(INT_OR_STRING, WIRE_BYTES);
  switch (schema.type) {
    case 'string':
      return schema.format === 'byte' ? valueType(BYTES, WIRE_BYTES) : valueType(STRING, WIRE_BYTES);
    case 'boolean':
      return valueType(BOOL, WIRE_VARINT);
    case 'integer':
      return valueType(schema.format === 'int32' ? INT32 : INT64, WIRE_VARINT);
    case 'number':
      return valueType(DOUBLE, WIRE_FIXED64);
    case 'array':
      return valueType(WRAPPED_LIST, WIRE_BYTES, undefined, valueTypeOf(schema.items ?? {}, name));
    case 'object':
      if (isMapSchema(schema)) throw new ProtobufError(`protobuf: "${name}" is a map inside a list or map, which protobuf cannot express`);
      return valueType(MESSAGE, WIRE_BYTES, schema);
    case undefined:
      if (schema.properties) return valueType(MESSAGE, WIRE_BYTES, schema);
      if (schema['x-kubernetes-preserve-unknown-fields']) return valueType(RAW_EXTENSION, WIRE_BYTES);
      break;
  }
  throw new ProtobufError(`protobuf: no encoding for the schema of "${name}"`);
}

function messageOf(type: ValueType): MessageLayout {
  return (type.message ??= layoutOf(type.schema ?? {}));
}

// ---------------------------------------------------------------------------------------------
// Writing.

/**
 * Node's Buffer methods behind `write(s, offset, 'utf8')`, `toString('utf8', start, end)` and the
 * like, which @types/node does not declare: called directly they skip the encoding-name dispatch
 * and argument checks, and utf8Write needs no subarray view (as TextEncoder.encodeInto does).
 */
interface NodeBuffer extends Buffer {
  /** Writes at most `max` bytes of `s` at `offset`; returns the bytes written. */
  utf8Write(s: string, offset: number, max: number): number;
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
  base64Slice(start: number, end: number): string;
}

const bufferProto = Buffer.prototype as Partial<NodeBuffer>;
if (typeof bufferProto.utf8Write !== 'function' || typeof bufferProto.utf8Slice !== 'function' || typeof bufferProto.latin1Slice !== 'function' || typeof bufferProto.base64Slice !== 'function') {
  throw new Error('protobuf codec: this runtime’s Buffer lacks utf8Write, utf8Slice, latin1Slice or base64Slice');
}

function allocBuffer(size: number): NodeBuffer {
  return Buffer.allocUnsafe(size) as NodeBuffer;
}

/**
 * A growable buffer written front to back. A length-delimited value reserves room for its length
 * prefix before its content is written: as many bytes as the caller guesses (what the same field
 * took last time), and the content is moved when the guess was wrong, as lengths are minimal
 * varints in upstream's encoding. Guessing from the last value of the field keeps most moves away
 * in lists, whose items are alike; a wrong guess costs one move, as a one-byte reservation would.
 */
class Writer {
  buf: NodeBuffer;
  pos = 0;

  constructor(size: number) {
    this.buf = allocBuffer(size);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = allocBuffer(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** An unsigned varint of at most 32 bits (tags, lengths, booleans). */
  uint32(v: number): void {
    this.ensure(5);
    this.pos = putUint32(this.buf, this.pos, v);
  }

  /** A signed integer as a 64-bit two's complement varint: negatives take 10 bytes, as Go's int32 and int64 do. */
  int64(v: number): void {
    if (v >= 0 && v <= 0x7fffffff) {
      this.uint32(v);
      return;
    }
    const abs = Math.abs(v);
    let hi = Math.floor(abs / 4294967296) >>> 0;
    let lo = (abs - hi * 4294967296) >>> 0;
    if (v < 0) {
      lo = (~lo + 1) >>> 0;
      hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
    }
    this.varint64(lo, hi);
  }

  varint64(lo: number, hi: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (hi !== 0) {
      buf[pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 127) {
      buf[pos++] = (lo & 127) | 128;
      lo >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** A length-prefixed UTF-8 string. */
  string(s: string): void {
    const n = s.length;
    // Short ASCII strings are copied here: below about 20 units, cheaper than a call into the
    // runtime. At most 3 bytes per UTF-16 unit: the length fits one byte.
    if (n < 20) {
      this.ensure(1 + 3 * n);
      const buf = this.buf;
      const start = this.pos + 1;
      let p = start;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          p = start + buf.utf8Write(s, start, 3 * n);
          break;
        }
        buf[p++] = c;
      }
      buf[this.pos] = p - start;
      this.pos = p;
      return;
    }
    // UTF-8 takes 1 to 3 bytes per UTF-16 unit. The length prefix is guessed for ASCII, the
    // common case, where it is exact; otherwise the content moves to make room for a longer one.
    const max = 3 * n;
    const guess = varintSize(n);
    this.ensure(varintSize(max) + max);
    const buf = this.buf;
    const start = this.pos + guess;
    const len = buf.utf8Write(s, start, max);
    const width = varintSize(len);
    if (width !== guess) buf.copyWithin(this.pos + width, start, start + len);
    this.pos = putUint32(buf, this.pos, len) + len;
  }

  bytes(b: Uint8Array): void {
    this.uint32(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Bytes written as they are, without a length. */
  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Reserves `width` bytes for the length of a nested message; returns where it goes. */
  begin(width = 1): number {
    this.ensure(width);
    const at = this.pos;
    this.pos += width;
    return at;
  }

  /**
   * Writes the length of the message begun at `at` with `reserved` bytes for it, moving its
   * content when the length takes another number of bytes; returns the number it took.
   */
  end(at: number, reserved = 1): number {
    const start = at + reserved;
    const len = this.pos - start;
    if (len < 128 && reserved === 1) {
      this.buf[at] = len;
      return 1;
    }
    const width = varintSize(len);
    if (width !== reserved) {
      if (width > reserved) this.ensure(width - reserved);
      this.buf.copyWithin(at + width, start, this.pos);
      this.pos += width - reserved;
    }
    putUint32(this.buf, at, len);
    return width;
  }

  /** A copy of what was written. */
  result(): Uint8Array {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }
}

/** Writes an unsigned varint of at most 32 bits at `pos` (room assured); returns the position after it. */
function putUint32(buf: Buffer, pos: number, v: number): number {
  while (v > 127) {
    buf[pos++] = (v & 127) | 128;
    v >>>= 7;
  }
  buf[pos++] = v;
  return pos;
}

function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/**
 * One writer serves every call (encoding is synchronous and never re-entered). It keeps its grown
 * buffer, up to 64 MiB, so that encoding a large list again neither regrows nor page-faults; a
 * larger result takes the buffer itself, and the next call starts afresh.
 */
let scratch = new Writer(64 * 1024);
const maxKeptScratch = 64 * 1024 * 1024;

function withWriter(write: (w: Writer) => void): Uint8Array {
  const w = scratch;
  w.pos = 0;
  try {
    write(w);
    if (w.buf.length <= maxKeptScratch) return w.result();
    scratch = new Writer(64 * 1024);
    return w.buf.subarray(0, w.pos);
  } catch (err) {
    if (w.buf.length > maxKeptScratch) scratch = new Writer(64 * 1024);
    throw err;
  }
}

function writeMessage(w: Writer, layout: MessageLayout, value: Record<string, unknown> | undefined): void {
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

/**
 * The encoded FieldsV1 message (length, then {raw=1: the JSON}) of each FieldsV1 object encoded,
 * kept while the object lives: lists and watch events encode the same stored objects again and
 * again, and JSON.stringify of the managed fields was the largest cost of encoding them.
 *
 * Contract: a FieldsV1 object (every object and array within it) is never changed once encoded.
 * corral holds it so: stored objects, which the watch cache shares, are not mutated, and
 * managed-fields code builds a new FieldsV1 for each change (toFieldsV1) rather than editing one.
 * Changing one in place would make later encodings send the old value.
 */
const fieldsV1Messages = new WeakMap<Record<string, unknown>, Uint8Array>();

function fieldsV1Message(v: Record<string, unknown>): Uint8Array {
  let message = fieldsV1Messages.get(v);
  if (message === undefined) {
    const json = JSON.stringify(v);
    const len = Buffer.byteLength(json, 'utf8');
    const inner = 1 + varintSize(len) + len;
    const out = allocBuffer(varintSize(inner) + inner);
    let pos = putUint32(out, 0, inner);
    out[pos++] = 0x0a;
    pos = putUint32(out, pos, len);
    out.utf8Write(json, pos, len);
    fieldsV1Messages.set(v, (message = out));
  }
  return message;
}

function mismatch(name: string, expected: string, v: unknown): ProtobufError {
  return new ProtobufError(`protobuf: "${name}" must be ${expected}, not ${JSON.stringify(v)}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

// ---------------------------------------------------------------------------------------------
// Reading.

/** A position in the bytes being decoded. */
interface Reader {
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
function decoding<T>(bytes: Uint8Array, read: (r: Reader) => T): T {
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

const eof = (): ProtobufError => new ProtobufError('unexpected EOF');

/** A varint of at most 32 bits: tags and lengths. */
function readUint32(r: Reader, end: number): number {
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

/** The low and high 32 bits of a varint of up to 64 bits. */
let lo64 = 0;
let hi64 = 0;

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

function readInt64(r: Reader, end: number): number {
  readVarint64(r, end);
  if (hi64 & 0x80000000) return -((~hi64 >>> 0) * 4294967296 + (~lo64 >>> 0) + 1);
  return hi64 * 4294967296 + lo64;
}

function readBigInt64(r: Reader, end: number): bigint {
  readVarint64(r, end);
  return BigInt.asIntN(64, (BigInt(hi64) << 32n) | BigInt(lo64));
}

/** The end of a length-delimited value starting at r.pos. */
function readLength(r: Reader, end: number): number {
  const len = readUint32(r, end);
  const stop = r.pos + len;
  if (stop > end) throw eof();
  return stop;
}

function readString(r: Reader, end: number): string {
  const stop = readLength(r, end);
  const start = r.pos;
  r.pos = stop;
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

/**
 * FieldsV1 JSON as apimachinery writes it: objects of objects, no whitespace, keys without
 * escapes; undefined for anything else (JSON.parse then reads it). The same result as JSON.parse,
 * cheaper, as the keys (`f:metadata`, `.`, …) come from the string cache.
 */
function parseFieldsV1(r: Reader, start: number, end: number): Record<string, unknown> | undefined {
  fieldsPos = start;
  const tree = readFieldsObject(r, end, 0);
  return fieldsPos === end ? tree : undefined;
}

/** Where readFieldsObject stopped. */
let fieldsPos = 0;

/**
 * Deeper trees are left to JSON.parse, which does not recurse: a request body could otherwise
 * overflow the stack. Managed fields nest as deep as the object's fields do.
 */
const maxFieldsDepth = 100;

/** The object at fieldsPos (see parseFieldsV1), `depth` objects down. */
function readFieldsObject(r: Reader, end: number, depth: number): Record<string, unknown> | undefined {
  if (depth > maxFieldsDepth) return undefined;
  const buf = r.buf;
  let p = fieldsPos;
  if (p >= end || buf[p] !== 0x7b) return undefined; // {
  p++;
  const out: Record<string, unknown> = {};
  if (p < end && buf[p] === 0x7d) {
    // }
    fieldsPos = p + 1;
    return out;
  }
  for (;;) {
    if (p >= end || buf[p] !== 0x22) return undefined; // "
    const keyStart = ++p;
    // Escapes and control characters (invalid JSON) are left to JSON.parse.
    while (p < end && buf[p] !== 0x22 && buf[p] !== 0x5c && buf[p]! >= 0x20) p++;
    if (p >= end || buf[p] !== 0x22) return undefined;
    const key = p - keyStart <= maxCachedLength ? shortString(r, keyStart, p) : buf.utf8Slice(keyStart, p);
    // An assignment to __proto__ would set the prototype, where JSON.parse makes a property.
    if (key === '__proto__') return undefined;
    p++;
    if (p >= end || buf[p] !== 0x3a) return undefined; // :
    fieldsPos = p + 1;
    const value = readFieldsObject(r, end, depth + 1);
    if (value === undefined) return undefined;
    out[key] = value;
    p = fieldsPos;
    if (p < end && buf[p] === 0x2c) {
      // ,
      p++;
      continue;
    }
    if (p < end && buf[p] === 0x7d) {
      fieldsPos = p + 1;
      return out;
    }
    return undefined;
  }
}

function skipField(r: Reader, wireType: number, end: number, fieldNumber: number): void {
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
      readVarint64(r, end);
      return (lo64 | hi64) !== 0;
    case INT32:
      readVarint64(r, end);
      return lo64 | 0;
    case INT64:
      return readInt64(r, end);
    case DOUBLE: {
      if (r.pos + 8 > end) throw eof();
      const v = r.buf.readDoubleLE(r.pos);
      r.pos += 8;
      return v;
    }
    case MESSAGE: {
      const stop = readLength(r, end);
      const layout = messageOf(type);
      const decoded = readMessage(r, layout, stop, isRecord(previous) ? previous : {});
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
        else if (tag === 0x10) {
          readVarint64(r, stop);
          intVal = lo64 | 0;
        } else if (tag === 0x1a) strVal = readString(r, stop);
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

// ---------------------------------------------------------------------------------------------
// Times and durations.

/**
 * Seconds since the epoch and non-negative nanoseconds of an RFC 3339 time, as Go's time.Unix() and
 * Nanosecond(); null when Go would not parse it. Stored times are canonical (shared/api/gotime.ts);
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
export function parseGoDuration(text: string): bigint | null {
  try {
    return parseGoDurationNs(text);
  } catch {
    return null;
  }
}

export { formatGoDurationNs as formatGoDuration };

// ---------------------------------------------------------------------------------------------
// Public API.

/** Encodes a value as the message its schema (an object schema with `x-corral-protobuf` properties) describes. */
export function encodeMessage(value: Record<string, unknown>, schema: Schema): Uint8Array {
  const layout = layoutOf(schema);
  return withWriter((w) => writeMessage(w, layout, value));
}

/** Decodes a message into its JSON shape. */
export function decodeMessage(bytes: Uint8Array, schema: Schema): Record<string, unknown> {
  return decoding(bytes, (r) => decodeInto(r, layoutOf(schema), bytes.length, {}));
}

function decodeInto(r: Reader, layout: MessageLayout, end: number, out: Record<string, unknown>): Record<string, unknown> {
  if (layout.propertyOrder === null) return readMessage(r, layout, end, out);
  const decoded = readMessage(r, layout, end, {});
  for (const name of layout.propertyOrder) {
    const v = decoded[name];
    if (v !== undefined) out[name] = v;
  }
  return out;
}

function writeEnvelopeHead(w: Writer, apiVersion: string, kind: string): void {
  w.ensure(4);
  w.buf.set(envelopePrefix, w.pos);
  w.pos += 4;
  w.byte(0x0a);
  const at = w.begin();
  w.byte(0x0a);
  w.string(apiVersion);
  w.byte(0x12);
  w.string(kind);
  w.end(at);
}

/** contentEncoding and contentType, always written and empty, as upstream writes them. */
function writeEnvelopeTail(w: Writer): void {
  w.ensure(4);
  w.buf[w.pos++] = 0x1a;
  w.buf[w.pos++] = 0;
  w.buf[w.pos++] = 0x22;
  w.buf[w.pos++] = 0;
}

/** Wraps an encoded object in the `k8s\0` envelope. */
export function encodeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  return encodeEnvelopeParts(apiVersion, kind, [raw]);
}

/**
 * Wraps a message given in consecutive parts (a list's metadata, then its items, each encoded
 * once and kept) in the envelope: one buffer of the exact size, each part copied into it once.
 */
export function encodeEnvelopeParts(apiVersion: string, kind: string, parts: readonly Uint8Array[]): Uint8Array {
  const head = withWriter((w) => {
    writeEnvelopeHead(w, apiVersion, kind);
    w.byte(0x12);
  });
  const tail = withWriter(writeEnvelopeTail);
  let rawLength = 0;
  for (const part of parts) rawLength += part.length;
  const out = Buffer.allocUnsafe(head.length + varintSize(rawLength) + rawLength + tail.length);
  out.set(head, 0);
  let pos = putUint32(out, head.length, rawLength);
  for (const part of parts) {
    out.set(part, pos);
    pos += part.length;
  }
  out.set(tail, pos);
  return out;
}

/** Opens the envelope; throws ProtobufPrefixError without the `k8s\0` prefix. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length === 0) throw new ProtobufError('empty data');
  if (!startsWithPrefix(bytes)) {
    throw new ProtobufPrefixError(`provided data does not appear to be a protobuf message, expected prefix [${envelopePrefix.join(' ')}]`);
  }
  if (bytes.length === envelopePrefix.length) throw new ProtobufError('empty body');
  return decoding(bytes, readEnvelope);
}

function readEnvelope(r: Reader): Envelope {
  r.pos = envelopePrefix.length;
  const end = r.buf.length;
  const envelope: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  while (r.pos < end) {
    const tag = readUint32(r, end);
    if (tag === 0x0a) {
      const stop = readLength(r, end);
      while (r.pos < stop) {
        const inner = readUint32(r, stop);
        if (inner === 0x0a) envelope.apiVersion = readString(r, stop);
        else if (inner === 0x12) envelope.kind = readString(r, stop);
        else skipField(r, inner & 7, stop, inner >>> 3);
      }
    } else if (tag === 0x12) {
      const stop = readLength(r, end);
      envelope.raw = r.buf.subarray(r.pos, stop);
      r.pos = stop;
    } else if (tag === 0x1a) envelope.contentEncoding = readString(r, end);
    else if (tag === 0x22) envelope.contentType = readString(r, end);
    else skipField(r, tag & 7, end, tag >>> 3);
  }
  return envelope;
}

function startsWithPrefix(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
}

/**
 * Encodes an object (or a list, or a Status) with its envelope in one pass. The type comes from
 * `typeMeta`, else from the value's own apiVersion and kind.
 */
export function encodeObject(value: Record<string, unknown>, schema: Schema, typeMeta?: { apiVersion: string; kind: string }): Uint8Array {
  const layout = layoutOf(schema);
  const apiVersion = typeMeta?.apiVersion ?? (typeof value.apiVersion === 'string' ? value.apiVersion : '');
  const kind = typeMeta?.kind ?? (typeof value.kind === 'string' ? value.kind : '');
  return withWriter((w) => {
    writeEnvelopeHead(w, apiVersion, kind);
    w.byte(0x12);
    const at = w.begin(layout.rawWidth);
    writeMessage(w, layout, value);
    layout.rawWidth = w.end(at, layout.rawWidth);
    writeEnvelopeTail(w);
  });
}

/**
 * Decodes an enveloped object into its JSON shape, with apiVersion and kind from the envelope
 * first (when the envelope names them).
 */
export function decodeObject(bytes: Uint8Array, schema: Schema): Record<string, unknown> {
  const envelope = decodeEnvelope(bytes);
  const out: Record<string, unknown> = {};
  if (envelope.apiVersion) out.apiVersion = envelope.apiVersion;
  if (envelope.kind) out.kind = envelope.kind;
  return decoding(envelope.raw, (r) => decodeInto(r, layoutOf(schema), envelope.raw.length, out));
}

/**
 * One frame of a protobuf watch stream: a 4-byte big-endian length, then a meta/v1 WatchEvent
 * {type=1, object=2 RawExtension{raw=1}} whose raw is the object's envelope (encodeObject's result).
 */
export function encodeWatchFrame(type: string, objectEnvelope: Uint8Array): Uint8Array {
  return withWriter((w) => {
    w.ensure(4);
    w.pos = 4;
    w.byte(0x0a);
    w.string(type);
    w.byte(0x12);
    const at = w.begin();
    w.byte(0x0a);
    w.bytes(objectEnvelope);
    w.end(at);
    w.buf.writeUInt32BE(w.pos - 4, 0);
  });
}

export interface WatchEventFrame {
  type: string;
  /** The object's envelope (decode it with decodeObject). */
  object: Uint8Array;
}

/** Decodes the body of one watch frame (without its length prefix). */
export function decodeWatchEvent(body: Uint8Array): WatchEventFrame {
  return decoding(body, readWatchEvent);
}

function readWatchEvent(r: Reader): WatchEventFrame {
  const end = r.buf.length;
  const event: WatchEventFrame = { type: '', object: new Uint8Array(0) };
  while (r.pos < end) {
    const tag = readUint32(r, end);
    if (tag === 0x0a) event.type = readString(r, end);
    else if (tag === 0x12) {
      const stop = readLength(r, end);
      while (r.pos < stop) {
        const inner = readUint32(r, stop);
        if (inner === 0x0a) {
          const rawEnd = readLength(r, stop);
          event.object = r.buf.subarray(r.pos, rawEnd);
          r.pos = rawEnd;
        } else skipField(r, inner & 7, stop, inner >>> 3);
      }
    } else skipField(r, tag & 7, end, tag >>> 3);
  }
  return event;
}

/** Splits a length-delimited stream (4-byte big-endian lengths) into frame bodies, across chunk boundaries. */
export class FrameSplitter {
  private pending: Buffer = Buffer.alloc(0);

  /** Adds a chunk; returns the frames it completes. */
  push(chunk: Uint8Array): Uint8Array[] {
    let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const frames: Uint8Array[] = [];
    while (data.length >= 4) {
      const len = data.readUInt32BE(0);
      if (data.length < 4 + len) break;
      frames.push(data.subarray(4, 4 + len));
      data = data.subarray(4 + len);
    }
    this.pending = Buffer.from(data);
    return frames;
  }

  /** Bytes of an incomplete frame still waiting for the rest. */
  get buffered(): number {
    return this.pending.length;
  }
}
