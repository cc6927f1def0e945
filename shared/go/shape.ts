/**
 * An object in the shape upstream gives it by decoding into Go structs and encoding them again,
 * for the places where that shape is visible on the wire:
 * - resource.Quantity values are written in canonical form (`4000m` → `4`, `1024Mi` → `1Gi`, the
 *   number 110 → "110"), as Quantity.String() writes them;
 * - metav1.Time and MicroTime values are written as their MarshalJSON writes them: in UTC, Time to
 *   the second (`2024-01-01T10:00:00.5+02:00` → `2024-01-01T08:00:00Z`), MicroTime to the
 *   microsecond (`2024-01-01T08:00:00.500000Z`); Go's zero time, which Go writes as null, is
 *   removed like any null field;
 * - a non-pointer scalar whose JSON tag has no omitempty (schema marker `keepZero`, e.g.
 *   VolumeAttachmentStatus.attached) is always there, its zero included, and so is the non-pointer
 *   struct holding it.
 * corral applies it once, when an object is written, so JSON answers, protobuf answers and
 * managedFields agree with upstream's.
 */
import { canonicalTime, GoTimeParseError } from './time.ts';
import { tryCanonicalQuantity } from '../api/quantity.ts';
import type { Schema } from '../api/schema.ts';
import { isObject } from '../api/types.ts';

/** Whether a schema's subtree holds a Quantity, a time or a keepZero property (cached: schemas are long-lived). */
const shapedSchemas = new WeakMap<Schema, boolean>();

const isQuantitySchema = (schema: Schema): boolean => schema['x-corral-type'] === 'Quantity';
const timeKindOf = (schema: Schema): 'Time' | 'MicroTime' | undefined => {
  const type = schema['x-corral-type'];
  return type === 'Time' || type === 'MicroTime' ? type : undefined;
};

function isShaped(schema: Schema): boolean {
  let known = shapedSchemas.get(schema);
  if (known === undefined) {
    shapedSchemas.set(schema, false); // guards recursive schemas
    known =
      isQuantitySchema(schema) ||
      timeKindOf(schema) !== undefined ||
      Object.values(schema.properties ?? {}).some((p) => p['x-corral-protobuf']?.keepZero === true || isShaped(p)) ||
      (schema.additionalProperties !== undefined && isShaped(schema.additionalProperties)) ||
      (schema.items !== undefined && isShaped(schema.items));
    shapedSchemas.set(schema, known);
  }
  return known;
}

/**
 * A schema's properties as [name, property] pairs, in Object.entries' order (cached, as
 * shapedSchemas is: schemas are long-lived and do not change once in use). shape() walks them for
 * every object written; building the pairs on each call was a hot allocation.
 */
const propertyEntries = new WeakMap<Schema, readonly (readonly [name: string, property: Schema])[]>();

function propertiesOf(schema: Schema): readonly (readonly [name: string, property: Schema])[] {
  let entries = propertyEntries.get(schema);
  if (entries === undefined) {
    entries = Object.entries(schema.properties ?? {});
    propertyEntries.set(schema, entries);
  }
  return entries;
}

function zeroOf(schema: Schema): false | 0 | '' {
  return schema.type === 'boolean' ? false : schema.type === 'integer' || schema.type === 'number' ? 0 : '';
}

/**
 * A quantity's canonical text. A JSON number is read as its decimal text (Go reads the literal;
 * JSON.parse has kept only the number). Surrounding whitespace goes, as upstream's UnmarshalJSON
 * trims it; anything else, or text upstream would not parse, is returned as it came.
 */
function canonicalValue(value: unknown): unknown {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  const canonical = text === undefined ? null : tryCanonicalQuantity(text);
  return canonical ?? value;
}

/**
 * A time's canonical text, or undefined for Go's zero time. Anything Go would not parse is returned
 * as it came: decoding has refused it already (shared/codec/schema-check.ts), so only a value a
 * strategy wrote can be one, and validation reports it.
 */
function canonicalTimeValue(value: unknown, kind: 'Time' | 'MicroTime'): unknown {
  if (typeof value !== 'string') return value;
  try {
    return canonicalTime(value, kind) ?? undefined;
  } catch (err) {
    if (err instanceof GoTimeParseError) return value;
    throw err;
  }
}

function shape(value: unknown, schema: Schema): unknown {
  if (isQuantitySchema(schema)) return canonicalValue(value);
  const timeKind = timeKindOf(schema);
  if (timeKind) return canonicalTimeValue(value, timeKind);
  if (!isShaped(schema)) return value;
  if (Array.isArray(value)) {
    const list: unknown[] = value;
    if (schema.items) for (let i = 0; i < list.length; i++) list[i] = shape(list[i], schema.items) ?? list[i];
    return value;
  }
  if (!isObject(value)) return value;
  for (const [name, property] of propertiesOf(schema)) {
    const present = value[name];
    if (present !== undefined) {
      const shaped = shape(present, property);
      // Go's zero time: null in Go's JSON, an absent field in corral's.
      if (shaped === undefined) delete value[name];
      else value[name] = shaped;
      continue;
    }
    const marker = property['x-corral-protobuf'];
    if (!marker) continue;
    if (marker.keepZero) value[name] = zeroOf(property);
    else if (!marker.optional && property.properties && !property['x-corral-type'] && isShaped(property)) {
      // A struct held by value is there in Go: it appears when it holds a zero of its own.
      const filled = shape({}, property);
      if (isObject(filled) && Object.keys(filled).length > 0) value[name] = filled;
    }
  }
  const values = schema.additionalProperties;
  if (values) {
    const properties = schema.properties;
    // Object.entries' members without building them: own enumerable keys, in its order. The loop
    // only replaces values of keys it has met, which leaves the enumeration as it was.
    for (const key in value) {
      if (!Object.hasOwn(value, key) || (properties !== undefined && Object.hasOwn(properties, key))) continue;
      const present = value[key];
      value[key] = shape(present, values) ?? present;
    }
  }
  return value;
}

/**
 * Gives `value` (in place) Go's shape described above and returns it. Subtrees without quantities,
 * times or keepZero fields are skipped; values of the wrong type are left for validation to report; a
 * pointer struct (`optional`) that is absent stays absent.
 */
export function toGoShape<T extends Record<string, unknown>>(value: T, schema: Schema): T {
  shape(value, schema);
  return value;
}
