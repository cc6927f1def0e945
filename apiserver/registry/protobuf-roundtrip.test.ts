/**
 * Every served kind survives protobuf: an object encoded with its kind's schema
 * (`application/vnd.kubernetes.protobuf`, `k8s\0` envelope) decodes to the same JSON value, as a
 * single object, inside its list, and a Status does too. Re-encoding the decoded value gives the
 * same bytes, so a protobuf client that reads and writes back an object changes nothing.
 *
 * Two sources of objects per kind:
 * - the conformance fixture (a valid object, with its update and status changes applied), with the
 *   metadata a server fills: uid, creationTimestamp, resourceVersion, generation, managedFields
 *   holding a FieldsV1 tree, labels, annotations, ownerReferences, finalizers, deletion fields;
 * - an object synthesized from the kind's schema with a non-zero value in every property at every
 *   depth, so that fields no fixture sets are covered as well.
 *
 * Normalization (upstream's JSON rules that protobuf cannot carry, applied to the expected value):
 * - apiVersion and kind travel in the envelope, not in the message: list items come back without
 *   them (protobuf list items have no TypeMeta);
 * - a zero value of a non-pointer field is indistinguishable from an absent one in protobuf (gogo
 *   writes both as the zero): the decoder drops it, as Go's `omitempty` does. Expected values
 *   therefore hold no such zeros, except the explicit zeros of pointer fields (kept and checked).
 *   Go writes an empty non-pointer struct as `{}` (omitempty has no effect on structs), which the
 *   decoder drops: Status's `metadata: {}` is expected absent. An empty list decodes as absent
 *   (Go: nil, JSON `null`).
 * - metav1.Time has whole seconds and MicroTime microseconds: values here are already truncated.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listSchema, statusSchema, type Schema } from '../../shared/api/schema.ts';
import { toGoShape } from '../../shared/go/shape.ts';
import { deepCopy, type KubeObject } from '../../shared/api/types.ts';
import { decodeEnvelope } from '../../shared/codec/protobuf/envelope.ts';
import { decodeObject, encodeObject } from '../../shared/codec/protobuf/object.ts';
import { allDefinitions } from './all.ts';
import { testKindDependencies } from '../testing/kind-dependencies.ts';
import { etcdComponentStatus } from './core/componentstatus.ts';
import { fixtureKey, fixtures, reviewFixtures } from './conformance-fixtures.ts';
import { apiVersionOf, type ResourceDefinition } from './definition.ts';

// The store is reached only when ComponentStatus is probed, which this test never does.
const definitions = allDefinitions(async () => undefined, testKindDependencies());

/** The metadata a server fills on a stored object, every field of ObjectMeta set. */
function serverMetadata(obj: KubeObject, def: ResourceDefinition): void {
  obj.metadata = {
    ...obj.metadata,
    generateName: `${obj.metadata.name}-`,
    uid: '5f3c2f0e-7b7d-4b6c-9d6e-2d0f1c8a9b10',
    resourceVersion: '123456',
    generation: 3,
    creationTimestamp: '2024-03-04T05:06:07Z',
    deletionTimestamp: '2024-03-04T06:07:08Z',
    // A pointer: its explicit zero is kept.
    deletionGracePeriodSeconds: 0,
    labels: { app: 'web', 'example.com/tier': 'front', ...obj.metadata.labels },
    annotations: { 'example.com/note': 'hello, wörld ✓', empty: '' },
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'web-6d4cf56db6',
        uid: '0a1b2c3d-0000-4000-8000-000000000001',
        controller: true,
        blockOwnerDeletion: true,
      },
      // Pointers set to false are kept: they differ from unset in JSON.
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '0a1b2c3d-0000-4000-8000-000000000002', controller: false },
    ],
    finalizers: ['example.com/cleanup', 'kubernetes'],
    managedFields: [
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: apiVersionOf(def),
        time: '2024-03-04T05:06:07Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} }, 'f:annotations': { 'f:example.com/note': {} } } },
      },
      {
        manager: 'controller',
        operation: 'Update',
        apiVersion: apiVersionOf(def),
        time: '2024-03-04T05:07:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': { '.': {} } },
        subresource: 'status',
      },
    ],
  };
}

/** The kind's fixture object, changed as updates and status writes would, with server metadata. */
function fixtureObject(def: ResourceDefinition): KubeObject {
  const review = reviewFixtures[fixtureKey(def)];
  const fixture = fixtures[fixtureKey(def)];
  let obj: KubeObject;
  if (review) {
    // A review's request; the synthesized object covers its status.
    obj = review.request(def.namespaced ? 'default' : '');
  } else if (!fixture) {
    assert.fail(`no conformance fixture for ${fixtureKey(def)}`);
  } else if (fixture.readOnly) {
    obj = etcdComponentStatus('etcd-0', true);
  } else {
    obj = fixture.valid('roundtrip', def.namespaced ? 'default' : '');
    if (!def.namespaced) delete obj.metadata.namespace;
    fixture.mutate(obj);
    fixture.status?.mutate(obj);
  }
  serverMetadata(obj, def);
  return obj;
}

// ---------------------------------------------------------------------------------------------
// Objects synthesized from a schema.

/** How deep synthesis follows nested messages; no served kind is recursive, this only bounds it. */
const maxDepth = 12;

/** A non-zero JSON value of `schema`; `name` (the property's) varies strings and the entries of lists and maps. */
function synthesize(schema: Schema, name: string, depth: number): unknown {
  switch (schema['x-corral-type']) {
    case 'Time':
      return '2024-05-06T07:08:09Z';
    case 'MicroTime':
      return '2024-05-06T07:08:09.123456Z';
    case 'Duration':
      return '1h2m3.5s';
    case 'Quantity':
      return '1500m';
    case 'IntOrString':
      return name.length % 2 === 0 ? 8080 : 'http';
    case 'FieldsV1':
      return { 'f:spec': { 'f:x': {} } };
    case 'RawExtension':
      return { apiVersion: 'example.com/v1', kind: 'Thing', spec: { n: 1, list: [true, null, 'x'] } };
    case undefined:
      break;
  }
  if (schema['x-kubernetes-int-or-string']) return 'ios';
  switch (schema.type) {
    case 'string':
      if (schema.format === 'byte') return Buffer.from(`bytes of ${name}`).toString('base64');
      return schema.enum?.[0] ?? `${name}-ü`;
    case 'boolean':
      return true;
    case 'integer':
      // int64 beyond 32 bits; negative int32 (ten-byte varints).
      return schema.format === 'int32' ? -7 : 2 ** 40 + 3;
    case 'number':
      return 1.5;
    case 'array':
      return [synthesize(schema.items ?? {}, name, depth + 1), synthesize(schema.items ?? {}, `${name}2`, depth + 1)];
    default:
      break;
  }
  if (schema.additionalProperties && !schema.properties) {
    return { b: synthesize(schema.additionalProperties, name, depth + 1), a: synthesize(schema.additionalProperties, `${name}a`, depth + 1) };
  }
  const out: Record<string, unknown> = {};
  if (depth > maxDepth) return out;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (property['x-corral-protobuf'] === undefined) continue;
    out[key] = synthesize(property, key, depth + 1);
  }
  return out;
}

function synthesizedObject(def: ResourceDefinition): KubeObject {
  const obj = synthesize(def.schema, def.kind, 0) as KubeObject;
  return { apiVersion: apiVersionOf(def), kind: def.kind, ...obj };
}

// ---------------------------------------------------------------------------------------------
// Checks.

function typeMetaOf(def: ResourceDefinition, list = false): { apiVersion: string; kind: string } {
  return { apiVersion: apiVersionOf(def), kind: list ? `${def.kind}List` : def.kind };
}

/**
 * Properties of every decoded object in schema order (the order Go's JSON writes struct fields),
 * checked at every depth: `path` names the first object out of order.
 */
function outOfOrder(value: unknown, schema: Schema, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => outOfOrder(v, schema.items ?? {}, `${path}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  if (schema.properties) {
    const order = Object.keys(schema.properties);
    const keys = Object.keys(record);
    const positions = keys.map((k) => order.indexOf(k));
    const problems = positions.some((p, i) => i > 0 && p < positions[i - 1]!) ? [`${path || '.'}: ${keys.join(',')}`] : [];
    return [...problems, ...keys.flatMap((k) => outOfOrder(record[k], schema.properties![k] ?? {}, `${path}.${k}`))];
  }
  if (schema.additionalProperties) return Object.keys(record).flatMap((k) => outOfOrder(record[k], schema.additionalProperties!, `${path}[${k}]`));
  return [];
}

function roundTrip(
  value: Record<string, unknown>,
  schema: Schema,
  typeMeta: { apiVersion: string; kind: string },
): { bytes: Uint8Array; decoded: Record<string, unknown> } {
  const bytes = encodeObject(value, schema, typeMeta);
  const envelope = decodeEnvelope(bytes);
  assert.equal(envelope.apiVersion, typeMeta.apiVersion);
  assert.equal(envelope.kind, typeMeta.kind);
  const decoded = decodeObject(bytes, schema);
  // Encoding the decoded value again gives the same bytes.
  assert.equal(
    Buffer.from(encodeObject(decoded, schema, typeMeta)).toString('hex'),
    Buffer.from(bytes).toString('hex'),
    'decode then encode changes the bytes',
  );
  assert.deepEqual(outOfOrder(decoded, schema), [], 'decoded properties follow the schema order');
  return { bytes, decoded };
}

/** A list of `items` as served: items without TypeMeta (see the normalization above). */
function listOf(def: ResourceDefinition, items: Record<string, unknown>[], metadata: Record<string, unknown>): Record<string, unknown> {
  return {
    ...typeMetaOf(def, true),
    metadata,
    items: items.map((item) => {
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = item;
      return rest;
    }),
  };
}

const listSchemas = new Map<ResourceDefinition, Schema>();
function listSchemaOf(def: ResourceDefinition): Schema {
  let schema = listSchemas.get(def);
  if (!schema) listSchemas.set(def, (schema = listSchema(def.schema)));
  return schema;
}

describe('protobuf round trip of every served kind', () => {
  it('covers every served kind (28)', () => {
    assert.equal(definitions.length, 28);
    assert.deepEqual(
      definitions.filter((def) => !fixtures[fixtureKey(def)] && !reviewFixtures[fixtureKey(def)]).map(fixtureKey),
      [],
      'served kinds without a conformance fixture',
    );
  });

  for (const def of definitions) {
    describe(`${apiVersionOf(def)} ${def.kind}`, () => {
      it('the fixture object with server-set metadata', () => {
        const obj = fixtureObject(def);
        const before = deepCopy(obj);
        const { decoded } = roundTrip(obj, def.schema, typeMetaOf(def));
        // Go's non-omitempty zeros travel in protobuf even where the JSON fixture leaves them out.
        assert.deepEqual(decoded, toGoShape(deepCopy(obj), def.schema));
        // The value encoded is not changed by encoding.
        assert.deepEqual(obj, before);
      });

      it('an object with every property of the schema set', () => {
        const obj = synthesizedObject(def);
        const { decoded } = roundTrip(obj, def.schema, typeMetaOf(def));
        assert.deepEqual(decoded, obj);
      });

      it('the list form (listSchema), list metadata and two items', () => {
        const first = fixtureObject(def);
        const second = synthesizedObject(def);
        const metadata = { resourceVersion: '987', continue: 'eyJydiI6OTg3fQ', remainingItemCount: 4 };
        const list = listOf(def, [first, second], metadata);
        const { decoded } = roundTrip(list, listSchemaOf(def), typeMetaOf(def, true));
        assert.deepEqual(decoded, listOf(def, [toGoShape(deepCopy(first), def.schema), second], metadata));
      });

      it('an empty list: items decode as absent, an explicit remainingItemCount of 0 is kept', () => {
        const list = listOf(def, [], { resourceVersion: '5', remainingItemCount: 0 });
        const { decoded } = roundTrip(list, listSchemaOf(def), typeMetaOf(def, true));
        // Protobuf cannot tell an empty list from a nil one; Go decodes nil (JSON `null`).
        const { items: _items, ...expected } = list;
        assert.deepEqual(decoded, expected);
      });
    });
  }
});

describe('protobuf round trip of Status', () => {
  const schema = statusSchema();
  const typeMeta = { apiVersion: 'v1', kind: 'Status' };

  it('an Invalid Status with details and causes', () => {
    const status = {
      ...typeMeta,
      status: 'Failure',
      message: 'ConfigMap "x" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters',
      reason: 'Invalid',
      details: {
        name: 'x',
        kind: 'ConfigMap',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: "a b": a valid config key', field: 'data[a b]' },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.name' },
        ],
      },
      code: 422,
    };
    assert.deepEqual(roundTrip(status, schema, typeMeta).decoded, status);
  });

  it('a Status with every field set', () => {
    const status = {
      ...typeMeta,
      metadata: { selfLink: '/api/v1/x', resourceVersion: '42', continue: 'c', remainingItemCount: 0 },
      status: 'Failure',
      message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests',
      details: {
        name: 'n',
        group: 'storage.k8s.io',
        kind: 'csidrivers',
        uid: 'u-1',
        causes: [{ reason: 'r', message: 'm', field: 'f' }],
        retryAfterSeconds: 1,
      },
      code: 429,
    };
    assert.deepEqual(roundTrip(status, schema, typeMeta).decoded, status);
  });

  it('a Success Status; Go writes its empty metadata as {}, which protobuf decodes as absent', () => {
    const status = { ...typeMeta, metadata: {}, status: 'Success', details: { name: 'x', kind: 'configmaps', uid: 'u-2' } };
    const { metadata: _metadata, ...expected } = status;
    assert.deepEqual(roundTrip(status, schema, typeMeta).decoded, expected);
  });
});

/**
 * Go's JSON omits a zero only for fields tagged `omitempty`; some non-pointer fields of served kinds
 * are not (storage/v1 VolumeAttachmentStatus `json:"attached"`, core/v1 DaemonEndpoint
 * `json:"Port"`, ClusterCIDRSpec `json:"ipv6"`), and upstream serves their zeros after decoding
 * protobuf. Their schemas mark them `keepZero` (pb(n, schema, 'keepZero')); other zeros are dropped.
 */
describe('protobuf zeros of fields without omitempty', () => {
  const byKind = (kind: string): ResourceDefinition => {
    const def = definitions.find((d) => d.kind === kind);
    assert.ok(def, kind);
    return def;
  };

  it('VolumeAttachment status.attached: false is kept', () => {
    const def = byKind('VolumeAttachment');
    const obj = { ...fixtureObject(def), status: { attached: false, detachError: { time: '2024-01-01T00:00:00Z', message: 'timed out' } } };
    assert.deepEqual(decodeObject(encodeObject(obj, def.schema, typeMetaOf(def)), def.schema), obj);
  });

  it('ClusterCIDR spec.ipv6: "" is kept', () => {
    const def = byKind('ClusterCIDR');
    const obj = { ...fixtureObject(def), spec: { perNodeHostBits: 8, ipv4: '10.0.0.0/16', ipv6: '' } };
    assert.deepEqual(decodeObject(encodeObject(obj, def.schema, typeMetaOf(def)), def.schema), obj);
  });

  it('Node daemonEndpoints Port 0 and empty nodeInfo strings are kept; an omitempty zero (taint value) is not', () => {
    const def = byKind('Node');
    const nodeInfo = Object.fromEntries(
      [
        'machineID',
        'systemUUID',
        'bootID',
        'kernelVersion',
        'osImage',
        'containerRuntimeVersion',
        'kubeletVersion',
        'kubeProxyVersion',
        'operatingSystem',
        'architecture',
      ].map((f) => [f, '']),
    );
    const obj = {
      ...fixtureObject(def),
      spec: { taints: [{ key: 'k', value: '', effect: 'NoSchedule' }] },
      status: { daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo },
    };
    const decoded = decodeObject(encodeObject(obj, def.schema, typeMetaOf(def)), def.schema);
    assert.deepEqual(decoded.status, obj.status);
    assert.deepEqual(decoded.spec, { taints: [{ key: 'k', effect: 'NoSchedule' }] });
  });
});
