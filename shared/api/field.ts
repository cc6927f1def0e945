/**
 * Field errors as data: a path into the object, a type, the bad value and a detail, formatted exactly
 * as upstream's field.Error so that clients and people reading messages see the familiar text.
 */

export class FieldPath {
  private constructor(private readonly text: string) {}

  static root(name: string): FieldPath {
    return new FieldPath(name);
  }

  child(name: string, ...more: string[]): FieldPath {
    let text = this.text === '' ? name : `${this.text}.${name}`;
    for (const m of more) text += `.${m}`;
    return new FieldPath(text);
  }

  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }

  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }

  toString(): string {
    return this.text;
  }
}

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose message never shows the bad value (upstream's ErrorBody). */
const valueOmitted = new Set<FieldErrorType>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong', 'InternalError']);

export interface FieldError {
  type: FieldErrorType;
  field: string;
  value?: unknown;
  /** The bad value as upstream prints it, where formatValue cannot know (e.g. Go's `0x0` for a uint64). */
  valueText?: string;
  detail: string;
}

/** Formats a bad value as Go's %q / %d / %v would for the common cases. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(value);
}

/** The message without the field path: the text of a Status cause. */
export function fieldErrorBody(e: FieldError): string {
  let s = typeText[e.type];
  if (!valueOmitted.has(e.type)) s += `: ${e.valueText ?? formatValue(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

const make =
  (type: FieldErrorType) =>
  (path: FieldPath, value: unknown, detail = ''): FieldError => ({ type, field: path.toString(), value, detail });

export const invalid = make('FieldValueInvalid');
export const duplicate = (path: FieldPath, value: unknown): FieldError => make('FieldValueDuplicate')(path, value);
export const required = (path: FieldPath, detail = ''): FieldError => make('FieldValueRequired')(path, '', detail);
export const forbidden = (path: FieldPath, detail: string): FieldError => make('FieldValueForbidden')(path, '', detail);
export const notFound = (path: FieldPath, value: unknown): FieldError => make('FieldValueNotFound')(path, value);

export function notSupported(path: FieldPath, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : '';
  return make('FieldValueNotSupported')(path, value, detail);
}

export function tooLong(path: FieldPath, value: unknown, maxLength: number): FieldError {
  return make('FieldValueTooLong')(path, value, `may not be more than ${maxLength} bytes`);
}

export function tooMany(path: FieldPath, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field: path.toString(), value: actual, detail: `must have at most ${max} items` };
}

/** Upstream's message for a field that may not change after creation. */
export const fieldImmutable = 'field is immutable';
