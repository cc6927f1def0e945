/**
 * Bootstrap token authentication (upstream's bootstrap token authenticator, spec 02 "Bootstrap
 * tokens"): the bearer token `<id>.<secret>` names the Secret `bootstrap-token-<id>` in kube-system
 * of type `bootstrap.kubernetes.io/token`, and authenticates as `system:bootstrap:<id>` in
 * `system:bootstrappers` plus the token's valid `auth-extra-groups` when:
 *
 * - the Secret's `token-id` and `token-secret` match (compared in constant time);
 * - it is not being deleted, not expired (`expiration`, RFC 3339; unparsable counts as expired);
 * - it has `usage-bootstrap-authentication: "true"`;
 * - every extra group matches `system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]`.
 *
 * Anything else means "not a token of mine" (the request then fails as an invalid bearer token,
 * 401); why is logged, never told to the client. Secrets are read from the watch cache: no etcd
 * read per request.
 */
import { bootstrapTokenSecretPrefix, bootstrapTokenSecretType, expirationOf, tokenData, tokenKeys } from '../../shared/api/bootstrap-token.ts';
import { timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeObject } from '../../shared/api/types.ts';
import type { UserInfo } from '../registry/definition.ts';
import type { ResourceCache } from '../storage/cache/watch-cache.ts';
import type { TokenAuthenticator } from './authenticate.ts';

export const bootstrapUserPrefix = 'system:bootstrap:';
export const bootstrapDefaultGroup = 'system:bootstrappers';
const tokenPattern = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const extraGroupPattern = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when the token has expired at `now` (an unparsable expiration counts as expired, as upstream). */
export function bootstrapTokenExpired(secret: KubeObject, now: Date): boolean {
  const state = expirationOf(secret, now.getTime()).state;
  return state === 'expired' || state === 'malformed';
}

/** The token's groups, deduplicated and sorted, or an error for an invalid extra group. */
function groupsOf(secret: KubeObject): string[] | Error {
  const groups = new Set([bootstrapDefaultGroup]);
  const extra = tokenData(secret, tokenKeys.authExtraGroups);
  if (extra) {
    for (const group of extra.split(',')) {
      if (!extraGroupPattern.test(group)) return new Error(`${JSON.stringify(group)} is not a valid bootstrap group name`);
      groups.add(group);
    }
  }
  return [...groups].sort();
}

/** `secrets`: the watch cache of Secrets (keys `<prefix>kube-system/<name>`). */
export function bootstrapTokenAuthenticator(secrets: ResourceCache, logger: Logger, now: () => Date = () => new Date()): TokenAuthenticator {
  return (token: string): UserInfo | null => {
    const parsed = tokenPattern.exec(token);
    if (!parsed) return null;
    const [, id = '', secretPart = ''] = parsed;
    const name = bootstrapTokenSecretPrefix + id;
    const secret = secrets.get(`${secrets.prefix}kube-system/${name}`)?.object;
    const reject = (why: string): null => {
      logger.debug({ secret: `kube-system/${name}` }, `bootstrap token secret ${why}`);
      return null;
    };
    if (!secret) return reject('not found');
    if (secret.metadata.deletionTimestamp) return reject('is deleted and awaiting removal');
    if (secret.type !== bootstrapTokenSecretType || !secret.data) return reject(`has invalid type, expected ${bootstrapTokenSecretType}`);
    if (!sameSecret(tokenData(secret, tokenKeys.secret), secretPart)) return reject('has invalid value for key token-secret');
    if (tokenData(secret, tokenKeys.id) !== id) return reject('has invalid value for key token-id');
    if (bootstrapTokenExpired(secret, now())) return reject('has expired');
    if (tokenData(secret, 'usage-bootstrap-authentication') !== 'true') return reject('not marked usage-bootstrap-authentication=true');
    const groups = groupsOf(secret);
    if (groups instanceof Error) return reject(`has invalid value for key auth-extra-groups: ${groups.message}`);
    return { username: bootstrapUserPrefix + id, groups };
  };
}
