/**
 * Bootstrap token Secrets as the token cleaner and the bootstrap signer read them (upstream's
 * k8s.io/cluster-bootstrap secrets helpers, spec 02 "Bootstrap tokens"): Secrets of type
 * `bootstrap.kubernetes.io/token` in kube-system named `bootstrap-token-<id>`, whose `expiration`
 * is RFC 3339 and whose `usage-bootstrap-signing: "true"` lets them sign cluster-info.
 *
 * Both controllers watch the same selection (kube-system, `type=bootstrap.kubernetes.io/token`),
 * so they share one informer and one cache.
 */
import type { Secret } from '../../apiserver/registry/core/secret.ts';
import {
  bootstrapTokenSecretPrefix,
  bootstrapTokenSecretType,
  expirationOf,
  tokenData,
  tokenIdOfName,
  tokenKeys,
  tokenSecretNamespace,
} from '../../shared/api/bootstrap-token.ts';
import type { ResourceRef } from '../../shared/client/api-client.ts';
import type { ControllerContext } from '../framework/controller.ts';
import type { Informer } from '../../shared/client/informer.ts';

export type { Secret };
export { bootstrapTokenSecretType, expirationOf, tokenData, tokenKeys, tokenSecretNamespace };

export const secretsResource: ResourceRef = { group: '', version: 'v1', resource: 'secrets', namespaced: true };

/** The informer of token Secrets, shared by the token cleaner and the bootstrap signer. */
export function tokenSecretInformer(ctx: Pick<ControllerContext, 'informers'>): Informer<Secret> {
  return ctx.informers.informer<Secret>(secretsResource, { namespace: tokenSecretNamespace, fieldSelector: `type=${bootstrapTokenSecretType}` });
}

export interface SigningToken {
  id: string;
  secret: string;
  /** When it expires (ms since the epoch), if it does. */
  expiresAtMs?: number;
}

/**
 * The token a Secret holds when it may sign cluster-info at `nowMs` (upstream's
 * validateSecretForSigning): a well-formed name whose id matches `token-id`, a `token-secret`, not
 * expired, `usage-bootstrap-signing: "true"`. Otherwise the reason it may not.
 */
export function signingTokenOf(secret: Secret, nowMs: number): SigningToken | { rejected: string } {
  if (secret.type !== bootstrapTokenSecretType) return { rejected: `is not of type ${bootstrapTokenSecretType}` };
  const nameId = tokenIdOfName(secret.metadata.name ?? '');
  if (nameId === undefined) return { rejected: `has an invalid name, must be of the form ${bootstrapTokenSecretPrefix}<secret-id>` };
  const id = tokenData(secret, tokenKeys.id);
  if (!id) return { rejected: `has no key ${tokenKeys.id}` };
  if (id !== nameId) return { rejected: `has token ID ${JSON.stringify(id)}, which does not match its name` };
  const tokenSecret = tokenData(secret, tokenKeys.secret);
  if (!tokenSecret) return { rejected: `has no key ${tokenKeys.secret}` };
  const expiration = expirationOf(secret, nowMs);
  if (expiration.state === 'expired' || expiration.state === 'malformed') return { rejected: 'has expired' };
  if (tokenData(secret, tokenKeys.usageSigning) !== 'true') return { rejected: `is not marked ${tokenKeys.usageSigning}=true` };
  return expiration.state === 'valid' ? { id, secret: tokenSecret, expiresAtMs: nowMs + expiration.remainingMs } : { id, secret: tokenSecret };
}

/**
 * The longest a controller waits on a deadline before looking again: timers beyond 2^31-1 ms fire
 * at once in Node.js, so a token expiring in months is re-checked daily instead.
 */
export const maxRequeueMs = 24 * 60 * 60 * 1000;
