import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../shared/api/field.ts';
import { createCA } from '../../../shared/pki/certificates.ts';
import { secretDefinition, type Secret } from './secret.ts';

const ctx = { user: { username: 'tester', groups: [] }, now: new Date('2024-01-01T00:00:00Z') };
const strategy = secretDefinition.strategy;
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const secret = (fields: Partial<Secret> = {}): Secret => ({ metadata: { name: 's', namespace: 'default' }, ...fields });
/** Create as the store runs it: prepare, then validate. */
const create = (s: Secret): string[] => {
  strategy.prepareForCreate?.(s, ctx);
  return strategy.validate(s, ctx).map(fieldErrorString);
};
const update = (s: Secret, old: Secret): string[] => {
  strategy.prepareForUpdate?.(s, old, ctx);
  return (strategy.validateUpdate?.(s, old, ctx) ?? []).map(fieldErrorString);
};

describe('secretDefinition', () => {
  it('is v1 secrets without a short name, namespaced, selectable by type', () => {
    assert.equal(secretDefinition.plural, 'secrets');
    assert.equal(secretDefinition.shortNames, undefined);
    assert.equal(secretDefinition.namespaced, true);
    assert.equal(secretDefinition.verbs.length, 8);
    assert.equal(secretDefinition.schema.properties?.data?.additionalProperties?.format, 'byte');
    assert.equal(secretDefinition.fieldSelectors?.type?.(secret({ type: 'kubernetes.io/tls' })), 'kubernetes.io/tls');
  });

  describe('stringData', () => {
    it('is merged into data as base64, overwriting keys, and never kept', () => {
      const s = secret({ data: { a: b64('old'), b: b64('keep') }, stringData: { a: 'new', c: 'ünïcode' } });
      assert.deepEqual(create(s), []);
      assert.equal(s.stringData, undefined);
      assert.deepEqual(s.data, { a: b64('new'), b: b64('keep'), c: b64('ünïcode') });
    });

    it('is merged on update too', () => {
      const old = secret({ type: 'Opaque', data: { a: b64('1') } });
      const s = secret({ data: { a: b64('1') }, stringData: { b: '2' } });
      assert.deepEqual(update(s, old), []);
      assert.deepEqual(s.data, { a: b64('1'), b: b64('2') });
      assert.equal(s.stringData, undefined);
    });

    it('has its keys validated as data keys', () => {
      assert.deepEqual(create(secret({ stringData: { 'a/b': 'x' } })), [
        `data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      ]);
    });
  });

  it('defaults type to Opaque', () => {
    const s = secret();
    create(s);
    assert.equal(s.type, 'Opaque');
  });

  it('limits the decoded size of data to 1 MiB', () => {
    assert.deepEqual(create(secret({ data: { a: Buffer.alloc(1024 * 1024).toString('base64') } })), []);
    assert.deepEqual(create(secret({ data: { a: Buffer.alloc(1024 * 1024).toString('base64'), b: b64('x') } })), [
      'data: Too long: may not be more than 1048576 bytes',
    ]);
  });

  describe('types', () => {
    it('service account tokens need the service account name annotation', () => {
      assert.deepEqual(create(secret({ type: 'kubernetes.io/service-account-token' })), [
        'metadata.annotations[kubernetes.io/service-account.name]: Required value',
      ]);
      const named = secret({ type: 'kubernetes.io/service-account-token' });
      named.metadata.annotations = { 'kubernetes.io/service-account.name': 'default' };
      assert.deepEqual(create(named), []);
    });

    it('docker configs need their key holding a JSON object', () => {
      assert.deepEqual(create(secret({ type: 'kubernetes.io/dockercfg' })), ['data[.dockercfg]: Required value']);
      assert.deepEqual(create(secret({ type: 'kubernetes.io/dockerconfigjson' })), ['data[.dockerconfigjson]: Required value']);
      assert.deepEqual(create(secret({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('{"auths":{}}') } })), []);
      assert.deepEqual(create(secret({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('no') } })), [
        `data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character 'o' in literal null (expecting 'u')`,
      ]);
      assert.deepEqual(create(secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('[]') } })), [
        'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
      ]);
    });

    it('basic auth needs a username or a password', () => {
      assert.deepEqual(create(secret({ type: 'kubernetes.io/basic-auth' })), ['data[username]: Required value', 'data[password]: Required value']);
      assert.deepEqual(create(secret({ type: 'kubernetes.io/basic-auth', data: { password: '' } })), []);
    });

    it('ssh auth needs a non-empty private key', () => {
      assert.deepEqual(create(secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } })), ['data[ssh-privatekey]: Required value']);
      assert.deepEqual(create(secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': b64('k') } })), []);
    });

    it('tls needs both tls.crt and tls.key', () => {
      assert.deepEqual(create(secret({ type: 'kubernetes.io/tls' })), ['data[tls.crt]: Required value', 'data[tls.key]: Required value']);
      assert.deepEqual(create(secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '' } })), ['data[tls.key]: Required value']);
    });

    it('other types have no rules', () => {
      assert.deepEqual(create(secret({ type: 'bootstrap.kubernetes.io/token' })), []);
      assert.deepEqual(create(secret({ type: 'example.com/custom' })), []);
    });
  });

  describe('update', () => {
    it('keeps type immutable', () => {
      assert.deepEqual(update(secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }), secret({ type: 'Opaque' })), [
        'type: Invalid value: "kubernetes.io/tls": field is immutable',
      ]);
    });

    it('treats a missing type as the default Opaque', () => {
      assert.deepEqual(update(secret(), secret({ type: 'Opaque' })), []);
    });

    it('freezes data and the flag of an immutable secret, including data set through stringData', () => {
      const old = secret({ type: 'Opaque', immutable: true, data: { a: b64('1') } });
      assert.deepEqual(update(secret({ immutable: true, data: { a: b64('1') } }), old), []);
      assert.deepEqual(update(secret({ immutable: true, data: { a: b64('1') }, stringData: { a: '2' } }), old), [
        'data: Forbidden: field is immutable when `immutable` is set',
      ]);
      assert.deepEqual(update(secret({ data: { a: b64('1') } }), old), ['immutable: Forbidden: field is immutable when `immutable` is set']);
    });
  });

  describe('warnings', () => {
    it('warn when a TLS secret has a key that does not fit its certificate', async () => {
      const a = await createCA({ commonName: 'a' });
      const b = await createCA({ commonName: 'b' });
      const tls = (cert: string, key: string): Secret => secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64(cert), 'tls.key': b64(key) } });
      assert.deepEqual(strategy.warnings?.(tls(a.certPem, a.keyPem), undefined), []);
      assert.deepEqual(strategy.warnings?.(tls(a.certPem, b.keyPem), undefined), ['tls: private key does not match public key']);
      assert.deepEqual(strategy.warnings?.(secret({ type: 'Opaque' }), undefined), []);
    });
  });
});
