/**
 * Checks that only core kinds need: data keys and sizes (ConfigMap, Secret, Event) and the
 * `immutable` flag (ConfigMap, Secret). Checks other groups share too live in shared/validation/;
 * lists merged by `type` (mergedByType) in shared/api/schema.ts, beside the other list helpers.
 */
import { isDeepStrictEqual } from 'node:util';
import { FieldPath, forbidden, invalid, type FieldError } from '../../../shared/api/field.ts';
import { isConfigMapKey } from '../../../shared/validation/names.ts';

// secret.ts still imports it from here (its owner moves the import to shared/validation/immutable.ts).
export { validateImmutableField } from '../../../shared/validation/immutable.ts';

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
