/**
 * The JSON schema of a field table (fields.ts), for shared/codec/schema-check.ts: Go's type errors
 * (`json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type
 * int32`) and the unknown fields that strict decoding reports. Empty lists and maps are kept:
 * an explicit `[]` is not a nil slice to upstream, so it is not defaulted.
 */
import type { Schema } from '../../shared/api/schema.ts';
import type { FieldSpec, FieldTable } from './fields.ts';

const stringSchema: Schema = { type: 'string' };

function fieldSchema(spec: FieldSpec): Schema {
  switch (spec.kind) {
    case 'bool':
      return { type: 'boolean' };
    case 'int32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
      return { type: 'integer', format: 'int64' };
    case 'float64':
      return { type: 'number' };
    case 'string':
    case 'duration':
      return stringSchema;
    case 'quantity':
      return { 'x-kubernetes-int-or-string': true };
    case 'strings':
      return { type: 'array', items: stringSchema, 'x-corral-keep-empty': true };
    case 'stringMap':
      return { type: 'object', additionalProperties: stringSchema, 'x-corral-keep-empty': true };
    case 'boolMap':
      return { type: 'object', additionalProperties: { type: 'boolean' }, 'x-corral-keep-empty': true };
    case 'stringsMap':
      return { type: 'object', additionalProperties: { type: 'array', items: stringSchema }, 'x-corral-keep-empty': true };
    case 'struct':
      return tableSchema(spec.fields ?? {});
    case 'structs':
      return { type: 'array', items: tableSchema(spec.fields ?? {}), 'x-corral-keep-empty': true };
  }
}

/** The object schema of a table. */
export function tableSchema(table: FieldTable): Schema {
  return { type: 'object', properties: Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, fieldSchema(spec)])) };
}

/** The schema of a top-level kind: its table plus apiVersion and kind (TypeMeta). */
export function kindSchema(table: FieldTable): Schema {
  const schema = tableSchema(table);
  return { ...schema, properties: { apiVersion: stringSchema, kind: stringSchema, ...schema.properties } };
}
