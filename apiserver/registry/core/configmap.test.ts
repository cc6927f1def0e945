import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../shared/api/field.ts';
import { configMapDefinition, type ConfigMap } from './configmap.ts';

const ctx = { user: { username: 'tester', groups: [] }, now: new Date('2024-01-01T00:00:00Z') };
const strategy = configMapDefinition.strategy;
const configMap = (fields: Partial<ConfigMap> = {}): ConfigMap => ({ metadata: { name: 'cm', namespace: 'default' }, ...fields });
const validate = (cm: ConfigMap): string[] => strategy.validate(cm, ctx).map(fieldErrorString);
const validateUpdate = (cm: ConfigMap, old: ConfigMap): string[] => (strategy.validateUpdate?.(cm, old, ctx) ?? []).map(fieldErrorString);
const keyRule =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

describe('configMapDefinition', () => {
  it('is v1 configmaps, short name cm, namespaced, with every verb', () => {
    assert.equal(configMapDefinition.group, '');
    assert.equal(configMapDefinition.version, 'v1');
    assert.equal(configMapDefinition.plural, 'configmaps');
    assert.deepEqual(configMapDefinition.shortNames, ['cm']);
    assert.equal(configMapDefinition.namespaced, true);
    assert.equal(configMapDefinition.verbs.length, 8);
    assert.equal(configMapDefinition.schema.properties?.binaryData?.additionalProperties?.format, 'byte');
    assert.equal(configMapDefinition.schema.properties?.data?.additionalProperties?.type, 'string');
  });

  it('accepts valid keys in data and binaryData', () => {
    assert.deepEqual(validate(configMap({ data: { 'a.b_c-D': 'x' }, binaryData: { 'bin.key': 'AAEC' } })), []);
  });

  it('checks data and binaryData keys with upstream paths', () => {
    assert.deepEqual(validate(configMap({ data: { 'a b': 'x' } })), [`data[a b]: Invalid value: "a b": ${keyRule}`]);
    assert.deepEqual(validate(configMap({ binaryData: { '..x': '' } })), [`binaryData[..x]: Invalid value: "..x": must not start with '..'`]);
  });

  it('rejects a key present in both data and binaryData', () => {
    assert.deepEqual(validate(configMap({ data: { k: 'x' }, binaryData: { k: 'eA==' } })), [
      'data[k]: Invalid value: "k": duplicate of key present in binaryData',
    ]);
  });

  it('limits the total size of data and binaryData to 1 MiB, reported against the whole object', () => {
    const half = 512 * 1024;
    const exactly = configMap({ data: { a: 'x'.repeat(half) }, binaryData: { b: Buffer.alloc(half).toString('base64') } });
    assert.deepEqual(validate(exactly), []);
    const over = configMap({ data: { a: 'x'.repeat(half + 1) }, binaryData: { b: Buffer.alloc(half).toString('base64') } });
    assert.deepEqual(validate(over), [': Too long: may not be more than 1048576 bytes']);
  });

  it('counts data sizes in UTF-8 bytes', () => {
    // 'é' is two bytes: 524289 characters are 1048578 bytes.
    assert.deepEqual(validate(configMap({ data: { a: 'é'.repeat(512 * 1024 + 1) } })), [': Too long: may not be more than 1048576 bytes']);
  });

  describe('immutable', () => {
    const old = configMap({ immutable: true, data: { a: 'x' }, binaryData: { b: 'eA==' } });

    it('allows an update that keeps data, binaryData and the flag', () => {
      assert.deepEqual(validateUpdate(configMap({ immutable: true, data: { a: 'x' }, binaryData: { b: 'eA==' } }), old), []);
    });

    it('forbids changing data or binaryData', () => {
      assert.deepEqual(validateUpdate(configMap({ immutable: true, data: { a: 'y' }, binaryData: {} }), old), [
        'data: Forbidden: field is immutable when `immutable` is set',
        'binaryData: Forbidden: field is immutable when `immutable` is set',
      ]);
    });

    it('forbids clearing the flag', () => {
      assert.deepEqual(validateUpdate(configMap({ immutable: false, data: { a: 'x' }, binaryData: { b: 'eA==' } }), old), [
        'immutable: Forbidden: field is immutable when `immutable` is set',
      ]);
    });

    it('lets a mutable config map change and become immutable', () => {
      assert.deepEqual(validateUpdate(configMap({ immutable: true, data: { a: 'z' } }), configMap({ data: { a: 'x' } })), []);
    });

    it('still validates the new object on update', () => {
      assert.deepEqual(validateUpdate(configMap({ data: { 'a b': 'x' } }), configMap()), [`data[a b]: Invalid value: "a b": ${keyRule}`]);
    });
  });
});
