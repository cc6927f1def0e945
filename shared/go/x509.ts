/**
 * X.509 as Go's crypto/x509 reads it, with Go's error texts, which upstream returns to clients (a
 * CSR's `spec.request`, a TLS secret's warning). This module is also the one place that loads
 * @peculiar/x509: import the library from here, so that its metadata polyfill and crypto provider
 * are set up before any use.
 *
 * Certificates are parsed by @peculiar/x509; whatever it throws becomes Go's
 * `x509: malformed certificate` here, once. A PKCS#10 request is walked as DER by hand instead, because
 * Go's answer depends on which part is wrong (`asn1: syntax error: data truncated`, a key that does
 * not fit the signature algorithm, `x509: ECDSA verification failure`, ...); ASN.1 errors name the
 * failure but not Go's exact structure dump.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { constants, createPublicKey, verify, webcrypto, type KeyObject } from 'node:crypto';

export { x509 };

// Extension factories (SubjectKeyIdentifierExtension.create, ...) read the library's global provider.
x509.cryptoProvider.set(webcrypto);

/** An error of Go's crypto/x509 or encoding/asn1; `message` is Go's text. */
export class X509Error extends Error {}

/** x509.ParseCertificate: the certificate of DER bytes, or X509Error with Go's message. */
export function parseCertificate(der: Uint8Array): x509.X509Certificate {
  try {
    return new x509.X509Certificate(der);
  } catch {
    throw new X509Error('x509: malformed certificate');
  }
}

/** x509.ParseCertificates: the concatenated DER certificates of `der` (none for no bytes), or X509Error. */
export function parseCertificates(der: Uint8Array): x509.X509Certificate[] {
  const bytes = Buffer.from(der);
  const certificates: x509.X509Certificate[] = [];
  for (let offset = 0; offset < bytes.length;) {
    let element: Der;
    try {
      element = readDer(bytes, offset, SEQUENCE, 'certificate');
    } catch {
      throw new X509Error('x509: malformed certificate');
    }
    certificates.push(parseCertificate(bytes.subarray(offset, element.end)));
    offset = element.end;
  }
  return certificates;
}

// ---- DER, as Go's encoding/asn1 reads it ----

/** A DER element: its tag, where its contents start and where it ends. */
interface Der {
  tag: number;
  contentStart: number;
  end: number;
}

const SEQUENCE = 0x30;
const OID = 0x06;
const BIT_STRING = 0x03;
const INTEGER = 0x02;

function readDer(buf: Buffer, offset: number, expectedTag: number, what: string): Der {
  if (offset + 2 > buf.length) throw new X509Error('asn1: syntax error: data truncated');
  const tag = buf[offset] ?? 0;
  let length = buf[offset + 1] ?? 0;
  let contentStart = offset + 2;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0 || n > 4 || contentStart + n > buf.length) throw new X509Error('asn1: syntax error: data truncated');
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + (buf[contentStart + i] ?? 0);
    contentStart += n;
  }
  const end = contentStart + length;
  if (end > buf.length) throw new X509Error('asn1: syntax error: data truncated');
  if (tag !== expectedTag) throw new X509Error(`asn1: structure error: tags don't match (${expectedTag & 0x1f} vs tag ${tag & 0x1f}) ${what}`);
  return { tag, contentStart, end };
}

function decodeOID(bytes: Buffer): string {
  const arcs: number[] = [];
  let value = 0;
  for (const b of bytes) {
    value = value * 128 + (b & 0x7f);
    if (b & 0x80) continue;
    // The first subidentifier packs the first two arcs as 40 * first + second.
    if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
    else arcs.push(value);
    value = 0;
  }
  return arcs.join('.');
}

/** The first OBJECT IDENTIFIER inside der[start, end), searching constructed elements depth first. */
function firstOID(der: Buffer, start: number, end: number): string | null {
  for (let offset = start; offset < end;) {
    const tag = der[offset] ?? 0;
    const element = readDer(der, offset, tag, 'parameters');
    if (tag === OID) return decodeOID(der.subarray(element.contentStart, element.end));
    if (tag & 0x20) {
      const inner = firstOID(der, element.contentStart, element.end);
      if (inner) return inner;
    }
    offset = element.end;
  }
  return null;
}

// ---- PKCS#10 signatures, as CertificateRequest.CheckSignature verifies them ----

interface SignatureAlgorithm {
  /** Go's name of the key algorithm the signature needs (for mismatch errors). */
  keyAlgorithm: 'RSA' | 'ECDSA' | 'Ed25519';
  keyType: string;
  hash: string | null;
  pss?: boolean;
}

const hashOIDs: Record<string, string> = {
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

const signatureAlgorithms: Record<string, SignatureAlgorithm> = {
  '1.2.840.113549.1.1.5': { keyAlgorithm: 'RSA', keyType: 'rsa', hash: 'sha1' },
  '1.2.840.113549.1.1.11': { keyAlgorithm: 'RSA', keyType: 'rsa', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { keyAlgorithm: 'RSA', keyType: 'rsa', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { keyAlgorithm: 'RSA', keyType: 'rsa', hash: 'sha512' },
  '1.2.840.10045.4.1': { keyAlgorithm: 'ECDSA', keyType: 'ec', hash: 'sha1' },
  '1.2.840.10045.4.3.2': { keyAlgorithm: 'ECDSA', keyType: 'ec', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { keyAlgorithm: 'ECDSA', keyType: 'ec', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { keyAlgorithm: 'ECDSA', keyType: 'ec', hash: 'sha512' },
  '1.3.101.112': { keyAlgorithm: 'Ed25519', keyType: 'ed25519', hash: null },
};

const rsaPSS = '1.2.840.113549.1.1.10';
const goKeyTypes: Record<string, string> = { rsa: '*rsa.PublicKey', ec: '*ecdsa.PublicKey', ed25519: 'ed25519.PublicKey' };

/**
 * x509.ParseCertificateRequest followed by CheckSignature on DER bytes: null when both succeed,
 * else the text of Go's error.
 */
export function certificateRequestError(der: Buffer): string | null {
  try {
    const outer = readDer(der, 0, SEQUENCE, 'certificateRequest');
    if (outer.end !== der.length) return 'asn1: syntax error: trailing data';
    const tbs = readDer(der, outer.contentStart, SEQUENCE, 'tbsCertificateRequest');
    const version = readDer(der, tbs.contentStart, INTEGER, 'version');
    const subject = readDer(der, version.end, SEQUENCE, 'subject');
    const spki = readDer(der, subject.end, SEQUENCE, 'subjectPublicKeyInfo');
    const algorithm = readDer(der, tbs.end, SEQUENCE, 'signatureAlgorithm');
    const oid = readDer(der, algorithm.contentStart, OID, 'algorithm');
    const signature = readDer(der, algorithm.end, BIT_STRING, 'signature');
    const algOID = decodeOID(der.subarray(oid.contentStart, oid.end));
    let alg = signatureAlgorithms[algOID];
    if (algOID === rsaPSS) {
      // Go verifies RSASSA-PSS only with SHA-256/384/512, named first in the parameters.
      const hash = hashOIDs[firstOID(der, oid.end, algorithm.end) ?? ''];
      alg = hash ? { keyAlgorithm: 'RSA', keyType: 'rsa', hash, pss: true } : undefined;
    }
    if (!alg) return 'x509: cannot verify signature: algorithm unimplemented';
    let key: KeyObject;
    try {
      key = createPublicKey({ key: der.subarray(subject.end, spki.end), format: 'der', type: 'spki' });
    } catch {
      return 'x509: cannot verify signature: algorithm unimplemented';
    }
    if (key.asymmetricKeyType !== alg.keyType) {
      const actual = goKeyTypes[key.asymmetricKeyType ?? ''] ?? 'unknown';
      return `x509: signature algorithm specifies an ${alg.keyAlgorithm} public key, but have public key of type ${actual}`;
    }
    const signed = der.subarray(outer.contentStart, tbs.end);
    const sig = der.subarray(signature.contentStart + 1, signature.end);
    const saltLength = alg.hash === 'sha256' ? 32 : alg.hash === 'sha384' ? 48 : 64;
    let ok = false;
    try {
      ok = alg.pss ? verify(alg.hash, signed, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }, sig) : verify(alg.hash, signed, key, sig);
    } catch {
      ok = false;
    }
    if (ok) return null;
    if (alg.keyAlgorithm === 'RSA') return 'crypto/rsa: verification error';
    return `x509: ${alg.keyAlgorithm} verification failure`;
  } catch (err) {
    if (err instanceof X509Error) return err.message;
    throw err;
  }
}
