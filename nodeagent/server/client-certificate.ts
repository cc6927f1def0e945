/**
 * Client certificates as upstream's x509 request authenticator reads them
 * (CommonNameUserConversion): the user is the leaf's CommonName, its groups the Organizations.
 *
 * The TLS layer does the verifying: the server asks for a certificate (not requiring one) and checks
 * any it gets against authentication.x509.clientCAFile, the chain, validity and the client-auth
 * purpose, and records the verdict on the socket instead of failing the handshake, as Go's
 * RequestClientCert does. A certificate that did not verify is an error (so the request is refused
 * even where anonymous requests are allowed, unless a bearer token authenticates it); a verified
 * one without a CommonName authenticates nobody, without error.
 */
import type { TLSSocket } from 'node:tls';
import { parseCertificate } from '../../shared/go/x509.ts';
import type { AuthenticationOutcome } from '../../shared/delegated-auth/token-review.ts';

/** The outcome for the connection's client certificate, or null when the client sent none. */
export function authenticateClientCertificate(socket: TLSSocket): AuthenticationOutcome | null {
  const peer = socket.getPeerCertificate();
  if (!peer || !peer.raw) return null;
  if (!socket.authorized) {
    const reason = socket.authorizationError instanceof Error ? socket.authorizationError.message : String(socket.authorizationError);
    return { ok: false, error: `verifying certificate failed: ${reason}` };
  }
  const subject = parseCertificate(peer.raw).subjectName;
  // Go's pkix.Name keeps the last CommonName of the subject and every Organization.
  const commonName = subject.getField('CN').at(-1) ?? '';
  if (!commonName) return { ok: false };
  return { ok: true, user: { username: commonName, groups: subject.getField('O') } };
}
