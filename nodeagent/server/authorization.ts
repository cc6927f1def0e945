/**
 * The node agent's authorizers, by KubeletConfiguration.authorization.mode: `AlwaysAllow`, or
 * `Webhook`, which asks the API server with a SubjectAccessReview as upstream's delegating webhook
 * authorizer does. Reviews are cached by their spec: allowed answers for
 * webhook.cacheAuthorizedTTL, the rest for webhook.cacheUnauthorizedTTL; a failed call is never
 * cached and is an error (the server answers 500), not a denial.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import type { ApiClient } from '../../shared/client/api-client.ts';
import type { Clock } from '../../shared/client/clock.ts';
import type { NodeRequestAttributes } from './request-attributes.ts';
import { TtlCache } from '../../shared/delegated-auth/ttl-cache.ts';

export const subjectAccessReviewPath = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
}

export interface Authorizer {
  /** Rejects when no decision could be had (the review failed). */
  authorize(attributes: NodeRequestAttributes): Promise<AuthorizationResult>;
}

export const alwaysAllow: Authorizer = {
  authorize: async () => ({ decision: 'allow', reason: '' }),
};

interface ReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

interface SubjectAccessReview extends KubeObject {
  status?: ReviewStatus;
}

export interface SubjectAccessReviewAuthorizerOptions {
  api: ApiClient;
  clock: Clock;
  allowedTtlMs: number;
  deniedTtlMs: number;
}

/** The spec of a review, fields in Go's order and empty ones left out (omitempty), so that it also serves as the cache key. */
export function subjectAccessReviewSpec(attributes: NodeRequestAttributes): Record<string, unknown> {
  const nonEmpty = (entries: [string, string][]): Record<string, string> => Object.fromEntries(entries.filter(([, value]) => value !== ''));
  const { user } = attributes;
  return {
    resourceAttributes: nonEmpty([
      ['namespace', attributes.namespace],
      ['verb', attributes.verb],
      ['group', attributes.apiGroup],
      ['version', attributes.apiVersion],
      ['resource', attributes.resource],
      ['subresource', attributes.subresource],
      ['name', attributes.name],
    ]),
    ...(user.username ? { user: user.username } : {}),
    ...(user.groups.length ? { groups: user.groups } : {}),
    ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
    ...(user.uid ? { uid: user.uid } : {}),
  };
}

export class SubjectAccessReviewAuthorizer implements Authorizer {
  private readonly cache: TtlCache<ReviewStatus>;

  constructor(private readonly options: SubjectAccessReviewAuthorizerOptions) {
    this.cache = new TtlCache(options.clock);
  }

  async authorize(attributes: NodeRequestAttributes): Promise<AuthorizationResult> {
    const spec = subjectAccessReviewSpec(attributes);
    const key = JSON.stringify(spec);
    let status = this.cache.get(key);
    if (!status) {
      const review = await this.options.api.create<SubjectAccessReview>(subjectAccessReviewPath, {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        metadata: {},
        spec,
      });
      status = review.status ?? {};
      this.cache.set(key, status, status.allowed ? this.options.allowedTtlMs : this.options.deniedTtlMs);
    }
    const reason = status.reason ?? '';
    if (status.allowed && status.denied) throw new Error('webhook subject access review returned both allow and deny response');
    if (status.denied) return { decision: 'deny', reason };
    if (status.allowed) return { decision: 'allow', reason };
    return { decision: 'noOpinion', reason };
  }
}
