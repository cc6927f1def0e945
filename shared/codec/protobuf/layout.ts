/**
 * Kind schemas compiled to the field tables that encoding (encode.ts) and decoding (decode.ts) walk.
 * Field numbers come from the schemas' `x-corral-protobuf` markers, which hold upstream's
 * generated.proto numbers, so that upstream clients interoperate byte for byte. Properties without
 * a number are not part of the message: apiVersion and kind travel in the envelope.
 *
 * A list (or map value) of lists is a named slice type upstream (`ExtraValue`), a message holding
 * the inner list as its field 1. A struct embedded with `json:",inline"` (schema.ts `embedded()`)
 * is a nested message in protobuf whose fields are the parent's in JSON. A map inside a list or a
 * map has no protobuf form: compiling such a schema throws.
 *
 * Layouts compile on first use and are kept per schema object; they also carry the length-prefix
 * widths the writer last used for each field (see writer.ts), which is why they are mutable.
 */
import type { Schema } from '../../api/schema.ts';
import { ProtobufError } from './errors.ts';
import { WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT } from './wire.ts';

/** Value kinds (ValueType.kind): how one value is written and read. */
export const STRING = 0;
export const BYTES = 1;
export const BOOL = 2;
export const INT32 = 3;
export const INT64 = 4;
export const DOUBLE = 5;
export const MESSAGE = 6;
export const TIME = 7;
export const MICRO_TIME = 8;
export const DURATION = 9;
export const QUANTITY = 10;
export const INT_OR_STRING = 11;
export const FIELDS_V1 = 12;
export const RAW_EXTENSION = 13;
/** A named slice type: a message whose field 1 repeats the element. */
export const WRAPPED_LIST = 14;
/** A struct embedded with `json:",inline"`: its own message in protobuf, its fields the parent's in JSON. */
export const EMBEDDED = 15;

/** How one value is encoded, without its tag. */
export interface ValueType {
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

/** Field shapes (FieldLayout.shape). */
export const SINGLE = 0;
export const REPEATED = 1;
export const MAP = 2;

export interface FieldLayout {
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

export interface MessageLayout {
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

export function layoutOf(schema: Schema): MessageLayout {
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
        add(
          { name: '', number: embeddedIn, optional: false, keepZero: false, shape: SINGLE, type: valueType(EMBEDDED, WIRE_BYTES), tag: 0, entryWidth: 1 },
          name,
        );
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

export function messageOf(type: ValueType): MessageLayout {
  return (type.message ??= layoutOf(type.schema ?? {}));
}
