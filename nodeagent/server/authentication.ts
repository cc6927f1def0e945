/**
 * The node agent's request authentication, built from KubeletConfiguration.authentication as
 * upstream's DelegatingAuthenticatorConfig builds it for the kubelet, in its order:
 *
 *   1. a client certificate verified against x509.clientCAFile (when set);
 *   2. a bearer token checked through a cached TokenReview (when webhook.enabled);
 *   3. otherwise, when anonymous.enabled, the anonymous user.
 *
 * The first two form a union: the first to authenticate wins, and `system:authenticated` is added
 * to its user. When neither does and one of them failed (a certificate that does not verify, a
 * token the API server rejects), the request is refused even if anonymous requests are allowed
 * (upstream's NewFailOnError): a client that presented credentials must not silently become
 * anonymous. A request without credentials, or with an Authorization header that is not a bearer
 * token, is anonymous when that is enabled. With neither method configured, anonymous requests are
 * all there is, and with nothing at all the configuration is refused at start.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { authenticateClientCertificate } from './client-certificate.ts';
import type { AuthenticationOutcome, TokenReviewAuthenticator } from '../../shared/delegated-auth/token-review.ts';
import { anonymousUser, withAuthenticatedGroup } from '../../shared/delegated-auth/user.ts';

export interface RequestAuthenticatorOptions {
  /** Client certificates are read when the server verifies them against a client CA. */
  clientCertificates: boolean;
  /** Bearer tokens, when webhook authentication is enabled. */
  tokens: TokenReviewAuthenticator | null;
  anonymous: boolean;
}

export type RequestAuthenticator = (req: IncomingMessage) => Promise<AuthenticationOutcome>;

/** Thrown at start, as upstream refuses a configuration that could authenticate nobody. */
export class AuthenticationConfigError extends Error {}

/** The bearer token of an Authorization header, as upstream's bearertoken authenticator reads it; null when there is none. */
export function bearerToken(header: string | undefined): string | null {
  const auth = (header ?? '').trim();
  if (auth === '') return null;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return null;
  const token = parts[1] ?? '';
  return token === '' ? null : token;
}

export function buildRequestAuthenticator(options: RequestAuthenticatorOptions): RequestAuthenticator {
  const methods: RequestAuthenticator[] = [];
  if (options.clientCertificates) {
    methods.push(async (req) => authenticateClientCertificate(req.socket as TLSSocket) ?? { ok: false });
  }
  const tokens = options.tokens;
  if (tokens) {
    methods.push(async (req) => {
      const token = bearerToken(req.headers.authorization);
      if (token === null) return { ok: false };
      const outcome = await tokens.authenticateToken(token);
      // A token that authenticates nobody is an error, not an absence: the client did present one.
      return outcome.ok || outcome.error !== undefined ? outcome : { ok: false, error: 'invalid bearer token' };
    });
  }
  if (!methods.length) {
    if (!options.anonymous) throw new AuthenticationConfigError('No authentication method configured');
    return async () => ({ ok: true, user: anonymousUser() });
  }
  return async (req) => {
    const errors: string[] = [];
    for (const method of methods) {
      const outcome = await method(req);
      if (outcome.ok) return { ok: true, user: withAuthenticatedGroup(outcome.user) };
      if (outcome.error !== undefined) errors.push(outcome.error);
    }
    if (errors.length) return { ok: false, error: errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]` };
    return options.anonymous ? { ok: true, user: anonymousUser() } : { ok: false };
  };
}
