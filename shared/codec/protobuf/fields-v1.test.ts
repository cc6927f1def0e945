import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldsV1, object, pb } from '../../api/schema.ts';
import { decodeMessage } from './decode.ts';
import { encodeMessage } from './encode.ts';
import { configMapSchema, gogoConfigMap, hex, upstreamEncode, type Json } from './test-fixtures.ts';

describe('FieldsV1', () => {
  it('FieldsV1: the same object, an equal one and a changed copy encode as JSON.stringify gives them', () => {
    const fields = { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:é': {} } } };
    const cm = (f: Json): Json => ({ metadata: { name: 'x', managedFields: [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: f }] } });
    const expected = (f: Json): string => hex(upstreamEncode('ConfigMap', gogoConfigMap(cm(f))));
    assert.equal(hex(encodeMessage(cm(fields), configMapSchema)), expected(fields));
    assert.equal(hex(encodeMessage(cm(fields), configMapSchema)), expected(fields));
    assert.equal(hex(encodeMessage(cm(structuredClone(fields)), configMapSchema)), expected(fields));
    // A change is a new object (managed-fields code never edits one in place): encoded anew.
    const changed = { ...fields, 'f:data': { ...fields['f:data'], 'f:b': {} } };
    assert.equal(hex(encodeMessage(cm(changed), configMapSchema)), expected(changed));
  });

  it('FieldsV1 decodes as JSON.parse reads it: escapes, whitespace, Unicode, __proto__, deep trees, long keys', () => {
    const schema = object({ f: pb(1, fieldsV1(), 'optional') });
    const decodeRaw = (text: string): unknown => decodeMessage(encodeMessage({ f: Buffer.from(text) }, schema), schema).f;
    // Deeper than the fast path goes: JSON.parse reads it.
    const deep = '{"f:a":'.repeat(150) + '{}' + '}'.repeat(150);
    for (const text of [
      '{}',
      '{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}',
      '{"k:{\\"name\\":\\"c\\"}":{".":{}}}',
      '{"f:metadata":{"f:ownerReferences":{".":{},"k:{\\"uid\\":\\"5c1e1f0e-2b1d-4f4e-9a53-2f3c7d1e0a11\\"}":{}}},"f:spec":{"f:renewTime":{}}}',
      '{"f:a\\\\":{},"k:\\"":{"f:\\/\\b\\t":{}}}',
      '{ "f:spaced" : { } }',
      '{"f:é✓𝄞":{},"f:\\u00e9":{}}',
      '{"__proto__":{"f:x":{}}}',
      '{"2":{},"1":{},"f:b":{},"f:a":{},"f:b":{"f:c":{}}}',
      `{"f:${'y'.repeat(40)}":{}}`,
      '{"f:a":null,"f:b":[1,"two"]}',
      deep,
    ]) {
      const decoded = decodeRaw(text);
      const parsed = JSON.parse(text) as unknown;
      assert.deepEqual(decoded, parsed, text.slice(0, 60));
      assert.equal(JSON.stringify(decoded), JSON.stringify(parsed), text.slice(0, 60));
    }
    assert.equal(Object.getPrototypeOf(decodeRaw('{"__proto__":{}}')), Object.prototype);
    assert.equal(Object.getPrototypeOf(decodeRaw('{"\\u005f_proto__":{}}')), Object.prototype);
    for (const text of ['{"f:a":{}', '{"f:a":{}}}', '{"f:a" {}}', '{"f:\u0001":{}}', '{"f:a":{},}', '{"f:\\x":{}}', '{"f:\\u12":{}}', '{"f:a\\":{}}']) {
      assert.throws(() => decodeRaw(text), /FieldsV1 holds bytes that are not JSON/, text);
    }
  });
});
