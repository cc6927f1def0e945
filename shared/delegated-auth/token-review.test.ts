import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../api/errors.ts';
import { FakeClock } from '../client/clock.ts';
import { RecordingApiClient, type ApiAction } from '../client/testing.ts';
import { TokenReviewAuthenticator, tokenReviewPath } from './token-review.ts';

const minute = 60_000;

/** Answers reviews of `good` as user alice, of `broken` with status.error, of anything else as not authenticated. */
function reviewer(): RecordingApiClient {
  const api = new RecordingApiClient();
  api.react((action: ApiAction) => {
    if (action.verb !== 'create' || action.path !== tokenReviewPath) return undefined;
    const review = action.body as { spec: { token: string } };
    if (review.spec.token === 'good') {
      return { ...review, status: { authenticated: true, user: { username: 'alice', uid: 'u1', groups: ['devs'], extra: { scope: ['x'] } } } };
    }
    if (review.spec.token === 'broken') return { ...review, status: { authenticated: false, error: 'token lookup failed' } };
    return { ...review, status: { authenticated: false } };
  });
  return api;
}

describe('TokenReviewAuthenticator', () => {
  it('posts a TokenReview without audiences and returns its user', async () => {
    const api = reviewer();
    const authn = new TokenReviewAuthenticator({ api, cacheTtlMs: 2 * minute, clock: new FakeClock() });
    assert.deepEqual(await authn.authenticateToken('good'), {
      ok: true,
      user: { username: 'alice', uid: 'u1', groups: ['devs'], extra: { scope: ['x'] } },
    });
    assert.deepEqual(api.actions[0]?.body, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token: 'good' } });
  });

  it('sends configured audiences', async () => {
    const api = reviewer();
    await new TokenReviewAuthenticator({ api, cacheTtlMs: 0, clock: new FakeClock(), audiences: ['a'] }).authenticateToken('good');
    assert.deepEqual((api.actions[0]?.body as { spec: unknown }).spec, { token: 'good', audiences: ['a'] });
  });

  it('caches authenticated and unauthenticated answers for cacheTTL', async () => {
    const api = reviewer();
    const clock = new FakeClock();
    const authn = new TokenReviewAuthenticator({ api, cacheTtlMs: 2 * minute, clock });
    await authn.authenticateToken('good');
    assert.deepEqual(await authn.authenticateToken('bad'), { ok: false });
    clock.step(2 * minute - 1);
    await authn.authenticateToken('good');
    await authn.authenticateToken('bad');
    assert.equal(api.actions.length, 2);
    clock.step(1);
    await authn.authenticateToken('good');
    await authn.authenticateToken('bad');
    assert.equal(api.actions.length, 4);
  });

  it('never caches errors', async () => {
    const api = reviewer();
    const authn = new TokenReviewAuthenticator({ api, cacheTtlMs: 2 * minute, clock: new FakeClock() });
    assert.deepEqual(await authn.authenticateToken('broken'), { ok: false, error: 'token lookup failed' });
    await authn.authenticateToken('broken');
    assert.equal(api.actions.length, 2);

    const failing = new RecordingApiClient();
    failing.react(() => {
      throw new StatusError({ code: 503, reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request' });
    });
    const outage = new TokenReviewAuthenticator({ api: failing, cacheTtlMs: 2 * minute, clock: new FakeClock() });
    assert.deepEqual(await outage.authenticateToken('good'), { ok: false, error: 'the server is currently unable to handle the request' });
    await outage.authenticateToken('good');
    assert.equal(failing.actions.length, 2);
  });

  it('does not cache with a TTL of 0', async () => {
    const api = reviewer();
    const authn = new TokenReviewAuthenticator({ api, cacheTtlMs: 0, clock: new FakeClock() });
    await authn.authenticateToken('good');
    await authn.authenticateToken('good');
    assert.equal(api.actions.length, 2);
  });
});
