/**
 * Response bodies in each wire format: JSON, YAML and protobuf (`k8s\0` envelope, field numbers
 * from the kind's schema). Objects, lists, Statuses, Tables and watch events all leave through here,
 * so every endpoint speaks every format the same way.
 */
import { stringify as toYaml } from 'yaml';
import { listSchema, partialObjectMetadataListSchema, partialObjectMetadataSchema, statusSchema, type Schema } from '../../shared/api/schema.ts';
import type { KubeObject, Status } from '../../shared/api/types.ts';
import { encodeObject, encodeWatchFrame, protobufMediaType, protobufWatchMediaType } from '../../shared/codec/protobuf.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/definition.ts';
import { notAcceptable } from '../../shared/api/errors.ts';

export type WireFormat = 'json' | 'yaml' | 'protobuf';

export interface Serialized {
  contentType: string;
  body: string | Uint8Array;
}

const contentTypes: Record<WireFormat, string> = {
  json: 'application/json',
  yaml: 'application/yaml',
  protobuf: protobufMediaType,
};

/** Schemas derived from a kind's (its list); built once, since the codec compiles per schema object. */
const listSchemas = new WeakMap<Schema, Schema>();
const statusMessage = statusSchema();
const partialMetadata = partialObjectMetadataSchema();
const partialMetadataList = partialObjectMetadataListSchema();

function listSchemaOf(item: Schema): Schema {
  let schema = listSchemas.get(item);
  if (!schema) {
    schema = listSchema(item);
    listSchemas.set(item, schema);
  }
  return schema;
}

/**
 * YAML as upstream writes it (sigs.k8s.io/yaml over go-yaml v2): keys sorted, sequences not
 * indented under their key, and YAML 1.1 rules, so strings that would read as timestamps or
 * booleans are quoted.
 */
const yamlStyle = { sortMapEntries: true, indentSeq: false, version: '1.1' } as const;

function text(value: unknown, format: 'json' | 'yaml', pretty: boolean): Serialized {
  if (format === 'yaml') return { contentType: contentTypes.yaml, body: toYaml(value, yamlStyle) };
  return { contentType: contentTypes.json, body: pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value) };
}

function asRecord(value: unknown): Record<string, unknown> {
  return value as Record<string, unknown>;
}

/** What a message is, for protobuf: the schema and the envelope's type. */
export interface MessageType {
  schema: Schema;
  apiVersion: string;
  kind: string;
}

export function objectType(def: ResourceDefinition): MessageType {
  return { schema: def.schema, apiVersion: apiVersionOf(def), kind: def.kind };
}

export function listType(def: ResourceDefinition): MessageType {
  return { schema: listSchemaOf(def.schema), apiVersion: apiVersionOf(def), kind: `${def.kind}List` };
}

export const statusType: MessageType = { schema: statusMessage, apiVersion: 'v1', kind: 'Status' };

export function partialMetadataType(version: string, list: boolean): MessageType {
  return list
    ? { schema: partialMetadataList, apiVersion: `meta.k8s.io/${version}`, kind: 'PartialObjectMetadataList' }
    : { schema: partialMetadata, apiVersion: `meta.k8s.io/${version}`, kind: 'PartialObjectMetadata' };
}

/** Serializes a value of a known message type; `type` is needed only for protobuf. */
export function serialize(value: unknown, format: WireFormat, type: MessageType | undefined, pretty = false): Serialized {
  if (format !== 'protobuf') return text(value, format, pretty);
  // Kinds without a protobuf form (Table) are refused as upstream does.
  if (!type) throw notAcceptable(['application/json', 'application/yaml']);
  return { contentType: contentTypes.protobuf, body: encodeObject(asRecord(value), type.schema, { apiVersion: type.apiVersion, kind: type.kind }) };
}

export function serializeStatus(status: Status, format: WireFormat): Serialized {
  return serialize(status, format, statusType);
}

export function watchContentType(format: WireFormat): string {
  return format === 'protobuf' ? protobufWatchMediaType : contentTypes[format];
}

/**
 * One watch event in the stream's format: a JSON line, or a length-prefixed protobuf frame.
 * Frames are cached per object and event type: watches served from the cache receive the same
 * (never mutated) object for one event, so it is serialized once however many watchers get it.
 */
const frames = new WeakMap<object, Map<string, Uint8Array>>();

/** Frames are bytes, so that a frame written to many streams is UTF-8 encoded once. */
export function watchFrame(type: string, object: KubeObject | Status, format: 'json' | 'protobuf', messageType: MessageType): Uint8Array {
  let byType = frames.get(object);
  if (!byType) {
    byType = new Map();
    frames.set(object, byType);
  }
  const key = `${format}:${type}`;
  let frame = byType.get(key);
  if (frame === undefined) {
    frame =
      format === 'protobuf'
        ? encodeWatchFrame(type, encodeObject(asRecord(object), messageType.schema, { apiVersion: messageType.apiVersion, kind: messageType.kind }))
        : Buffer.from(`${JSON.stringify({ type, object })}\n`);
    byType.set(key, frame);
  }
  return frame;
}
