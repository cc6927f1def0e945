/**
 * TokenReview (authentication.k8s.io/v1): asks the server's token authentication who a bearer token
 * belongs to, for webhooks and proxies that accept the cluster's tokens. Create-only.
 *
 * corral has no audience-bound tokens and no API audiences of its own, so a review naming
 * audiences finds no token valid for them, as upstream does when the audiences the token suits and
 * the ones asked for do not meet. Only a token authenticates: anonymous access is never an answer.
 */
import { badRequest } from '../../../shared/api/errors.ts';
import { atomicArray, boolean, describe, kindSchema, named, object, pb, string } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { noCredentialsReason, type Authenticator } from '../../auth/authenticate.ts';
import { defineResource } from '../definition.ts';
import { authenticationGroup, userInfo, userInfoOf, type UserInfo } from './schema.ts';

export interface TokenReview extends KubeObject {
  spec?: { token?: string; audiences?: string[] };
  status?: { authenticated?: boolean; user: UserInfo; audiences?: string[]; error?: string };
}

/** Upstream's bearer token authenticator's error for a token no authenticator accepts. */
const invalidToken = 'invalid bearer token';

const tokenReviewSpec = () =>
  named(
    'io.k8s.api.authentication.v1.TokenReviewSpec',
    'The token to authenticate and whom it is meant for.',
    object({
      token: pb(1, string('The opaque bearer token.')),
      audiences: pb(2, describe(atomicArray(string()), "Audiences the token must be meant for, at least one; empty means the API server's own.")),
    }),
  );

const tokenReviewStatus = () =>
  named(
    'io.k8s.api.authentication.v1.TokenReviewStatus',
    'Whether the token authenticates, and as whom.',
    object({
      authenticated: pb(1, boolean('True when the token belongs to a known user.')),
      user: pb(2, describe(userInfo(), 'The user the token belongs to.')),
      audiences: pb(4, describe(atomicArray(string()), 'Audiences, among those asked for, the token is meant for.')),
      error: pb(3, string('Why the token could not be checked.')),
    }),
  );

export function tokenReviewDefinition(authenticator: Authenticator) {
  return defineResource<TokenReview>({
    group: authenticationGroup,
    version: 'v1',
    kind: 'TokenReview',
    plural: 'tokenreviews',
    singular: 'tokenreview',
    namespaced: false,
    verbs: ['create'],
    schema: describe(
      kindSchema(
        {
          spec: pb(2, describe(tokenReviewSpec(), 'The token to authenticate.')),
          status: pb(3, describe(tokenReviewStatus(), 'The answer, filled in by the server.')),
        },
        ['spec'],
      ),
      'Asks who a bearer token belongs to.',
    ),
    // Upstream validates nothing; an empty token is a 400 from create.
    strategy: { validate: () => [] },
    review: {
      async create(review) {
        const token = review.spec?.token ?? '';
        if (!token) throw badRequest('token is required for TokenReview in authentication');
        if (review.spec?.audiences?.length) return { ...review, status: { user: {}, error: invalidToken } };
        const result = await authenticator.authenticate({ authorization: `Bearer ${token}` });
        if (result.user && result.method === 'token') return { ...review, status: { authenticated: true, user: userInfoOf(result.user) } };
        const error = result.user || result.reason === noCredentialsReason ? '' : result.reason;
        return { ...review, status: { user: {}, ...(error ? { error } : {}) } };
      },
    },
  });
}
