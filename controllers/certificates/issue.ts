/**
 * The certificate csrsigning issues for a request (upstream's CertificateAuthority.Sign under the
 * PermissiveSigningPolicy): the request's subject as Go re-encodes it, its DNS, IP, email and URI
 * names and its public key; key usages from the CSR's usages; never a CA (basicConstraints
 * CA:FALSE, whatever the request's extensions ask, since none of them is copied); a random 128-bit
 * serial number; the validity of signing-policy.ts. PEM as Go's pem.EncodeToMemory writes it.
 */
import { encodePem } from '../../shared/go/pem.ts';
import { signCertificate, type CertificateAuthority } from '../../shared/pki/certificates.ts';
import { goSubject, type CertificateRequest } from './request.ts';
import { certificateDuration, validityWindow, type CertificateUsages } from './signing-policy.ts';

export interface IssueOptions {
  usages: CertificateUsages;
  /** spec.expirationSeconds. */
  expirationSeconds: number | undefined;
  /** --cluster-signing-duration. */
  maxDurationMs: number;
  nowMs: number;
}

/** Signs `req` with `ca`; throws SigningPolicyError when the CA has expired. */
export async function issueCertificate(ca: CertificateAuthority, req: CertificateRequest, opts: IssueOptions): Promise<string> {
  const ttlMs = certificateDuration(opts.maxDurationMs, opts.expirationSeconds);
  const cert = await signCertificate(ca, {
    subject: goSubject(req.subject),
    publicKey: req.publicKey,
    ...validityWindow(opts.nowMs, ttlMs, ca.cert.notAfter),
    isCA: false,
    keyUsages: opts.usages.keyUsages,
    extKeyUsages: opts.usages.extKeyUsages,
    dnsNames: req.dnsNames,
    ipAddresses: req.ipAddresses,
    emailAddresses: req.emailAddresses,
    uris: req.uris,
  });
  return encodePem('CERTIFICATE', cert.rawData);
}
