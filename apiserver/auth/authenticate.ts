/**
 * Request authentication, in upstream's order (pkg/kubeapiserver/authenticator):
 *
 * 1. x509: a client certificate that the TLS layer verified against the cluster CA names the user (CN)
 *    and groups (O). A presented certificate that failed verification is an error, not a pass.
 * 2. Bearer token (`Authorization: Bearer <token>`): the token authenticators in order (static token
 *    file first, then e.g. bootstrap tokens); the first that knows the token wins. A token that none
 *    knows is an error ("invalid bearer token").
 * 3. The first success wins and errors of the others are dropped; the user gets `system:authenticated`.
 * 4. Errors without any success reject the request (401), even when anonymous access is on: a bad token
 *    or certificate is never treated as anonymous.
 * 5. No credentials: `system:anonymous` in `system:unauthenticated` when anonymous access is on,
 *    otherwise rejected.
 */
import type { TLSSocket } from 'node:tls';
import { EXT_KEY_USAGE } from '../../shared/pki/certificates.ts';
import type { UserInfo } from '../registry/definition.ts';

export const ANONYMOUS_USER = 'system:anonymous';
/** The reason of a failed authentication that found no credential at all (TokenReview shows no error then). */
export const noCredentialsReason = 'no credentials';
/** Service accounts authenticate as `system:serviceaccount:<namespace>:<name>`. */
export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';

/** The namespace and name of a service account's user name, or undefined for any other user. */
export function serviceAccountOf(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) return undefined;
  const [namespace, name, ...rest] = username.slice(SERVICE_ACCOUNT_USER_PREFIX.length).split(':');
  return namespace && name && rest.length === 0 ? { namespace, name } : undefined;
}
export const ALL_AUTHENTICATED_GROUP = 'system:authenticated';
export const ALL_UNAUTHENTICATED_GROUP = 'system:unauthenticated';

/** Warning header text for `Authorization: Bearer  <token>` (two spaces), which upstream ignores. */
export const EXTRA_SPACE_TOKEN_WARNING = 'the provided Authorization header contains extra space before the bearer token, and is ignored';

/** The client certificate of a TLS connection, as far as authentication needs it. */
export interface ClientCertificate {
  /** The TLS layer verified the chain against the client CA (tls.TLSSocket#authorized). */
  verified: boolean;
  /** Why verification failed (tls.TLSSocket#authorizationError). */
  verificationError?: string;
  /** Subject CN; the last one when there are several, as Go reads it. */
  commonName: string;
  /** Subject O values, in order. */
  organizations: string[];
  /** Extended key usage OIDs; undefined when the certificate has no such extension (any use allowed). */
  extKeyUsages?: string[];
}

/** What authentication reads from a request. */
export interface AuthenticationRequest {
  clientCertificate?: ClientCertificate;
  /** The raw `Authorization` header. */
  authorization?: string;
}

/** Maps a bearer token to its user, or null when the token is not one of its own. May throw. */
export type TokenAuthenticator = (token: string) => UserInfo | null | Promise<UserInfo | null>;

export type AuthenticationResult =
  | { user: UserInfo; method: 'x509' | 'token' | 'anonymous'; warnings: string[] }
  /** Respond 401; `reason` is for logs only, never for the client. */
  | { user: null; reason: string; warnings: string[] };

export interface Authenticator {
  authenticate(req: AuthenticationRequest): Promise<AuthenticationResult>;
}

export interface AuthenticatorOptions {
  /** Static tokens (--token-auth-file); consulted before `tokenAuthenticators`. */
  tokens?: Map<string, UserInfo>;
  /** Further token authenticators, in order (bootstrap tokens, service account tokens, ...). */
  tokenAuthenticators?: TokenAuthenticator[];
  anonymous: boolean;
}

/** A token authenticator over a fixed map. */
export function staticTokenAuthenticator(tokens: Map<string, UserInfo>): TokenAuthenticator {
  return (token) => tokens.get(token) ?? null;
}

export function createAuthenticator(opts: AuthenticatorOptions): Authenticator {
  const tokenAuthenticators = [...(opts.tokens ? [staticTokenAuthenticator(opts.tokens)] : []), ...(opts.tokenAuthenticators ?? [])];

  return {
    async authenticate(req) {
      const warnings: string[] = [];
      const errors: string[] = [];

      const cert = authenticateCertificate(req.clientCertificate);
      if (cert.user) return { user: withAuthenticatedGroup(cert.user), method: 'x509', warnings };
      if (cert.error) errors.push(cert.error);

      // A bearer token is always checked, even with no token authenticator: an unknown token is
      // an error, never an anonymous request.
      const bearer = bearerToken(req.authorization);
      if (bearer.warning) warnings.push(bearer.warning);
      if (bearer.token !== undefined) {
        const token = await authenticateToken(tokenAuthenticators, bearer.token);
        if (token.user) return { user: withAuthenticatedGroup(token.user), method: 'token', warnings };
        errors.push(token.error);
      }

      if (errors.length > 0) return { user: null, reason: errors.join('; '), warnings };
      if (opts.anonymous) return { user: { username: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED_GROUP] }, method: 'anonymous', warnings };
      return { user: null, reason: noCredentialsReason, warnings };
    },
  };
}

/** Per connection: the certificate never changes, and HTTP/2 carries many requests on one. */
const certificates = new WeakMap<object, ClientCertificate | null>();

/** Reads the peer certificate of a TLS socket (once per connection); undefined when the client sent none. */
export function clientCertificateOf(socket: Pick<TLSSocket, 'authorized' | 'authorizationError' | 'getPeerCertificate'>): ClientCertificate | undefined {
  const known = certificates.get(socket);
  if (known !== undefined) return known ?? undefined;
  const cert = readClientCertificate(socket);
  certificates.set(socket, cert ?? null);
  return cert;
}

function readClientCertificate(socket: Pick<TLSSocket, 'authorized' | 'authorizationError' | 'getPeerCertificate'>): ClientCertificate | undefined {
  const peer = socket.getPeerCertificate(false) as unknown as {
    raw?: Buffer;
    subject?: Record<string, string | string[] | undefined>;
    ext_key_usage?: string[];
  } | null;
  // Without a client certificate node returns an empty object.
  if (!peer || !peer.raw) return undefined;
  const cn = valuesOf(peer.subject?.['CN']);
  const cert: ClientCertificate = {
    verified: socket.authorized,
    commonName: cn[cn.length - 1] ?? '',
    organizations: valuesOf(peer.subject?.['O']),
  };
  if (peer.ext_key_usage) cert.extKeyUsages = peer.ext_key_usage;
  if (!socket.authorized && socket.authorizationError) cert.verificationError = String(socket.authorizationError);
  return cert;
}

function valuesOf(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Upstream's x509 authenticator with CommonNameUserConversion. */
function authenticateCertificate(cert: ClientCertificate | undefined): { user?: UserInfo; error?: string } {
  if (!cert) return {};
  if (!cert.verified) return { error: `verifying certificate failed: ${cert.verificationError ?? 'not verified'}` };
  // Node's TLS layer checks the chain but not the purpose; a client certificate must allow client auth.
  if (cert.extKeyUsages && !cert.extKeyUsages.some((oid) => oid === EXT_KEY_USAGE.clientAuth || oid === EXT_KEY_USAGE.any)) {
    return { error: 'verifying certificate failed: x509: certificate specifies an incompatible key usage' };
  }
  if (cert.commonName === '') return {};
  return { user: { username: cert.commonName, groups: [...cert.organizations] } };
}

/**
 * Upstream's bearer token extraction: the header, trimmed, split on single spaces; the first part must be
 * `bearer` in any case and the second the token. An empty second part (two spaces) is ignored with a
 * warning; anything after the token is ignored.
 */
function bearerToken(header: string | undefined): { token?: string; warning?: string } {
  const value = (header ?? '').trim();
  if (value === '') return {};
  const parts = value.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return {};
  const token = parts[1]!;
  if (token === '') return parts.length >= 3 ? { warning: EXTRA_SPACE_TOKEN_WARNING } : {};
  return { token };
}

/** Upstream's token union: the first authenticator that knows the token wins; errors only matter if none does. */
async function authenticateToken(
  authenticators: TokenAuthenticator[],
  token: string,
): Promise<{ user: UserInfo; error?: undefined } | { user?: undefined; error: string }> {
  const errors: string[] = [];
  for (const authenticate of authenticators) {
    try {
      const user = await authenticate(token);
      if (user) return { user };
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    }
  }
  return { error: errors.length > 0 ? errors.join('; ') : 'invalid bearer token' };
}

/** Upstream's AuthenticatedGroupAdder: adds `system:authenticated` unless anonymous or already grouped. */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  const groups = [...user.groups];
  const grouped = user.username === ANONYMOUS_USER || groups.some((g) => g === ALL_AUTHENTICATED_GROUP || g === ALL_UNAUTHENTICATED_GROUP);
  if (!grouped) groups.push(ALL_AUTHENTICATED_GROUP);
  // A copy: authenticators may hand out shared objects (the token map).
  return { ...user, groups };
}
