/**
 * Checks and schema pieces that more than one core kind needs: data keys and sizes (ConfigMap,
 * Secret), the `immutable` flag (ConfigMap, Secret), immutable fields and qualified names
 * (Secret, Event, Namespace, Node), and lists merged by `type` (Namespace, Node).
 */
import { isDeepStrictEqual } from 'node:util';
import { FieldPath, fieldImmutable, forbidden, invalid, type FieldError } from '../../../shared/api/field.ts';
import { array, type Schema } from '../../../shared/api/schema.ts';
import { isConfigMapKey, isQualifiedName } from '../../../shared/validation/names.ts';

/** Upstream's core.MaxSecretSize: the total size limit of ConfigMap and Secret data. */
export const maxDataSize = 1024 * 1024;

/** Each key of a data map must be a valid config key: `data[a b]: Invalid value: "a b": ...`. */
export function validateDataKeys(data: Record<string, unknown> | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of Object.keys(data ?? {})) {
    for (const msg of isConfigMapKey(key)) errors.push(invalid(path.key(key), key, msg));
  }
  return errors;
}

/** The number of bytes a `format: byte` value (base64 on the wire) holds. */
export function decodedSize(base64: string): number {
  return Buffer.from(base64, 'base64').length;
}

/** The number of bytes of a string as Go's len() counts them (UTF-8). */
export function utf8Size(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

const immutableWhenSet = 'field is immutable when `immutable` is set';

interface MaybeImmutable {
  immutable?: boolean;
  [field: string]: unknown;
}

/**
 * Once `immutable: true` is stored, the flag may not be cleared and the listed data fields may not
 * change. A missing map and an empty one differ, as they do for Go's reflect.DeepEqual.
 */
export function validateImmutableData(obj: MaybeImmutable, old: MaybeImmutable, fields: readonly string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errors: FieldError[] = [];
  if (obj.immutable !== true) errors.push(forbidden(FieldPath.root('immutable'), immutableWhenSet));
  for (const name of fields) {
    if (!isDeepStrictEqual(obj[name] ?? null, old[name] ?? null)) errors.push(forbidden(FieldPath.root(name), immutableWhenSet));
  }
  return errors;
}

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

/** Upstream's ValidateQualifiedName: one Invalid error per problem. */
export function validateQualifiedName(value: string, path: FieldPath): FieldError[] {
  return isQualifiedName(value).map((msg) => invalid(path, value, msg));
}

/** A list of conditions or addresses: `+listType=map +listMapKey=type +patchStrategy=merge +patchMergeKey=type`. */
export function mergedByType(items: Schema): Schema {
  return array(items, {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    'x-kubernetes-patch-strategy': 'merge',
    'x-kubernetes-patch-merge-key': 'type',
  });
}
