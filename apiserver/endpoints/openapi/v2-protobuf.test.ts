import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApiV2Document } from './documents.ts';
import { obj, registry } from './test-fixtures.ts';
import { openApiV2Protobuf } from './v2-protobuf.ts';

// A protobuf wire reader for the assertions below: every field of a message, in order.
function fields(buf: Buffer): { field: number; value: Buffer | bigint }[] {
  const out: { field: number; value: Buffer | bigint }[] = [];
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buf[i++];
      assert.ok(byte !== undefined, 'truncated varint');
      result |= BigInt(byte & 127) << shift;
      if (byte < 128) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const wireType = key & 7;
    if (wireType === 0) out.push({ field: key >> 3, value: varint() });
    else if (wireType === 2) {
      const length = Number(varint());
      out.push({ field: key >> 3, value: buf.subarray(i, i + length) });
      i += length;
    } else if (wireType === 1) {
      out.push({ field: key >> 3, value: buf.subarray(i, i + 8) });
      i += 8;
    } else assert.fail(`unexpected wire type ${wireType}`);
  }
  assert.equal(i, buf.length);
  return out;
}

const messages = (buf: Buffer, field: number): Buffer[] =>
  fields(buf)
    .filter((f) => f.field === field)
    .map((f) => (Buffer.isBuffer(f.value) ? f.value : assert.fail(`field ${field} is not length-delimited`)));
const message = (buf: Buffer, field: number): Buffer => messages(buf, field)[0] ?? assert.fail(`no field ${field}`);
const text = (buf: Buffer, field: number): string => messages(buf, field)[0]?.toString('utf8') ?? '';

/** A Named* entry (name 1, value 2) by name. */
function namedEntry(entries: Buffer[], name: string): Buffer {
  const entry = entries.find((e) => text(e, 1) === name);
  assert.ok(entry, `no entry ${name}`);
  return message(entry, 2);
}

test('the v2 protobuf is gnostic OpenAPIv2 as client-go decodes it', () => {
  const doc = obj(openApiV2Document(registry), 'v2');
  const pb = openApiV2Protobuf(doc);
  assert.equal(text(pb, 1), '2.0');
  assert.equal(text(message(pb, 2), 1), 'Kubernetes');
  assert.equal(text(message(pb, 2), 2), 'v1.32.0');

  const paths = messages(message(pb, 8), 2);
  assert.equal(paths.length, Object.keys(obj(doc.paths, 'paths')).length);
  const patch = message(namedEntry(paths, '/api/v1/namespaces/{namespace}/configmaps/{name}'), 8);
  assert.equal(text(patch, 5), 'patchCoreV1NamespacedConfigMap');
  // ParametersItem.parameter → Parameter.non_body_parameter → NonBodyParameter.query_parameter_sub_schema.name
  const queryNames = messages(patch, 8).flatMap((item) => messages(message(item, 1), 2).map((nonBody) => text(message(nonBody, 3), 4)));
  assert.deepEqual(queryNames, ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
  const body = message(message(messages(patch, 8)[0] ?? Buffer.alloc(0), 1), 1);
  assert.equal(text(body, 2), 'body');
  assert.equal(text(message(body, 5), 1), '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
  const extensions = messages(patch, 13);
  assert.equal(text(namedEntry(extensions, 'x-kubernetes-action'), 2), '"patch"');
  assert.deepEqual(JSON.parse(text(namedEntry(extensions, 'x-kubernetes-group-version-kind'), 2)), { group: '', kind: 'ConfigMap', version: 'v1' });

  const definitions = messages(message(pb, 9), 1);
  assert.equal(definitions.length, Object.keys(obj(doc.definitions, 'definitions')).length);
  const configMap = namedEntry(definitions, 'io.k8s.api.core.v1.ConfigMap');
  assert.deepEqual(messages(message(configMap, 22), 1).map(String), ['object']);
  const properties = messages(message(configMap, 25), 1);
  assert.equal(text(namedEntry(properties, 'metadata'), 1), '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const data = namedEntry(properties, 'data');
  assert.deepEqual(
    messages(message(message(data, 21), 1), 22).map((t) => text(t, 1)),
    ['string'],
  );
  assert.deepEqual(JSON.parse(text(namedEntry(messages(configMap, 31), 'x-kubernetes-group-version-kind'), 2)), [
    { group: '', kind: 'ConfigMap', version: 'v1' },
  ]);
  // Named structs: a field's $ref (Schema field 1) travels with its description (field 4).
  const v2Definitions = obj(doc.definitions, 'definitions');
  const nodeSpec = namedEntry(messages(message(namedEntry(definitions, 'io.k8s.api.core.v1.Node'), 25), 1), 'spec');
  assert.equal(text(nodeSpec, 1), '#/definitions/io.k8s.api.core.v1.NodeSpec');
  assert.equal(text(nodeSpec, 4), obj(obj(obj(v2Definitions['io.k8s.api.core.v1.Node'], 'Node').properties, 'Node properties').spec, 'spec').description);
  const taints = namedEntry(messages(message(namedEntry(definitions, 'io.k8s.api.core.v1.NodeSpec'), 25), 1), 'taints');
  assert.ok(text(taints, 4).length > 0);
  assert.equal(text(message(message(taints, 23), 1), 1), '#/definitions/io.k8s.api.core.v1.Taint');
  assert.ok(text(namedEntry(definitions, 'io.k8s.api.core.v1.Taint'), 4).length > 0, 'the type has its own description');
  // An empty Properties message still marks an object with properties (ListMeta has some; FieldsV1 has none).
  const fieldsV1 = namedEntry(definitions, 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1');
  assert.equal(messages(fieldsV1, 25).length, 0);

  const security = namedEntry(messages(message(pb, 13), 1), 'BearerToken');
  const apiKey = message(security, 2);
  assert.deepEqual([text(apiKey, 1), text(apiKey, 2), text(apiKey, 3)], ['apiKey', 'authorization', 'header']);
});
