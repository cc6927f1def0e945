/**
 * Checks a decoded JSON value against a kind's schema the way upstream's typed decoding does:
 * a value of the wrong type is an error (the first one found, as Go's decoder stops there), a
 * property the schema does not know is removed and reported, and a null property is dropped
 * (Go decodes null into the zero value, which the wire then omits).
 */
import type { Schema } from '../api/schema.ts';
import { isObject } from '../api/types.ts';

export class SchemaTypeError extends Error {
  constructor(
    readonly path: string,
    readonly jsonType: string,
    readonly goType: string,
    detail?: string,
  ) {
    super(detail ?? `json: cannot unmarshal ${jsonType} into Go struct field ${path} of type ${goType}`);
  }
}

const base64Re = /^[A-Za-z0-9+/]*={0,2}$/;
const int32Min = -(2 ** 31);
const int32Max = 2 ** 31 - 1;

/** An empty list or map (not struct: Go writes empty structs even when omitempty). */
function isEmptyCollection(value: unknown, schema: Schema): boolean {
  if (schema['x-corral-keep-empty']) return false;
  if (schema.type === 'array') return Array.isArray(value) && value.length === 0;
  return schema.additionalProperties !== undefined && isObject(value) && Object.keys(value).length === 0;
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

export function goType(schema: Schema): string {
  if (schema['x-kubernetes-int-or-string']) return 'intstr.IntOrString';
  switch (schema.type) {
    case 'string':
      return schema.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return schema.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${schema.items ? goType(schema.items) : 'interface {}'}`;
    case 'object':
      return schema.additionalProperties ? `map[string]${goType(schema.additionalProperties)}` : 'struct';
    default:
      return 'interface {}';
  }
}

/**
 * Walks `value` (mutating it: unknown and null properties are removed) and returns the paths of
 * unknown fields. Throws SchemaTypeError on the first type mismatch. `path` names the root, e.g.
 * `ConfigMap`, so that errors read `ConfigMap.data`.
 */
export function checkAgainstSchema(value: unknown, schema: Schema, rootName: string): string[] {
  const unknown: string[] = [];
  walk(value, schema, rootName, '', unknown);
  return unknown;
}

function walk(value: unknown, schema: Schema, goPath: string, fieldPath: string, unknown: string[]): void {
  if (value === null) return;
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value))) {
      throw new SchemaTypeError(goPath, jsonType(value), goType(schema));
    }
    return;
  }
  switch (schema.type) {
    case undefined:
      return;
    case 'string':
      if (typeof value !== 'string') throw new SchemaTypeError(goPath, jsonType(value), goType(schema));
      if (schema.format === 'byte' && !base64Re.test(value.replace(/\s/g, ''))) {
        const at = value.search(/[^A-Za-z0-9+/=]/);
        throw new SchemaTypeError(goPath, 'string', '[]uint8', `illegal base64 data at input byte ${Math.max(at, 0)}`);
      }
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value) || (schema.format === 'int32' && (value < int32Min || value > int32Max))) {
        const shown = typeof value === 'number' ? `number ${value}` : jsonType(value);
        throw new SchemaTypeError(goPath, shown, goType(schema));
      }
      return;
    case 'number':
      if (typeof value !== 'number') throw new SchemaTypeError(goPath, jsonType(value), goType(schema));
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw new SchemaTypeError(goPath, jsonType(value), goType(schema));
      return;
    case 'array':
      if (!Array.isArray(value)) throw new SchemaTypeError(goPath, jsonType(value), goType(schema));
      if (schema.items) for (const item of value) walk(item, schema.items, goPath, fieldPath, unknown);
      return;
    case 'object': {
      if (!isObject(value)) throw new SchemaTypeError(goPath, jsonType(value), goType(schema));
      for (const key of Object.keys(value)) {
        const childPath = fieldPath ? `${fieldPath}.${key}` : key;
        const property = schema.properties?.[key];
        const child = property ?? schema.additionalProperties;
        if (value[key] === null && !schema.additionalProperties) {
          delete value[key];
          continue;
        }
        if (!child) {
          if (!schema['x-kubernetes-preserve-unknown-fields']) {
            unknown.push(childPath);
            delete value[key];
          }
          continue;
        }
        // Go names struct fields in its errors, never map keys.
        walk(value[key], child, property ? `${goPath}.${key}` : goPath, childPath, unknown);
        // Optional maps and lists are `omitempty` in Go: an empty one is not stored or returned.
        if (property && isEmptyCollection(value[key], property) && !schema.required?.includes(key)) delete value[key];
      }
      return;
    }
  }
}
