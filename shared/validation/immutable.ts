/**
 * Immutable fields (upstream's ValidateImmutableField) and the two equalities Go's decoded structs
 * give them: `sameAsGoValue` for a field compared as its typed value (zero values dropped), and
 * `semanticEqual` for a struct or list field compared as apimachinery's semantic DeepEqual does.
 */
import { isDeepStrictEqual } from 'node:util';
import { fieldImmutable, invalid, type FieldError, type FieldPath } from '../api/field.ts';
import { isObject } from '../api/types.ts';

/**
 * Upstream's ValidateImmutableField: `path: Invalid value: <new>: field is immutable`. Values are
 * compared as Go compares the typed fields, so a missing value equals its zero value (`equal` lets
 * a caller compare semantically, e.g. times by instant). Callers pass the zero value ("", 0) for
 * a missing field so that the message shows what upstream shows.
 */
export function validateImmutableField(
  value: unknown,
  oldValue: unknown,
  path: FieldPath,
  equal: (a: unknown, b: unknown) => boolean = sameAsGoValue,
): FieldError[] {
  return equal(value, oldValue) ? [] : [invalid(path, value, fieldImmutable)];
}

/** Equality of two JSON values after dropping zero values (absent, null, "", 0, false, {}), as Go structs compare. */
export function sameAsGoValue(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(withoutZeroValues(a), withoutZeroValues(b));
}

function withoutZeroValues(value: unknown): unknown {
  if (value === null || value === undefined || value === '' || value === 0 || value === false) return undefined;
  if (Array.isArray(value)) return value.map(withoutZeroValues);
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const kept = withoutZeroValues(v);
    if (kept !== undefined) out[k] = kept;
  }
  return Object.keys(out).length ? out : undefined;
}

const isAbsent = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);

/**
 * Equality as upstream's semantic DeepEqual sees decoded structs, for immutability checks of
 * structured fields: a missing field, null and an empty list are the same value (Go decodes all
 * three to a nil or empty slice). Empty objects stay distinct from missing ones, because a nil
 * struct pointer differs from an empty struct (a CSIStorageCapacity nodeTopology of {} selects all
 * nodes, a missing one none).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isAbsent(a) || isAbsent(b)) return isAbsent(a) && isAbsent(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => semanticEqual(item, b[i]));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!semanticEqual(a[key], b[key])) return false;
    }
    return true;
  }
  return a === b;
}
