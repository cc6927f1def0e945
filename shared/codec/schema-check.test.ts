import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAgainstSchema, SchemaTypeError } from './schema-check.ts';
import { kindSchema, map, string, int32, bytes, array, object, time, microTime, named, boolean } from '../api/schema.ts';

const schema = kindSchema({
  data: map(string()),
  binaryData: map(bytes()),
  spec: object({ replicas: int32(), items: array(object({ name: string() })) }),
});

test('unknown fields are removed and reported with dotted paths', () => {
  const value = { metadata: { name: 'a', bogus: 1 }, spec: { items: [{ name: 'x', extra: true }] }, top: 1 };
  assert.deepEqual(checkAgainstSchema(value, schema, 'ConfigMap'), ['metadata.bogus', 'spec.items.extra', 'top']);
  assert.deepEqual(value, { metadata: { name: 'a' }, spec: { items: [{ name: 'x' }] } });
});

test('wrong types are errors naming the Go field and type', () => {
  assert.throws(
    () => checkAgainstSchema({ metadata: {}, data: { a: 1 } }, schema, 'ConfigMap'),
    (err: unknown) => err instanceof SchemaTypeError && err.message === 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
  );
  assert.throws(
    () => checkAgainstSchema({ metadata: {}, spec: { replicas: 1.5 } }, schema, 'X'),
    /cannot unmarshal number 1.5 into Go struct field X.spec.replicas of type int32/,
  );
  assert.throws(() => checkAgainstSchema({ metadata: {}, binaryData: { a: '!!' } }, schema, 'X'), /illegal base64 data at input byte 0/);
  assert.throws(() => checkAgainstSchema({ metadata: [] }, schema, 'X'), /cannot unmarshal array into Go struct field X.metadata of type v1.ObjectMeta$/);
});

test("a field of a nested named struct is named as Go names it: that struct, then the field's path from the root", () => {
  const spec = named('io.k8s.api.apps.v1.DeploymentSpec', 'A spec.', object({ replicas: int32(), template: object({ paused: boolean() }) }));
  const deployment = kindSchema({ spec });
  assert.throws(
    () => checkAgainstSchema({ metadata: {}, spec: { replicas: '3' } }, deployment, 'Deployment'),
    (err: unknown) =>
      err instanceof SchemaTypeError && err.message === 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
  );
  // An unnamed struct inside keeps the name of the named one around it.
  assert.throws(
    () => checkAgainstSchema({ metadata: {}, spec: { template: { paused: 1 } } }, deployment, 'Deployment'),
    /json: cannot unmarshal number into Go struct field DeploymentSpec.spec.template.paused of type bool$/,
  );
  assert.throws(
    () => checkAgainstSchema({ metadata: {}, spec: 'x' }, deployment, 'Deployment'),
    /json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec$/,
  );
  assert.throws(
    () => checkAgainstSchema({ metadata: { name: 1 } }, deployment, 'Deployment'),
    /json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string$/,
  );
});

test('null properties are dropped; null map values and list items become Go zero values', () => {
  const value = {
    metadata: { labels: null, annotations: { a: null } },
    data: { a: null },
    binaryData: { b: null },
    spec: { replicas: null, items: [null, { name: null }] },
  };
  checkAgainstSchema(value, schema, 'ConfigMap');
  assert.deepEqual(value, { metadata: { annotations: { a: '' } }, data: { a: '' }, binaryData: { b: '' }, spec: { items: [{}, {}] } });
});

test("times must be what Go's time.Parse reads: its error, or the inner string decode's for a non-string", () => {
  const timed = kindSchema({ lastTimestamp: time(), eventTime: microTime() });
  const message = (value: Record<string, unknown>): string => {
    try {
      checkAgainstSchema(value, timed, 'Event');
    } catch (err) {
      assert.ok(err instanceof SchemaTypeError);
      return err.message;
    }
    return 'accepted';
  };
  assert.equal(
    message({ metadata: { creationTimestamp: 'yesterday' } }),
    'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
  );
  assert.equal(
    message({ eventTime: '2024-01-01T00:00:00Z' }),
    'parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
  );
  assert.equal(message({ lastTimestamp: 1704067200 }), 'json: cannot unmarshal number into Go value of type string');
  assert.equal(message({ lastTimestamp: {} }), 'json: cannot unmarshal object into Go value of type string');
  assert.equal(message({ lastTimestamp: true }), 'json: cannot unmarshal bool into Go value of type string');
  assert.equal(
    message({ metadata: { creationTimestamp: '2024-01-01T10:00:00.5+02:00' }, lastTimestamp: null, eventTime: '2024-01-01T00:00:00.000000Z' }),
    'accepted',
  );
});
