/**
 * PEM certificate data checks with upstream's messages (k8s.io/kubernetes/pkg/apis/certificates/
 * validation): what a certificate request or an issued chain must be. Each returns the text of the
 * error upstream reports, or null; the caller places it in a field error.
 */
import { goQuote } from '../go/format.ts';
import { decodePem, pemBlocks } from '../go/pem.ts';
import { certificateRequestError, parseCertificates, X509Error } from '../go/x509.ts';

/** upstream's validateCSR: the first PEM block must be a CERTIFICATE REQUEST with a valid signature. */
export function certificateRequestPemError(pem: Uint8Array): string | null {
  const block = decodePem(pem).block;
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  return certificateRequestError(block.bytes);
}

/** upstream's validateCertificate: empty, or one or more header-less CERTIFICATE blocks of parseable certificates. */
export function certificateChainPemError(pem: Uint8Array): string | null {
  if (pem.length === 0) return null;
  const blocks = pemBlocks(pem);
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${goQuote(block.type)}`;
    if (block.headers.size > 0) return 'no PEM block headers are permitted';
    let count: number;
    try {
      count = parseCertificates(block.bytes).length;
    } catch (err) {
      if (err instanceof X509Error) return err.message;
      throw err;
    }
    if (count === 0) return 'found CERTIFICATE PEM block containing 0 certificates';
  }
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  return null;
}
