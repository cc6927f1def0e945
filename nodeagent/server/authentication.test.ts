import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingApiClient, type ApiAction } from '../../shared/client/testing.ts';
import { AuthenticationConfigError, bearerToken, buildRequestAuthenticator } from './authentication.ts';
import { TokenReviewAuthenticator, tokenReviewPath } from '../../shared/delegated-auth/token-review.ts';

function tokens(): TokenReviewAuthenticator {
  const api = new RecordingApiClient();
  api.react((action: ApiAction) => {
    if (action.path !== tokenReviewPath) return undefined;
    const review = action.body as { spec: { token: string } };
    if (review.spec.token === 'good') return { ...review, status: { authenticated: true, user: { username: 'alice', groups: ['devs'] } } };
    if (review.spec.token === 'admin') return { ...review, status: { authenticated: true, user: { username: 'root', groups: ['system:authenticated'] } } };
    return { ...review, status: { authenticated: false } };
  });
  return new TokenReviewAuthenticator({ api, cacheTtlMs: 0, clock: new FakeClock() });
}

const request = (authorization?: string): IncomingMessage => ({ headers: authorization ? { authorization } : {} }) as IncomingMessage;

describe('bearerToken', () => {
  it('reads the header as upstream does', () => {
    assert.equal(bearerToken(undefined), null);
    assert.equal(bearerToken('Bearer abc'), 'abc');
    assert.equal(bearerToken('  bearer abc  '), 'abc');
    assert.equal(bearerToken('Bearer abc def'), 'abc');
    assert.equal(bearerToken('Bearer  abc'), null, 'two spaces leave an empty token');
    assert.equal(bearerToken('Basic YTpi'), null);
    assert.equal(bearerToken('Bearer'), null);
  });
});

describe('buildRequestAuthenticator', () => {
  it('adds system:authenticated to authenticated users, once', async () => {
    const authenticate = buildRequestAuthenticator({ clientCertificates: false, tokens: tokens(), anonymous: false });
    assert.deepEqual(await authenticate(request('Bearer good')), { ok: true, user: { username: 'alice', groups: ['devs', 'system:authenticated'] } });
    assert.deepEqual(await authenticate(request('Bearer admin')), { ok: true, user: { username: 'root', groups: ['system:authenticated'] } });
  });

  it('makes requests without credentials anonymous only when enabled', async () => {
    const closed = buildRequestAuthenticator({ clientCertificates: false, tokens: tokens(), anonymous: false });
    const open = buildRequestAuthenticator({ clientCertificates: false, tokens: tokens(), anonymous: true });
    assert.deepEqual(await closed(request()), { ok: false });
    assert.deepEqual(await open(request()), { ok: true, user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
  });

  it('fails a rejected token even when anonymous requests are enabled', async () => {
    const open = buildRequestAuthenticator({ clientCertificates: false, tokens: tokens(), anonymous: true });
    assert.deepEqual(await open(request('Bearer bad')), { ok: false, error: 'invalid bearer token' });
  });

  it('is anonymous alone without other methods, and refuses to be nothing', async () => {
    const anonymousOnly = buildRequestAuthenticator({ clientCertificates: false, tokens: null, anonymous: true });
    assert.deepEqual(await anonymousOnly(request('Bearer good')), { ok: true, user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
    assert.throws(() => buildRequestAuthenticator({ clientCertificates: false, tokens: null, anonymous: false }), AuthenticationConfigError);
  });
});
