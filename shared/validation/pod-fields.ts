/**
 * Reading the loosely typed parts of a pod (security contexts and topology spread constraints are
 * typed as open records in shared/api) as Go would decode them: a field of the wrong JSON type is
 * absent, and `undefined` stands for Go's nil pointer, so that `""` and unset stay apart.
 */

export type Fields = Record<string, unknown>;

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `key`, undefined when unset (or null, which Go decodes to nil). */
export function objectAt(source: unknown, key: string): Fields | undefined {
  if (!isFields(source)) return undefined;
  const value = source[key];
  return isFields(value) ? value : undefined;
}

export function stringAt(source: unknown, key: string): string | undefined {
  if (!isFields(source)) return undefined;
  const value = source[key];
  return typeof value === 'string' ? value : undefined;
}

export function numberAt(source: unknown, key: string): number | undefined {
  if (!isFields(source)) return undefined;
  const value = source[key];
  return typeof value === 'number' ? value : undefined;
}

export function booleanAt(source: unknown, key: string): boolean | undefined {
  if (!isFields(source)) return undefined;
  const value = source[key];
  return typeof value === 'boolean' ? value : undefined;
}

/** The list at `key`: undefined when unset, its elements of type T only. */
export function listAt<T>(source: unknown, key: string, keep: (item: unknown) => item is T): T[] | undefined {
  if (!isFields(source)) return undefined;
  const value = source[key];
  return Array.isArray(value) ? value.filter(keep) : undefined;
}

export const isString = (value: unknown): value is string => typeof value === 'string';
export const isNumber = (value: unknown): value is number => typeof value === 'number';

/** Whether a field is set at all (Go: a non-nil pointer, slice or map). */
export function isSet(source: unknown, key: string): boolean {
  return isFields(source) && source[key] !== undefined && source[key] !== null;
}
