/**
 * Bearer tokens checked by the API server: a TokenReview per unknown token, as upstream's
 * delegating webhook token authenticator makes it (authentication.k8s.io/v1, no audiences unless
 * configured, the kubelet configures none), behind a cache keyed by a digest of the token. The
 * node agent's server and the controller manager's endpoint authenticate with it.
 *
 * As upstream's cached token authenticator (cacheErrs off): an authenticated answer and a plain
 * "not authenticated" are both kept for `cacheTTL` (the kubelet's authentication.webhook.cacheTTL, kube-controller-manager's
 * --authentication-token-webhook-cache-ttl), so a client
 * retrying a bad token does not cost a review each time; an error (the API call failed, or the
 * review carried `status.error`) is never kept, so a passing outage heals on the next request.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../api/types.ts';
import type { ApiClient } from '../client/api-client.ts';
import type { Clock } from '../client/clock.ts';
import { TtlCache } from './ttl-cache.ts';
import type { UserInfo } from './user.ts';

export const tokenReviewPath = '/apis/authentication.k8s.io/v1/tokenreviews';

/** An authenticator's answer: a user, or none, with an error when the credential was present but failed. */
export type AuthenticationOutcome = { ok: true; user: UserInfo } | { ok: false; error?: string };

interface TokenReview extends KubeObject {
  status?: { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }; error?: string };
}

export interface TokenReviewAuthenticatorOptions {
  api: ApiClient;
  cacheTtlMs: number;
  clock: Clock;
  /** spec.audiences of each review; upstream's kubelet sends none. */
  audiences?: string[];
}

export class TokenReviewAuthenticator {
  private readonly cache: TtlCache<AuthenticationOutcome>;

  constructor(private readonly options: TokenReviewAuthenticatorOptions) {
    this.cache = new TtlCache(options.clock);
  }

  async authenticateToken(token: string): Promise<AuthenticationOutcome> {
    const key = createHash('sha256').update(token).digest('base64');
    const cached = this.cache.get(key);
    if (cached) return cached;
    const outcome = await this.review(token);
    if (outcome.ok || outcome.error === undefined) this.cache.set(key, outcome, this.options.cacheTtlMs);
    return outcome;
  }

  private async review(token: string): Promise<AuthenticationOutcome> {
    const audiences = this.options.audiences ?? [];
    let review: TokenReview;
    try {
      review = await this.options.api.create<TokenReview>(tokenReviewPath, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        metadata: {},
        spec: { token, ...(audiences.length ? { audiences } : {}) },
      });
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    const status = review.status ?? {};
    if (!status.authenticated) return status.error ? { ok: false, error: status.error } : { ok: false };
    const user = status.user ?? {};
    return {
      ok: true,
      user: {
        username: user.username ?? '',
        ...(user.uid ? { uid: user.uid } : {}),
        groups: [...(user.groups ?? [])],
        ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
      },
    };
  }
}
