import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { KubeObject } from '../../shared/api/types.ts';
import { ResourceCache } from '../storage/cache/watch-cache.ts';
import { bootstrapTokenAuthenticator } from './bootstrap-token.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const now = new Date('2026-01-01T00:00:00Z');

function tokenSecret(id: string, secret: string, extra: Record<string, string> = {}, more: Partial<KubeObject> = {}): KubeObject {
  const data: Record<string, string> = { 'token-id': b64(id), 'token-secret': b64(secret), 'usage-bootstrap-authentication': b64('true') };
  for (const [k, v] of Object.entries(extra)) data[k] = b64(v);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    data,
    ...more,
  };
}

function authenticatorOver(...secrets: KubeObject[]) {
  const cache = new ResourceCache('/registry/secrets/');
  cache.reset(
    secrets.map((object) => ({ object, modRevision: 1 })),
    secrets.map((s) => `/registry/secrets/${s.metadata.namespace}/${s.metadata.name}`),
    1,
  );
  return bootstrapTokenAuthenticator(cache, pino({ level: 'silent' }), () => now);
}

describe('bootstrap token authentication', () => {
  it('authenticates a valid token as system:bootstrap:<id> with its groups', () => {
    const auth = authenticatorOver(tokenSecret('abcdef', '0123456789abcdef', { 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token' }));
    assert.deepEqual(auth('abcdef.0123456789abcdef'), {
      username: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token'],
    });
  });

  it('ignores malformed, unknown, wrong, expired, unusable and badly grouped tokens', () => {
    const auth = authenticatorOver(
      tokenSecret('aaaaaa', '0123456789abcdef'),
      tokenSecret('bbbbbb', '0123456789abcdef', { expiration: '2025-12-31T23:59:59Z' }),
      tokenSecret('cccccc', '0123456789abcdef', { expiration: 'tomorrow' }),
      tokenSecret('dddddd', '0123456789abcdef', { 'usage-bootstrap-authentication': 'false' }),
      tokenSecret('eeeeee', '0123456789abcdef', { 'auth-extra-groups': 'system:masters' }),
      tokenSecret('ffffff', '0123456789abcdef', {}, { type: 'Opaque' }),
      tokenSecret(
        'gggggg',
        '0123456789abcdef',
        {},
        { metadata: { name: 'bootstrap-token-gggggg', namespace: 'kube-system', deletionTimestamp: '2026-01-01T00:00:00Z' } },
      ),
      tokenSecret('hhhhhh', '0123456789abcdef', { 'token-id': 'zzzzzz' }),
    );
    assert.equal(auth('aaaaaa.0123456789abcdeX'), null, 'malformed');
    assert.equal(auth('AAAAAA.0123456789abcdef'), null, 'upper case');
    assert.equal(auth('aaaaaa.0123456789abcdee'), null, 'wrong secret');
    assert.equal(auth('zzzzzz.0123456789abcdef'), null, 'unknown id');
    for (const id of ['bbbbbb', 'cccccc', 'dddddd', 'eeeeee', 'ffffff', 'gggggg', 'hhhhhh']) assert.equal(auth(`${id}.0123456789abcdef`), null, id);
    assert.notEqual(auth('aaaaaa.0123456789abcdef'), null, 'the valid one still works');
  });

  it('accepts a token until its expiration', async () => {
    const auth = authenticatorOver(tokenSecret('abcdef', '0123456789abcdef', { expiration: '2026-01-01T00:00:01Z' }));
    assert.equal((await auth('abcdef.0123456789abcdef'))?.username, 'system:bootstrap:abcdef');
  });
});
