/**
 * What csrsigning writes into a certificate besides the request's subject, names and key
 * (upstream's PermissiveSigningPolicy and signer.duration): the key usages the CSR lists, and a
 * validity window backdated for clock skew and never outliving the CA.
 */
import { goQuote } from '../../shared/go/format.ts';
import { KeyUsage } from '../../shared/pki/certificates.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** notBefore lies this far in the past; less than the shortest validity, so no certificate starts expired. */
export const BACKDATE_MS = 5 * MINUTE_MS;
/** Below this lifetime a certificate is short-lived and its notAfter is not backdated (5 minutes is about 1% of it). */
export const SHORT_MS = 8 * HOUR_MS;
/** The shortest validity granted, whatever spec.expirationSeconds asks (twice the backdate). */
export const MIN_DURATION_MS = 10 * MINUTE_MS;

/** An error of the signing policy; `message` is upstream's. */
export class SigningPolicyError extends Error {}

const keyUsageBits: Readonly<Record<string, number>> = {
  signing: KeyUsage.digitalSignature,
  'digital signature': KeyUsage.digitalSignature,
  'content commitment': KeyUsage.nonRepudiation,
  'key encipherment': KeyUsage.keyEncipherment,
  'key agreement': KeyUsage.keyAgreement,
  'data encipherment': KeyUsage.dataEncipherment,
  'cert sign': KeyUsage.keyCertSign,
  'crl sign': KeyUsage.cRLSign,
  'encipher only': KeyUsage.encipherOnly,
  'decipher only': KeyUsage.decipherOnly,
};

/** Extended key usages in the order of Go's x509.ExtKeyUsage constants, by which upstream sorts them. */
const extKeyUsageOrder: readonly (readonly [oid: string, usages: readonly string[]])[] = [
  ['2.5.29.37.0', ['any']],
  ['1.3.6.1.5.5.7.3.1', ['server auth']],
  ['1.3.6.1.5.5.7.3.2', ['client auth']],
  ['1.3.6.1.5.5.7.3.3', ['code signing']],
  ['1.3.6.1.5.5.7.3.4', ['email protection', 's/mime']],
  ['1.3.6.1.5.5.7.3.5', ['ipsec end system']],
  ['1.3.6.1.5.5.7.3.6', ['ipsec tunnel']],
  ['1.3.6.1.5.5.7.3.7', ['ipsec user']],
  ['1.3.6.1.5.5.7.3.8', ['timestamping']],
  ['1.3.6.1.5.5.7.3.9', ['ocsp signing']],
  ['1.3.6.1.4.1.311.10.3.3', ['microsoft sgc']],
  ['2.16.840.1.113730.4.1', ['netscape sgc']],
];

const knownExtUsages = new Set(extKeyUsageOrder.flatMap(([, usages]) => usages));

export interface CertificateUsages {
  /** KeyUsage bit set; 0 leaves the extension out. */
  keyUsages: number;
  /** Extended key usage OIDs, each once, in Go's order. */
  extKeyUsages: string[];
}

/** keyUsagesFromStrings: the CSR's usages as the certificate's extensions; unknown ones are refused together. */
export function certificateUsages(usages: readonly string[]): CertificateUsages {
  let keyUsages = 0;
  const unrecognized: string[] = [];
  for (const usage of usages) {
    const bit = keyUsageBits[usage];
    if (bit !== undefined) keyUsages |= bit;
    else if (!knownExtUsages.has(usage)) unrecognized.push(usage);
  }
  if (unrecognized.length > 0) throw new SigningPolicyError(`unrecognized usage values: [${unrecognized.map(goQuote).join(' ')}]`);
  const extKeyUsages = extKeyUsageOrder.filter(([, names]) => names.some((n) => usages.includes(n))).map(([oid]) => oid);
  return { keyUsages, extKeyUsages };
}

/** signer.duration: spec.expirationSeconds when it asks for less than --cluster-signing-duration, but at least 10 minutes. */
export function certificateDuration(maxDurationMs: number, expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined) return maxDurationMs;
  const requested = expirationSeconds * 1000;
  if (requested > maxDurationMs) return maxDurationMs;
  return Math.max(requested, MIN_DURATION_MS);
}

/**
 * PermissiveSigningPolicy's window: notBefore = now - backdate; notAfter = now + ttl, less the
 * backdate unless the certificate is short-lived, and no later than the CA's notAfter. An expired
 * CA signs nothing.
 */
export function validityWindow(nowMs: number, ttlMs: number, caNotAfter: Date): { notBefore: Date; notAfter: Date } {
  const notBefore = new Date(nowMs - BACKDATE_MS);
  let notAfter = new Date(ttlMs < SHORT_MS ? nowMs + ttlMs : nowMs + ttlMs - BACKDATE_MS);
  if (notAfter.getTime() >= caNotAfter.getTime()) notAfter = caNotAfter;
  if (notBefore.getTime() >= caNotAfter.getTime()) throw new SigningPolicyError(`the signer has expired: NotAfter=${goTimeString(caNotAfter)}`);
  if (nowMs >= caNotAfter.getTime()) {
    throw new SigningPolicyError(`refusing to sign a certificate that expired in the past: NotAfter=${goTimeString(caNotAfter)}`);
  }
  return { notBefore, notAfter };
}

/** Go's time.Time String() of a UTC time at second precision, as certificates carry them. */
function goTimeString(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}
