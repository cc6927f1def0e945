/**
 * Go's shape of an object, for the fields where it shows: a non-pointer scalar whose JSON tag has
 * no omitempty (schema marker `keepZero`, e.g. VolumeAttachmentStatus.attached) is always part of
 * the object, its zero included, and a non-pointer struct holding one is always there to hold it.
 * Upstream gets this from decoding into Go structs; corral fills the zeros in once, when an object
 * is written, so JSON answers, protobuf answers and managedFields agree with upstream's.
 */
import type { Schema } from './schema.ts';
import { isObject } from './types.ts';

/** Whether a schema's subtree holds any keepZero property (cached: schemas are long-lived). */
const holdsKeepZero = new WeakMap<Schema, boolean>();

function hasKeepZero(schema: Schema): boolean {
  let known = holdsKeepZero.get(schema);
  if (known === undefined) {
    holdsKeepZero.set(schema, false); // guards recursive schemas
    known = Object.values(schema.properties ?? {}).some((p) => p['x-corral-protobuf']?.keepZero === true || hasKeepZero(p)) || (schema.items !== undefined && hasKeepZero(schema.items));
    holdsKeepZero.set(schema, known);
  }
  return known;
}

function zeroOf(schema: Schema): false | 0 | '' {
  return schema.type === 'boolean' ? false : schema.type === 'integer' || schema.type === 'number' ? 0 : '';
}

/**
 * Adds the missing keepZero zeros to `value` (in place) and returns it. Structs absent from `value`
 * are added only when they get such a zero (a pointer struct, `optional`, stays absent); lists'
 * items are filled one by one; values of the wrong type are left for validation to report.
 */
export function fillGoZeros<T extends Record<string, unknown>>(value: T, schema: Schema): T {
  if (!hasKeepZero(schema)) return value;
  const out: Record<string, unknown> = value;
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const marker = property['x-corral-protobuf'];
    if (!marker) continue;
    const present = out[name];
    if (marker.keepZero) {
      if (present === undefined) out[name] = zeroOf(property);
    } else if (property.properties && !property['x-corral-type'] && hasKeepZero(property)) {
      if (isObject(present)) fillGoZeros(present, property);
      else if (present === undefined && !marker.optional) {
        const filled = fillGoZeros({}, property);
        if (Object.keys(filled).length > 0) out[name] = filled;
      }
    } else if (property.type === 'array' && property.items && Array.isArray(present) && hasKeepZero(property.items)) {
      for (const item of present) if (isObject(item)) fillGoZeros(item, property.items);
    }
  }
  return value;
}
