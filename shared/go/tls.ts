/**
 * Go's tls.X509KeyPair reduced to the error it returns, worded as Go words it: upstream warns with
 * that text when a kubernetes.io/tls secret's key does not fit its certificate.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { pemBlocks } from './pem.ts';
import { parseCertificate, X509Error } from './x509.ts';

/** tls.parsePrivateKey: PKCS#1, then PKCS#8, then SEC 1; null where Go fails. */
function parsePrivateKey(der: Buffer): KeyObject | null {
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch {
      // Go tries the next encoding too.
    }
  }
  return null;
}

const spki = (key: KeyObject): Buffer => key.export({ type: 'spki', format: 'der' });

/** The error of tls.X509KeyPair(certPem, keyPem), or null when the pair loads. */
export function x509KeyPairError(certPem: Uint8Array, keyPem: Uint8Array): string | null {
  const certBlocks = pemBlocks(certPem);
  const certs = certBlocks.filter((b) => b.type === 'CERTIFICATE');
  const first = certs[0];
  if (!first) {
    const skipped = certBlocks.map((b) => b.type);
    if (!skipped.length) return 'tls: failed to find any PEM data in certificate input';
    if (skipped.length === 1 && skipped[0]?.endsWith('PRIVATE KEY')) {
      return 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched';
    }
    return `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [${skipped.join(' ')}]`;
  }
  const keyBlocks = pemBlocks(keyPem);
  const keyBlock = keyBlocks.find((b) => b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY'));
  if (!keyBlock) {
    const skipped = keyBlocks.map((b) => b.type);
    if (!skipped.length) return 'tls: failed to find any PEM data in key input';
    if (skipped.length === 1 && skipped[0] === 'CERTIFICATE') return 'tls: found a certificate rather than a key in the PEM for the private key';
    return `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [${skipped.join(' ')}]`;
  }
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: Buffer.from(parseCertificate(first.bytes).publicKey.rawData), format: 'der', type: 'spki' });
  } catch (err) {
    if (err instanceof X509Error) return err.message;
    // A public key node:crypto cannot load cannot be compared; such a certificate counts as malformed.
    return 'x509: malformed certificate';
  }
  const privateKey = parsePrivateKey(keyBlock.bytes);
  if (!privateKey) return 'tls: failed to parse private key';
  if (publicKey.asymmetricKeyType !== privateKey.asymmetricKeyType) return 'tls: private key type does not match public key type';
  if (!spki(createPublicKey(privateKey)).equals(spki(publicKey))) return 'tls: private key does not match public key';
  return null;
}
