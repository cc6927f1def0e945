/**
 * Checks a decoded JSON value against a kind's schema the way upstream's typed decoding does:
 * a value of the wrong type is an error (the first one found, as Go's decoder stops there), a
 * property the schema does not know is removed and reported, and a null becomes what Go makes of
 * it: a null property is dropped (the field keeps its zero value, which the wire omits), a null
 * map value or list item becomes its type's zero value (`""`, `0`, `false`, `{}`), which the
 * kind's validation then judges.
 */
import { GoTimeParseError, parseGoTime } from '../go/time.ts';
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

/**
 * An empty list or map (not struct: Go writes empty structs even when omitempty). `entries` is what
 * walk counted in it: counting the keys of a map again would cost as much as walking it.
 */
function isEmptyCollection(value: unknown, schema: Schema, entries: number): boolean {
  if (schema['x-corral-keep-empty']) return false;
  if (schema.type === 'array') return Array.isArray(value) && value.length === 0;
  return schema.additionalProperties !== undefined && isObject(value) && entries === 0;
}

/** How Go's encoding/json names a decoded value's JSON type in its errors. */
export function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/**
 * A named struct's Go name, `v1.DeploymentSpec` for `io.k8s.api.apps.v1.DeploymentSpec` (Go's
 * reflect names a type by its package's name), and its bare type name.
 */
function structNames(schema: Schema): { qualified: string; bare: string } | undefined {
  const name = schema['x-corral-struct']?.name;
  if (!name) return undefined;
  let names = structNamesByName.get(name);
  if (!names) {
    const parts = name.split('.');
    const bare = parts[parts.length - 1] ?? name;
    const pkg = parts[parts.length - 2];
    names = { qualified: pkg ? `${pkg}.${bare}` : bare, bare };
    structNamesByName.set(name, names);
  }
  return names;
}

/** structNames by full name, worked out once: the walk asks for every object it enters. */
const structNamesByName = new Map<string, { qualified: string; bare: string }>();

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
      return schema.additionalProperties ? `map[string]${goType(schema.additionalProperties)}` : (structNames(schema)?.qualified ?? 'struct');
    default:
      return 'interface {}';
  }
}

/**
 * Walks `value` (mutating it: unknown and null properties are removed) and returns the paths of
 * unknown fields. Throws SchemaTypeError on the first type mismatch, named as Go's decoder names
 * it: the innermost named struct holding the field, then the field's JSON path from the root
 * (`DeploymentSpec.spec.replicas`). `rootName` names the root struct, e.g. `ConfigMap`, so that
 * errors read `ConfigMap.data`.
 */
export function checkAgainstSchema(value: unknown, schema: Schema, rootName: string): string[] {
  const unknown: string[] = [];
  walk(value, schema, { struct: rootName, path: '' }, '', unknown);
  return unknown;
}

/** Where a value sits, as Go's type errors name it: the struct holding its field, and the JSON path of that field. */
interface GoField {
  struct: string;
  path: string;
}

const goFieldName = (at: GoField): string => (at.path ? `${at.struct}.${at.path}` : at.struct);

/** Go's zero value of a map value or list item of this schema; null where Go's is nil. */
function zeroValue(schema: Schema): unknown {
  if (schema['x-kubernetes-int-or-string']) return 0;
  switch (schema.type) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return schema.additionalProperties ? null : {};
    default:
      return null;
  }
}

/**
 * metav1.Time and MicroTime decode themselves (UnmarshalJSON): a string Go's time.Parse refuses is
 * its ParseError, anything else not a string the error of an inner json.Unmarshal into a string,
 * which names no struct field (upstream's decoder adds its context only to its own errors).
 */
function checkTime(value: unknown, kind: 'Time' | 'MicroTime', goPath: string): void {
  if (typeof value !== 'string') {
    throw new SchemaTypeError(goPath, jsonType(value), 'string', `json: cannot unmarshal ${jsonType(value)} into Go value of type string`);
  }
  try {
    parseGoTime(value, kind);
  } catch (err) {
    if (err instanceof GoTimeParseError) throw new SchemaTypeError(goPath, 'string', `v1.${kind}`, err.message);
    throw err;
  }
}

/** Returns the entries left in an object (0 for anything else). */
function walk(value: unknown, schema: Schema, at: GoField, fieldPath: string, unknown: string[]): number {
  if (value === null) return 0;
  const wellKnown = schema['x-corral-type'];
  if (wellKnown === 'Time' || wellKnown === 'MicroTime') {
    checkTime(value, wellKnown, goFieldName(at));
    return 0;
  }
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value))) {
      throw new SchemaTypeError(goFieldName(at), jsonType(value), goType(schema));
    }
    return 0;
  }
  switch (schema.type) {
    case undefined:
      return 0;
    case 'string':
      if (typeof value !== 'string') throw new SchemaTypeError(goFieldName(at), jsonType(value), goType(schema));
      if (schema.format === 'byte' && !base64Re.test(value.replace(/\s/g, ''))) {
        const offset = value.search(/[^A-Za-z0-9+/=]/);
        throw new SchemaTypeError(goFieldName(at), 'string', '[]uint8', `illegal base64 data at input byte ${Math.max(offset, 0)}`);
      }
      return 0;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value) || (schema.format === 'int32' && (value < int32Min || value > int32Max))) {
        const shown = typeof value === 'number' ? `number ${value}` : jsonType(value);
        throw new SchemaTypeError(goFieldName(at), shown, goType(schema));
      }
      return 0;
    case 'number':
      if (typeof value !== 'number') throw new SchemaTypeError(goFieldName(at), jsonType(value), goType(schema));
      return 0;
    case 'boolean':
      if (typeof value !== 'boolean') throw new SchemaTypeError(goFieldName(at), jsonType(value), goType(schema));
      return 0;
    case 'array':
      if (!Array.isArray(value)) throw new SchemaTypeError(goFieldName(at), jsonType(value), goType(schema));
      if (!schema.items) return 0;
      for (let i = 0; i < value.length; i++) {
        if (value[i] === null) value[i] = zeroValue(schema.items);
        walk(value[i], schema.items, at, fieldPath, unknown);
      }
      return 0;
    case 'object': {
      if (!isObject(value)) throw new SchemaTypeError(goFieldName(at), jsonType(value), goType(schema));
      const keys = Object.keys(value);
      let entries = keys.length;
      // The struct that holds this object's fields; the root's is `rootName`.
      const holder = at.path ? (structNames(schema)?.bare ?? at.struct) : at.struct;
      for (const key of keys) {
        const property = schema.properties?.[key];
        const child = property ?? schema.additionalProperties;
        if (value[key] === null) {
          if (!schema.additionalProperties) {
            delete value[key];
            entries--;
            continue;
          }
          value[key] = zeroValue(schema.additionalProperties);
        }
        if (!child) {
          if (!schema['x-kubernetes-preserve-unknown-fields']) {
            unknown.push(fieldPath ? `${fieldPath}.${key}` : key);
            delete value[key];
            entries--;
          }
          continue;
        }
        // Go names struct fields in its errors, never map keys.
        // The field path is built only where it can be used (collections below): a map of 100,000
        // strings needs none.
        const childPath = child.type === 'object' || child.type === 'array' ? (fieldPath ? `${fieldPath}.${key}` : key) : '';
        const below = walk(value[key], child, property ? { struct: holder, path: at.path ? `${at.path}.${key}` : key } : at, childPath, unknown);
        // Optional maps and lists are `omitempty` in Go: an empty one is not stored or returned.
        if (property && isEmptyCollection(value[key], property, below) && !schema.required?.includes(key)) {
          delete value[key];
          entries--;
        }
      }
      return entries;
    }
  }
}
