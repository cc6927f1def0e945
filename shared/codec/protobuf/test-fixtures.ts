/**
 * Fixtures of the protobuf codec's tests: a ConfigMap schema with upstream's field numbers, the
 * bytes kubectl sends for one, and an independent encoder (protobufjs with upstream's messages)
 * to compare bytes with.
 */
import protobuf from 'protobufjs';
import { boolean, bytes, kindSchema, map, pb, string } from '../../api/schema.ts';

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
export const fromHex = (text: string): Uint8Array => Buffer.from(text.replace(/\s+/g, ''), 'hex');

export const configMapSchema = kindSchema({
  immutable: pb(4, boolean(), 'optional'),
  data: pb(2, map(string())),
  binaryData: pb(3, map(bytes())),
});

/**
 * The body `kubectl create configmap x --from-literal=a=b -n default` (kubectl v1.32.4) sent, as
 * recorded by the kubectl test in object.test.ts: envelope {typeMeta {v1, ConfigMap}, raw, "", ""},
 * raw = ConfigMap {metadata {name x, generateName "", namespace default, selfLink "", uid "",
 * resourceVersion "", generation 0, creationTimestamp {}}, data {a: b}}.
 */
export const kubectlConfigMapBody =
  '6b387300 0a0f 0a027631 1209436f6e6669674d6170 1222 0a18 0a0178 1200 1a0764656661756c74 2200 2a00 3200 3800 4200 1206 0a0161 120162 1a00 2200';

/**
 * An independent encoder: protobufjs with messages written from upstream's generated.proto
 * (k8s.io/apimachinery meta/v1 and runtime, k8s.io/api core/v1), fed objects shaped as gogo
 * writes them (every non-pointer field set, map keys in sorted order).
 */
const upstreamProto = `
syntax = "proto2";
package upstream;
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message FieldsV1 { optional bytes Raw = 1; }
message OwnerReference {
  optional string kind = 1; optional string name = 3; optional string uid = 4; optional string apiVersion = 5;
  optional bool controller = 6; optional bool blockOwnerDeletion = 7;
}
message ManagedFieldsEntry {
  optional string manager = 1; optional string operation = 2; optional string apiVersion = 3; optional Time time = 4;
  optional string fieldsType = 6; optional FieldsV1 fieldsV1 = 7; optional string subresource = 8;
}
message ObjectMeta {
  optional string name = 1; optional string generateName = 2; optional string namespace = 3; optional string selfLink = 4;
  optional string uid = 5; optional string resourceVersion = 6; optional int64 generation = 7; optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9; optional int64 deletionGracePeriodSeconds = 10;
  map<string, string> labels = 11; map<string, string> annotations = 12; repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14; repeated ManagedFieldsEntry managedFields = 17;
}
message ConfigMap { optional ObjectMeta metadata = 1; map<string, string> data = 2; map<string, bytes> binaryData = 3; optional bool immutable = 4; }
message ListMeta { optional string selfLink = 1; optional string resourceVersion = 2; optional string continue = 3; optional int64 remainingItemCount = 4; }
message ConfigMapList { optional ListMeta metadata = 1; repeated ConfigMap items = 2; }
message StatusCause { optional string reason = 1; optional string message = 2; optional string field = 3; }
message StatusDetails {
  optional string name = 1; optional string group = 2; optional string kind = 3; repeated StatusCause causes = 4;
  optional int32 retryAfterSeconds = 5; optional string uid = 6;
}
message Status {
  optional ListMeta metadata = 1; optional string status = 2; optional string message = 3; optional string reason = 4;
  optional StatusDetails details = 5; optional int32 code = 6;
}
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
message RawExtension { optional bytes raw = 1; }
message WatchEvent { optional string type = 1; optional RawExtension object = 2; }
message Quantity { optional string string = 1; }
message IntOrString { optional int64 type = 1; optional int32 intVal = 2; optional string strVal = 3; }
message ExtraValue { repeated string items = 1; }
message ExecAction { repeated string command = 1; }
message TCPSocketAction { optional IntOrString port = 1; optional string host = 2; }
message ProbeHandler { optional ExecAction exec = 1; optional TCPSocketAction tcpSocket = 3; }
message Probe {
  optional ProbeHandler handler = 1; optional int32 initialDelaySeconds = 2; optional int32 timeoutSeconds = 3;
  optional int32 periodSeconds = 4; optional int32 successThreshold = 5; optional int32 failureThreshold = 6;
  optional int64 terminationGracePeriodSeconds = 7;
}
message Sample {
  optional int32 count = 1; optional int64 total = 2; optional int32 maybe = 3; map<string, Quantity> capacity = 4;
  optional IntOrString port = 5; map<string, ExtraValue> extra = 6; repeated int32 numbers = 7; optional Time at = 8;
}
`;
const upstream = protobuf.parse(upstreamProto, { keepCase: true }).root;
export const pbType = (name: string): protobuf.Type => upstream.lookupType(`upstream.${name}`);

export type Json = Record<string, unknown>;

function sortedMap<V>(m: Record<string, V> | undefined, f: (v: V) => unknown = (v) => v): Json | undefined {
  if (!m) return undefined;
  return Object.fromEntries(
    Object.keys(m)
      .sort()
      .map((k) => [k, f(m[k]!)]),
  );
}

const seconds = (t: string): number => Date.parse(t) / 1000;
const gogoTime = (t: string | undefined): Json => (t === undefined ? {} : { seconds: seconds(t), nanos: 0 });

/** ObjectMeta as gogo marshals it: non-pointer fields always present. */
function gogoObjectMeta(m: Json): Json {
  const out: Json = {
    name: m.name ?? '',
    generateName: m.generateName ?? '',
    namespace: m.namespace ?? '',
    selfLink: m.selfLink ?? '',
    uid: m.uid ?? '',
    resourceVersion: m.resourceVersion ?? '',
    generation: m.generation ?? 0,
    creationTimestamp: gogoTime(m.creationTimestamp as string | undefined),
  };
  if (m.deletionTimestamp !== undefined) out.deletionTimestamp = gogoTime(m.deletionTimestamp as string);
  if (m.deletionGracePeriodSeconds !== undefined) out.deletionGracePeriodSeconds = m.deletionGracePeriodSeconds;
  if (m.labels) out.labels = sortedMap(m.labels as Record<string, string>);
  if (m.annotations) out.annotations = sortedMap(m.annotations as Record<string, string>);
  if (m.ownerReferences) {
    out.ownerReferences = (m.ownerReferences as Json[]).map((r) => {
      const ref: Json = { kind: r.kind ?? '', name: r.name ?? '', uid: r.uid ?? '', apiVersion: r.apiVersion ?? '' };
      if (r.controller !== undefined) ref.controller = r.controller;
      if (r.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = r.blockOwnerDeletion;
      return ref;
    });
  }
  if (m.finalizers) out.finalizers = m.finalizers;
  if (m.managedFields) {
    out.managedFields = (m.managedFields as Json[]).map((e) => {
      const entry: Json = {
        manager: e.manager ?? '',
        operation: e.operation ?? '',
        apiVersion: e.apiVersion ?? '',
        fieldsType: e.fieldsType ?? '',
        subresource: e.subresource ?? '',
      };
      if (e.time !== undefined) entry.time = gogoTime(e.time as string);
      if (e.fieldsV1 !== undefined) entry.fieldsV1 = { Raw: Buffer.from(JSON.stringify(e.fieldsV1)) };
      return entry;
    });
  }
  return out;
}

export function gogoConfigMap(cm: Json): Json {
  const out: Json = { metadata: gogoObjectMeta((cm.metadata ?? {}) as Json) };
  if (cm.data) out.data = sortedMap(cm.data as Record<string, string>);
  if (cm.binaryData) out.binaryData = sortedMap(cm.binaryData as Record<string, string>, (v) => Buffer.from(v, 'base64'));
  if (cm.immutable !== undefined) out.immutable = cm.immutable;
  return out;
}

export function upstreamEncode(type: string, value: Json): Uint8Array {
  const t = pbType(type);
  return t.encode(t.fromObject(value)).finish();
}

export function upstreamEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const unknown = upstreamEncode('Unknown', { typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' });
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}

export const richConfigMap: Json = {
  metadata: {
    name: 'rich',
    namespace: 'default',
    uid: '6f1c0b7e-4a5b-4c3d-9e8f-0123456789ab',
    resourceVersion: '1234567',
    generation: 9_007_199_254,
    creationTimestamp: '2024-02-29T23:59:59Z',
    deletionTimestamp: '1969-07-20T20:17:40Z',
    deletionGracePeriodSeconds: 30,
    labels: { zeta: 'z', alpha: 'a', 'app.kubernetes.io/name': 'web' },
    annotations: { 'note/ü': 'wert ✓', plain: '' },
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-1', controller: true, blockOwnerDeletion: true },
      { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u-2', controller: false },
    ],
    finalizers: ['kubernetes.io/a', 'example.com/b'],
    managedFields: [
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2024-02-29T23:59:59Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:k': {} } },
      },
      { manager: 'ctrl', operation: 'Apply', apiVersion: 'v1', subresource: 'status' },
    ],
  },
  data: { k: 'v', 'long-value': 'x'.repeat(200), empty: '' },
  binaryData: { bin: Buffer.from([0, 1, 2, 255]).toString('base64') },
  immutable: true,
};
