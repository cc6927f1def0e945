/**
 * A CSR's PKCS#10 request as Go's x509.CertificateRequest presents it to upstream's controllers:
 * the subject's fields (pkix.Name), the subjectAltNames of the extension request, and the public
 * key. Upstream's rules are written against that view (`Subject.Organization`, `DNSNames`, ...),
 * so they are checked against the same view here.
 *
 * Parsing is upstream's ParseCSR (the first PEM block must be a CERTIFICATE REQUEST) followed by
 * the signature check the signer's authority makes before signing; either failure is a
 * CSRParseError carrying Go's message.
 */
import { createPublicKey } from 'node:crypto';
import { decodePem } from '../../shared/go/pem.ts';
import { certificateRequestError, x509 } from '../../shared/go/x509.ts';
import { canonicalIP } from '../../shared/pki/certificates.ts';

/** pkix.Name: the attributes Go's FillFromRDNSequence keeps, in its field order. */
export interface GoName {
  country: string[];
  province: string[];
  locality: string[];
  streetAddress: string[];
  postalCode: string[];
  organization: string[];
  organizationalUnit: string[];
  /** The last CN attribute, as Go keeps it; '' when there is none. */
  commonName: string;
  serialNumber: string;
}

export type PublicKeyAlgorithm = 'RSA' | 'ECDSA' | 'Ed25519' | 'Unknown';

export interface CertificateRequest {
  subject: GoName;
  dnsNames: string[];
  emailAddresses: string[];
  /** Canonical text (IPv6 compressed, lower case). */
  ipAddresses: string[];
  uris: string[];
  /** DER SubjectPublicKeyInfo. */
  publicKey: Uint8Array;
  publicKeyAlgorithm: PublicKeyAlgorithm;
}

/** The request could not be read or its signature does not verify; `message` is Go's text. */
export class CSRParseError extends Error {}

const pemBlockTypeMessage = 'PEM block type must be CERTIFICATE REQUEST';

/** Attribute OIDs of the pkix.Name fields. */
const oid = {
  country: '2.5.4.6',
  province: '2.5.4.8',
  locality: '2.5.4.7',
  streetAddress: '2.5.4.9',
  postalCode: '2.5.4.17',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  commonName: '2.5.4.3',
  serialNumber: '2.5.4.5',
} as const;

const subjectAltNameOID = '2.5.29.17';

const keyAlgorithms: Record<string, PublicKeyAlgorithm> = { rsa: 'RSA', ec: 'ECDSA', ed25519: 'Ed25519' };

/** upstream's ParseCSR of `spec.request` (base64 of PEM on the wire), plus the signature check. */
export function parseCertificateRequest(requestBase64: string | undefined): CertificateRequest {
  const block = decodePem(Buffer.from(requestBase64 ?? '', 'base64')).block;
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new CSRParseError(pemBlockTypeMessage);
  const problem = certificateRequestError(block.bytes);
  if (problem !== null) throw new CSRParseError(problem);
  let request: x509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(block.bytes);
  } catch (err) {
    throw new CSRParseError(`x509: malformed certificate request: ${err instanceof Error ? err.message : String(err)}`);
  }
  const name = request.subjectName;
  const last = (values: string[]): string => values[values.length - 1] ?? '';
  const subject: GoName = {
    country: name.getField(oid.country),
    province: name.getField(oid.province),
    locality: name.getField(oid.locality),
    streetAddress: name.getField(oid.streetAddress),
    postalCode: name.getField(oid.postalCode),
    organization: name.getField(oid.organization),
    organizationalUnit: name.getField(oid.organizationalUnit),
    commonName: last(name.getField(oid.commonName)),
    serialNumber: last(name.getField(oid.serialNumber)),
  };
  const parsed: CertificateRequest = {
    subject,
    dnsNames: [],
    emailAddresses: [],
    ipAddresses: [],
    uris: [],
    publicKey: new Uint8Array(request.publicKey.rawData),
    publicKeyAlgorithm: 'Unknown',
  };
  const sanExtension = request.getExtension(subjectAltNameOID);
  if (sanExtension) {
    let san: x509.SubjectAlternativeNameExtension;
    try {
      san = new x509.SubjectAlternativeNameExtension(sanExtension.rawData);
    } catch {
      throw new CSRParseError('x509: malformed subjectAltName extension');
    }
    for (const { type, value } of san.names.items) {
      if (type === 'dns') parsed.dnsNames.push(value);
      else if (type === 'email') parsed.emailAddresses.push(value);
      else if (type === 'ip') parsed.ipAddresses.push(canonicalIP(value) ?? value);
      else if (type === 'url') parsed.uris.push(value);
    }
  }
  try {
    const type = createPublicKey({ key: Buffer.from(parsed.publicKey), format: 'der', type: 'spki' }).asymmetricKeyType ?? '';
    parsed.publicKeyAlgorithm = keyAlgorithms[type] ?? 'Unknown';
  } catch {
    parsed.publicKeyAlgorithm = 'Unknown';
  }
  return parsed;
}

/**
 * pkix.Name.ToRDNSequence: the subject Go writes into a certificate made from the request, with the
 * fields in Go's order, each multi-valued field one RDN, and Go's string types (PrintableString
 * when every character allows it, else UTF8String). Attributes pkix.Name does not keep are gone.
 */
export function goSubject(name: GoName): x509.Name {
  const rdns: x509.JsonAttributeAndObjectValue[] = [];
  const add = (type: string, values: readonly string[]): void => {
    if (values.length > 0) rdns.push({ [type]: values.map(goStringValue) });
  };
  add(oid.country, name.country);
  add(oid.province, name.province);
  add(oid.locality, name.locality);
  add(oid.streetAddress, name.streetAddress);
  add(oid.postalCode, name.postalCode);
  add(oid.organization, name.organization);
  add(oid.organizationalUnit, name.organizationalUnit);
  if (name.commonName !== '') add(oid.commonName, [name.commonName]);
  if (name.serialNumber !== '') add(oid.serialNumber, [name.serialNumber]);
  return new x509.Name(rdns);
}

/** encoding/asn1's isPrintable without its '*' and '&' allowances, as Marshal applies it. */
const goPrintable = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

function goStringValue(value: string): x509.JsonAttributeObject {
  return goPrintable.test(value) ? { printableString: value } : { utf8String: value };
}
