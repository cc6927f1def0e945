import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeMessage } from './encode.ts';
import { decodeEnvelope, encodeEnvelope, encodeEnvelopeParts } from './envelope.ts';
import { ProtobufPrefixError } from './errors.ts';
import { encodeObject } from './object.ts';
import { configMapSchema, fromHex, hex, kubectlConfigMapBody, richConfigMap, upstreamEnvelope } from './test-fixtures.ts';

describe('envelope', () => {
  it('envelope: same bytes as a protobufjs runtime.Unknown after the prefix', () => {
    const raw = encodeMessage(richConfigMap, configMapSchema);
    const expected = hex(upstreamEnvelope('v1', 'ConfigMap', raw));
    assert.equal(hex(encodeEnvelope('v1', 'ConfigMap', raw)), expected);
    assert.equal(hex(encodeObject(richConfigMap, configMapSchema, { apiVersion: 'v1', kind: 'ConfigMap' })), expected);
  });

  it('envelope around parts: the same bytes as around the parts joined, whatever the length prefix takes', () => {
    const raw = encodeMessage(richConfigMap, configMapSchema);
    for (const size of [0, 1, 127, 128, 16_383, 16_384, 2_097_152]) {
      const filler = Buffer.alloc(size, 0x61);
      const parts = [raw.subarray(0, 3), filler, raw.subarray(3)];
      const expected = hex(encodeEnvelope('v1', 'ConfigMapList', Buffer.concat(parts)));
      assert.equal(hex(encodeEnvelopeParts('v1', 'ConfigMapList', parts)), expected, `${size} bytes of filler`);
    }
    assert.equal(hex(encodeEnvelopeParts('v1', 'ConfigMap', [])), hex(encodeEnvelope('v1', 'ConfigMap', new Uint8Array(0))));
  });

  it('rejects bodies without the k8s\\0 prefix with a typed error', () => {
    assert.throws(
      () => decodeEnvelope(Buffer.from('{"kind":"ConfigMap"}')),
      (err: unknown) => {
        assert.ok(err instanceof ProtobufPrefixError);
        assert.equal(err.message, 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
        return true;
      },
    );
    assert.throws(() => decodeEnvelope(new Uint8Array(0)), { message: 'empty data' });
    assert.throws(() => decodeEnvelope(fromHex('6b387300')), { message: 'empty body' });
  });

  it('gives apiVersion, kind, raw, contentEncoding and contentType', () => {
    const envelope = decodeEnvelope(fromHex(kubectlConfigMapBody));
    assert.equal(envelope.apiVersion, 'v1');
    assert.equal(envelope.kind, 'ConfigMap');
    assert.equal(envelope.raw.length, 0x22);
    assert.equal(envelope.contentEncoding, '');
    assert.equal(envelope.contentType, '');
  });
});
