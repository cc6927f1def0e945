/**
 * Response bodies in each wire format: JSON, YAML and protobuf (`k8s\0` envelope, field numbers
 * from the kind's schema). Objects, lists, Statuses, Tables and watch events all leave through here,
 * so every endpoint speaks every format the same way.
 */
import { listSchema, partialObjectMetadataListSchema, partialObjectMetadataSchema, statusSchema, type Schema } from '../../shared/api/schema.ts';
import type { KubeList, KubeObject, Status } from '../../shared/api/types.ts';
import { TimeSlice } from '../../shared/apply/time-slice.ts';
import { isLargeJson, stringifyJsonSteps } from '../../shared/codec/json-stringify-sliced.ts';
import { prettyJsonOfJsonOffloaded, protobufOfJsonOffloaded, yamlOfJsonOffloaded } from '../../shared/codec/offload/pool.ts';
import { stringifyYaml } from '../../shared/codec/yaml-stringify.ts';
import { encodeMessage } from '../../shared/codec/protobuf/encode.ts';
import { encodeEnvelopeParts, protobufMediaType } from '../../shared/codec/protobuf/envelope.ts';
import { encodeObject } from '../../shared/codec/protobuf/object.ts';
import { encodeWatchFrame, protobufWatchMediaType } from '../../shared/codec/protobuf/watch.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/definition.ts';
import { notAcceptable } from '../../shared/api/errors.ts';
import { frameKey, RecentFrames } from './recent-frames.ts';

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

function text(value: unknown, format: 'json' | 'yaml', pretty: boolean): Serialized {
  if (format === 'yaml') return { contentType: contentTypes.yaml, body: stringifyYaml(value) };
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
  const { schema, apiVersion, kind } = protobufType(type);
  return { contentType: contentTypes.protobuf, body: encodeObject(asRecord(value), schema, { apiVersion, kind }) };
}

/** The type a protobuf answer is encoded as; kinds without a protobuf form (Table) are refused as upstream does. */
function protobufType(type: MessageType | undefined): MessageType {
  if (!type) throw notAcceptable(['application/json', 'application/yaml']);
  return type;
}

/**
 * `serialize` (`type` for protobuf only), holding the event loop only briefly for a large value: one JSON.stringify of a
 * 3 MiB Node takes about 100 ms, its YAML a few seconds, its protobuf a few hundred milliseconds.
 * Compact JSON of a large value is written in slices; YAML, pretty JSON and protobuf of a large
 * value are written by the codec worker (shared/codec/offload) from that sliced JSON. Small values
 * are written as `serialize` writes them, in one go.
 */
export async function serializeYielding(
  value: unknown,
  format: WireFormat,
  type: MessageType | undefined,
  pretty: boolean,
  slice: TimeSlice,
): Promise<Serialized> {
  // Compact JSON weighs the value itself, and writes a small one in one go.
  if (format === 'json' && !pretty) return { contentType: contentTypes.json, body: await slice.run(stringifyJsonSteps(value)) };
  if (!isLargeJson(value)) return serialize(value, format, type, pretty);
  const json = await slice.run(stringifyJsonSteps(value));
  switch (format) {
    case 'json':
      return { contentType: contentTypes.json, body: await prettyJsonOfJsonOffloaded(json) };
    case 'yaml':
      return { contentType: contentTypes.yaml, body: await yamlOfJsonOffloaded(json) };
    case 'protobuf': {
      const { schema, apiVersion, kind } = protobufType(type);
      return { contentType: contentTypes.protobuf, body: await protobufOfJsonOffloaded(json, schema, { apiVersion, kind }) };
    }
  }
}

export function serializeStatus(status: Status, format: WireFormat): Serialized {
  return serialize(status, format, statusType);
}

export function watchContentType(format: WireFormat): string {
  return format === 'protobuf' ? protobufWatchMediaType : contentTypes[format];
}

/**
 * List items' encodings, kept with the item they encode: lists served from the cache receive the
 * same, never mutated, object for one stored revision, so each item is encoded once however many
 * lists take it; the encodings go when the object does. Kept in buffers of their own, not slices
 * of Node's shared pool, which one long-lived object would keep whole.
 */
interface ItemEncodings {
  json?: Uint8Array;
  protobuf?: Uint8Array;
}

const itemEncodings = new WeakMap<object, ItemEncodings>();

function itemEncodingsOf(object: object): ItemEncodings {
  let found = itemEncodings.get(object);
  if (!found) {
    found = {};
    itemEncodings.set(object, found);
  }
  return found;
}

/**
 * Watch frames of the newest events (recent-frames.ts): a frame is shared by the watchers of its
 * event while the event is dispatched. 4,096 events' frames cover a second of 5,000 nodes'
 * heartbeats; 32 MiB holds twenty of the largest objects etcd takes.
 */
const recentFrames = new RecentFrames(4096, 32 * 1024 * 1024);

/**
 * Bytes in a buffer of their own, for encodings kept beyond one response: a slice of Node's shared
 * pool would keep the whole pool alive as long as the encoding lives.
 */
export function ownBytes(bytes: Uint8Array | string): Uint8Array {
  const length = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
  const out = Buffer.allocUnsafeSlow(length);
  if (typeof bytes === 'string') out.write(bytes);
  else out.set(bytes);
  return out;
}

/**
 * One watch event in the stream's format: a JSON line, or a length-prefixed protobuf frame.
 * Frames are bytes, so that a frame written to many streams is UTF-8 encoded once.
 */
export function watchFrame(type: string, object: KubeObject | Status, format: 'json' | 'protobuf', messageType: MessageType): Uint8Array {
  return ownBytes(
    format === 'protobuf'
      ? encodeWatchFrame(type, encodeObject(asRecord(object), messageType.schema, { apiVersion: messageType.apiVersion, kind: messageType.kind }))
      : `${JSON.stringify({ type, object })}\n`,
  );
}

/**
 * A frame kept for an event's object under `key` (a representation of it other than the object
 * itself, such as its PartialObjectMetadata), encoded by `encode` for the first watcher that asks.
 */
export function sharedFrame(object: KubeObject, key: string, encode: () => Uint8Array): Uint8Array {
  let frame = recentFrames.get(object, key);
  if (frame === undefined) {
    frame = encode();
    recentFrames.set(object, key, frame);
  }
  return frame;
}

/**
 * `watchFrame` of an event's object, shared by every watcher of the event (see recentFrames). A
 * large object's frame (a Node of 100,000 labels is 1.5 MiB, etcd's limit) is written as
 * `serializeYielding` writes an answer, JSON in slices and protobuf on the codec worker, instead
 * of in one pass of 50 to 150 ms; once, however many watchers ask while it is being written. A
 * small object's frame is returned at once.
 */
export function watchFrameYielding(type: string, object: KubeObject, format: 'json' | 'protobuf', messageType: MessageType): Uint8Array | Promise<Uint8Array> {
  const key = frameKey(format, type);
  const kept = recentFrames.of(object);
  const frame = kept.frames.get(key);
  if (frame !== undefined) return frame;
  kept.large ??= isLargeJson(object);
  if (!kept.large) {
    const small = watchFrame(type, object, format, messageType);
    recentFrames.set(object, key, small);
    return small;
  }
  const pendingFrames = (kept.pending ??= new Map<string, Promise<Uint8Array>>());
  let pending = pendingFrames.get(key);
  if (pending === undefined) {
    pending = largeWatchFrame(type, object, format, messageType).then(
      (bytes) => {
        pendingFrames.delete(key);
        recentFrames.set(object, key, bytes);
        return bytes;
      },
      (err: unknown) => {
        pendingFrames.delete(key);
        throw err;
      },
    );
    pendingFrames.set(key, pending);
  }
  return pending;
}

/** A large object's watch frame, the same bytes as `watchFrame`'s, without holding the event loop. */
async function largeWatchFrame(type: string, object: KubeObject, format: 'json' | 'protobuf', messageType: MessageType): Promise<Uint8Array> {
  const json = await new TimeSlice().run(stringifyJsonSteps(object));
  if (format === 'json') return ownBytes(`{"type":${JSON.stringify(type)},"object":${json}}\n`);
  const envelope = await protobufOfJsonOffloaded(json, messageType.schema, { apiVersion: messageType.apiVersion, kind: messageType.kind });
  return ownBytes(encodeWatchFrame(type, envelope));
}

/** The list schema reduced to its items (field 2): encodes one item as it appears in its list. */
const itemFields = new WeakMap<Schema, Schema>();

function itemFieldOf(list: Schema): Schema {
  let schema = itemFields.get(list);
  if (!schema) {
    const items = list.properties?.items;
    if (!items) throw new Error('a list schema without items');
    schema = { type: 'object', properties: { items } };
    itemFields.set(list, schema);
  }
  return schema;
}

const comma = Buffer.from(',');
const closeList = Buffer.from(']}');

/**
 * A list in the request's format, byte for byte what `serialize` writes, holding the event loop
 * only briefly. In JSON (not pretty) and protobuf it is assembled from each item's kept encoding
 * (see `ItemEncodings`), so a list of cached objects costs a copy of its bytes rather than an encoding
 * of every object; an item not yet encoded is encoded on the way, a large one in slices (JSON) or on
 * the codec worker (protobuf), and the request's slice may let the loop run between items. YAML,
 * pretty JSON, and a list whose items are not its last key are written whole, as
 * `serializeYielding` writes an object.
 */
export async function serializeList(list: KubeList, format: WireFormat, type: MessageType, pretty: boolean, slice: TimeSlice): Promise<Serialized> {
  const { items, ...rest } = list;
  const keys = Object.keys(list);
  // JSON keeps the list's own key order; assembling needs the items last.
  if (format === 'yaml' || (format === 'json' && pretty) || keys[keys.length - 1] !== 'items') return serializeYielding(list, format, type, pretty, slice);
  const parts: Uint8Array[] = [];
  if (format === 'json') {
    const head = JSON.stringify({ ...rest, items: [] });
    parts.push(Buffer.from(head.slice(0, -2)));
    for (const [i, item] of items.entries()) {
      if (i > 0) parts.push(comma);
      parts.push(await jsonItem(item, slice));
      if (slice.due) await slice.boundary();
    }
    parts.push(closeList);
    return { contentType: contentTypes.json, body: Buffer.concat(parts) };
  }
  const itemField = itemFieldOf(type.schema);
  parts.push(encodeMessage(asRecord(rest), type.schema));
  for (const item of items) {
    parts.push(await protobufItem(item, itemField, slice));
    if (slice.due) await slice.boundary();
  }
  return { contentType: contentTypes.protobuf, body: encodeEnvelopeParts(type.apiVersion, type.kind, parts) };
}

/** An item's JSON as its list holds it: kept with the item, written in slices when it is large. */
async function jsonItem(item: KubeObject, slice: TimeSlice): Promise<Uint8Array> {
  const cached = itemEncodingsOf(item);
  if (cached.json) return cached.json;
  const text = isLargeJson(item) ? await slice.run(stringifyJsonSteps(item)) : JSON.stringify(item);
  return (cached.json = ownBytes(text));
}

/** An item as its list's field 2 holds it: kept with the item, encoded on the codec worker when it is large. */
async function protobufItem(item: KubeObject, itemField: Schema, slice: TimeSlice): Promise<Uint8Array> {
  const cached = itemEncodingsOf(item);
  if (cached.protobuf) return cached.protobuf;
  const field = { items: [item] };
  const bytes = isLargeJson(item)
    ? await protobufOfJsonOffloaded(await slice.run(stringifyJsonSteps(field)), itemField)
    : ownBytes(encodeMessage(field, itemField));
  return (cached.protobuf = bytes);
}
