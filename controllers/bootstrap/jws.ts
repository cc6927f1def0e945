/**
 * The detached JWS that signs cluster-info (RFC 7515 appendix F: a compact JWS with its payload
 * left out, `<header>..<signature>`), byte for byte as upstream's
 * k8s.io/cluster-bootstrap/token/jws computes it through go-jose: the protected header is
 * `{"alg":"HS256","kid":"<token id>"}` (go-jose writes its keys sorted), the signing input is
 * `base64url(header) + "." + base64url(content)` without padding, the signature HMAC-SHA256.
 *
 * The key. The spec's recipe (02 "Bootstrap tokens", like the upstream documentation) verifies
 * with the full token `<id>.<secret>` as the shared secret, and corral follows the spec. Upstream's
 * code signs with the token secret alone (zero-padded to 32 bytes, which HMAC's own zero padding
 * makes no difference), and `kubeadm join` verifies that way; `signingKey` is the one place that
 * decides.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The HMAC key of a token's signatures: the full token, as the spec's verification recipe has it. */
export function signingKey(tokenId: string, tokenSecret: string): string {
  return `${tokenId}.${tokenSecret}`;
}

const base64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** The detached JWS of `content` under `key`, with `kid` = `tokenId`. */
export function computeDetachedSignature(content: string, tokenId: string, key: string): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const signature = createHmac('sha256', key)
    .update(`${header}.${base64url(content)}`)
    .digest('base64url');
  return `${header}..${signature}`;
}

/** Whether `detached` is exactly the signature `computeDetachedSignature` makes (compared in constant time). */
export function detachedSignatureIsValid(detached: string, content: string, tokenId: string, key: string): boolean {
  const expected = Buffer.from(computeDetachedSignature(content, tokenId, key));
  const given = Buffer.from(detached);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
