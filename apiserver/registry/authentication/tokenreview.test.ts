import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../../../shared/api/errors.ts';
import { createAuthenticator } from '../../auth/authenticate.ts';
import type { RequestContext } from '../definition.ts';
import { tokenReviewDefinition, type TokenReview } from './tokenreview.ts';

const ctx: RequestContext = { user: { username: 'admin', groups: ['system:masters'] }, now: new Date('2024-05-06T07:08:09Z') };
const tokens = new Map([['alice-token', { username: 'alice', uid: 'uid-alice', groups: ['devs'] }]]);
const review = (spec: TokenReview['spec']): TokenReview => ({ kind: 'TokenReview', metadata: {}, ...(spec ? { spec } : {}) });
const answer = async (spec: TokenReview['spec'], anonymous = false) =>
  (await tokenReviewDefinition(createAuthenticator({ tokens, anonymous })).review!.create(review(spec), ctx, '')).status;

describe('TokenReview', () => {
  it('names the user a known token belongs to, with system:authenticated', async () => {
    assert.deepEqual(await answer({ token: 'alice-token' }), {
      authenticated: true,
      user: { username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'] },
    });
  });

  it('does not authenticate an unknown token, even with anonymous access on', async () => {
    assert.deepEqual(await answer({ token: 'nobody' }, true), { user: {}, error: 'invalid bearer token' });
  });

  it('never answers anonymous for a blank token, and reports no error for it', async () => {
    assert.deepEqual(await answer({ token: ' ' }, true), { user: {} });
  });

  it('finds no token meant for named audiences: corral has none', async () => {
    assert.deepEqual(await answer({ token: 'alice-token', audiences: ['vault'] }), { user: {}, error: 'invalid bearer token' });
  });

  it('refuses an empty token with 400', async () => {
    await assert.rejects(
      answer({}),
      (err: unknown) => isStatusError(err, 'BadRequest') && err.status.message === 'token is required for TokenReview in authentication',
    );
  });
});
