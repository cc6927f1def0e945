/**
 * Certificate authority helpers on @peculiar/x509 (loaded by shared/go/x509.ts) and node's
 * WebCrypto: the cluster CA, serving and client certificates, and `signCertificate`, the signing
 * core that the CSR signer reuses (it signs any public key with a given subject, extensions and
 * validity).
 *
 * New keys are ECDSA P-256; keys are exported as PKCS#8 PEM ("PRIVATE KEY"), which Go's
 * tls.X509KeyPair and node:tls both read. A CA loaded from PEM may also hold an RSA or P-384 key
 * (PKCS#8, SEC1 or PKCS#1), so an operator-supplied CA works too.
 */
import { createPrivateKey, createPublicKey, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { encodePem } from '../go/pem.ts';
import { x509 } from '../go/x509.ts';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Default CA lifetime: 10 years. */
export const CA_VALIDITY_MS = 3650 * DAY_MS;
/** Default leaf lifetime: 1 year. */
export const LEAF_VALIDITY_MS = 365 * DAY_MS;
/**
 * notBefore is set this far in the past, as upstream's signer does, so that a certificate is usable at
 * once on machines whose clocks lag behind the issuer's.
 */
export const BACKDATE_MS = 5 * 60 * 1000;

export const DEFAULT_CA_COMMON_NAME = 'corral-ca';
export const DEFAULT_SERVING_COMMON_NAME = 'kube-apiserver';

/** Extended key usage OIDs (RFC 5280 §4.2.1.12). */
export const EXT_KEY_USAGE = {
  any: '2.5.29.37.0',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

export const KeyUsage = x509.KeyUsageFlags;

const P256_KEY_PARAMS = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** A certificate with the private key of its subject, both PEM. */
export interface CertificateAndKey {
  certPem: string;
  keyPem: string;
}

/** What signs: a CA certificate and its private key. */
export interface CertificateAuthority extends CertificateAndKey {
  cert: x509.X509Certificate;
  privateKey: CryptoKey;
}

/** A subject or issuer: RFC 4514 text, JSON RDNs (`[{ O: ['a'] }, { CN: ['u'] }]`) or a parsed Name. */
export type DistinguishedName = string | x509.JsonName | x509.Name;

/** A public key to certify: a WebCrypto key or DER SubjectPublicKeyInfo (e.g. from a PKCS#10 request). */
export type PublicKeyInput = CryptoKey | Uint8Array | ArrayBuffer;

/** Everything `signCertificate` puts into a certificate besides issuer, serial number and key ids. */
export interface CertificateTemplate {
  subject: DistinguishedName;
  publicKey: PublicKeyInput;
  notBefore: Date;
  /** Clamped to the issuer's notAfter: a certificate never outlives its CA. */
  notAfter: Date;
  isCA?: boolean;
  /** Bit set of KeyUsage flags; the extension is left out when 0 or undefined. */
  keyUsages?: number;
  /** Extended key usage OIDs; the extension is left out when empty. */
  extKeyUsages?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  emailAddresses?: string[];
  uris?: string[];
}

export interface ValidityOptions {
  /** The issuing time; defaults to the clock. */
  now?: Date;
  /** Lifetime in milliseconds from `now`. */
  validityMs?: number;
}

export interface CreateCAOptions extends ValidityOptions {
  commonName?: string;
}

export interface ServingCertificateOptions extends ValidityOptions {
  commonName?: string;
  dnsNames: string[];
  ipAddresses: string[];
}

export interface ClientCertificateOptions extends ValidityOptions {
  /** The user name. */
  commonName: string;
  /** The user's groups. */
  organizations?: string[];
}

/** The subjectAltName entries of a certificate, IPs in canonical text form. */
export interface SubjectAltNames {
  dnsNames: string[];
  ipAddresses: string[];
}

export async function generateKeyPair(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(P256_KEY_PARAMS, true, ['sign', 'verify']);
}

/** Creates a self-signed CA with a new P-256 key. */
export async function createCA(opts: CreateCAOptions = {}): Promise<CertificateAuthority> {
  const keys = await generateKeyPair();
  const { notBefore, notAfter } = validityWindow(opts.validityMs ?? CA_VALIDITY_MS, opts.now);
  const subject = new x509.Name([{ CN: [opts.commonName ?? DEFAULT_CA_COMMON_NAME] }]);
  const cert = await x509.X509CertificateGenerator.create(
    {
      subject,
      issuer: subject,
      publicKey: keys.publicKey,
      signingKey: keys.privateKey,
      signingAlgorithm: signatureAlgorithm(keys.privateKey),
      notBefore,
      notAfter,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  return { cert, privateKey: keys.privateKey, certPem: cert.toString('pem'), keyPem: await exportPrivateKeyPem(keys.privateKey) };
}

/** Loads a CA from PEM; the key may be PKCS#8, SEC1 (EC) or PKCS#1 (RSA). Throws when they do not match. */
export async function loadCA(certPem: string, keyPem: string): Promise<CertificateAuthority> {
  const cert = new x509.X509Certificate(certPem);
  const privateKey = await importPrivateKeyPem(keyPem);
  const certSpki = Buffer.from(cert.publicKey.rawData);
  if (!certSpki.equals(publicKeyOfPrivateKeyPem(keyPem))) {
    throw new Error('CA private key does not match the CA certificate');
  }
  return { cert, privateKey, certPem, keyPem };
}

/** Issues a server certificate (server auth) for a new key, with the given DNS and IP subjectAltNames. */
export async function issueServingCertificate(ca: CertificateAuthority, opts: ServingCertificateOptions): Promise<CertificateAndKey> {
  const keys = await generateKeyPair();
  const certPem = await certifyServingKey(ca, keys.publicKey, opts);
  return { certPem, keyPem: await exportPrivateKeyPem(keys.privateKey) };
}

/** Certifies an existing key for serving; returns the certificate PEM. */
export async function certifyServingKey(ca: CertificateAuthority, publicKey: PublicKeyInput, opts: ServingCertificateOptions): Promise<string> {
  const cert = await signCertificate(ca, {
    subject: [{ CN: [opts.commonName ?? DEFAULT_SERVING_COMMON_NAME] }],
    publicKey,
    ...validityWindow(opts.validityMs ?? LEAF_VALIDITY_MS, opts.now),
    keyUsages: leafKeyUsages(publicKey),
    extKeyUsages: [EXT_KEY_USAGE.serverAuth],
    dnsNames: opts.dnsNames,
    ipAddresses: opts.ipAddresses,
  });
  return cert.toString('pem');
}

/** Issues a client certificate (client auth) for a new key: CN is the user, each O a group. */
export async function issueClientCertificate(ca: CertificateAuthority, opts: ClientCertificateOptions): Promise<CertificateAndKey> {
  const keys = await generateKeyPair();
  const certPem = await certifyClientKey(ca, keys.publicKey, opts);
  return { certPem, keyPem: await exportPrivateKeyPem(keys.privateKey) };
}

/** Certifies an existing key for client authentication; returns the certificate PEM. */
export async function certifyClientKey(ca: CertificateAuthority, publicKey: PublicKeyInput, opts: ClientCertificateOptions): Promise<string> {
  const cert = await signCertificate(ca, {
    subject: clientSubject(opts.commonName, opts.organizations ?? []),
    publicKey,
    ...validityWindow(opts.validityMs ?? LEAF_VALIDITY_MS, opts.now),
    keyUsages: leafKeyUsages(publicKey),
    extKeyUsages: [EXT_KEY_USAGE.clientAuth],
  });
  return cert.toString('pem');
}

/**
 * The signing core: certifies `template.publicKey` with the CA. Adds basicConstraints (critical),
 * subject and authority key identifiers, and the template's key usages and subjectAltNames. The issuer
 * name is the CA certificate's subject byte for byte, as chain building in Go compares raw names.
 */
export async function signCertificate(ca: CertificateAuthority, template: CertificateTemplate): Promise<x509.X509Certificate> {
  const publicKey = template.publicKey;
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(template.isCA ?? false, undefined, true)];
  if (template.keyUsages) extensions.push(new x509.KeyUsagesExtension(template.keyUsages, true));
  if (template.extKeyUsages?.length) extensions.push(new x509.ExtendedKeyUsageExtension(template.extKeyUsages, false));
  const altNames: x509.JsonGeneralName[] = [
    ...(template.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(template.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(template.emailAddresses ?? []).map((value) => ({ type: 'email' as const, value })),
    ...(template.uris ?? []).map((value) => ({ type: 'url' as const, value })),
  ];
  if (altNames.length) extensions.push(new x509.SubjectAlternativeNameExtension(altNames, false));
  extensions.push(await x509.SubjectKeyIdentifierExtension.create(publicKey, false, webcrypto));
  extensions.push(await authorityKeyIdentifier(ca.cert));

  const notAfter = template.notAfter > ca.cert.notAfter ? ca.cert.notAfter : template.notAfter;
  return x509.X509CertificateGenerator.create(
    {
      subject: template.subject,
      issuer: new x509.Name(ca.cert.subjectName.toArrayBuffer()),
      publicKey,
      signingKey: ca.privateKey,
      signingAlgorithm: signatureAlgorithm(ca.privateKey),
      notBefore: template.notBefore,
      notAfter,
      extensions,
    },
    webcrypto,
  );
}

/**
 * The issuer's subject key identifier as the authority key identifier (verifiers match the two), or,
 * when the CA certificate carries none, the SHA-1 key id of its public key.
 */
async function authorityKeyIdentifier(caCert: x509.X509Certificate): Promise<x509.AuthorityKeyIdentifierExtension> {
  const ski = caCert.getExtension(x509.SubjectKeyIdentifierExtension);
  if (ski) return new x509.AuthorityKeyIdentifierExtension(ski.keyId, false);
  return x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, webcrypto);
}

/** A client subject as Go's pkix.Name writes it: the organizations first, then the common name. */
export function clientSubject(commonName: string, organizations: readonly string[]): x509.JsonName {
  return [...organizations.map((o) => ({ O: [o] })), { CN: [commonName] }];
}

/** [now - BACKDATE_MS, now + validityMs]. */
export function validityWindow(validityMs: number, now: Date = new Date()): { notBefore: Date; notAfter: Date } {
  return { notBefore: new Date(now.getTime() - BACKDATE_MS), notAfter: new Date(now.getTime() + validityMs) };
}

/** Splits names into IP and DNS subjectAltNames: whatever parses as an IP address is an IP SAN. */
export function splitSubjectAltNames(names: readonly string[]): SubjectAltNames {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const name of names) {
    const ip = canonicalIP(name);
    if (ip !== null) ipAddresses.push(ip);
    else dnsNames.push(name);
  }
  return { dnsNames, ipAddresses };
}

/** The DNS and IP subjectAltNames of a PEM certificate. */
export function subjectAltNames(certPem: string): SubjectAltNames {
  const ext = new x509.X509Certificate(certPem).getExtension(x509.SubjectAlternativeNameExtension);
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const name of ext?.names.items ?? []) {
    if (name.type === 'dns') dnsNames.push(name.value);
    else if (name.type === 'ip') ipAddresses.push(canonicalIP(name.value) ?? name.value);
  }
  return { dnsNames, ipAddresses };
}

/** The canonical text form of an IP (IPv6 compressed, lower case), or null when it is not an IP. */
export function canonicalIP(value: string): string | null {
  const family = isIP(value);
  if (family === 4) return value;
  if (family !== 6) return null;
  try {
    return new URL(`http://[${value}]/`).hostname.slice(1, -1);
  } catch {
    // Zone-scoped addresses (fe80::1%eth0) are not URL hosts; keep them as written.
    return value.toLowerCase();
  }
}

/** The private key as PKCS#8 PEM. */
export async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  return encodePem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', key));
}

/** The SubjectPublicKeyInfo of a PEM private key, DER. */
export function publicKeyOfPrivateKeyPem(keyPem: string): Buffer {
  return createPublicKey(createPrivateKey(keyPem)).export({ format: 'der', type: 'spki' });
}

/** Imports a PEM private key (PKCS#8, SEC1 or PKCS#1; EC P-256/P-384 or RSA) for signing. */
export async function importPrivateKeyPem(keyPem: string): Promise<CryptoKey> {
  const keyObject = createPrivateKey(keyPem);
  const der = keyObject.export({ format: 'der', type: 'pkcs8' });
  const type = keyObject.asymmetricKeyType;
  if (type === 'ec') {
    const curve = keyObject.asymmetricKeyDetails?.namedCurve;
    const namedCurve = curve === 'prime256v1' ? 'P-256' : curve === 'secp384r1' ? 'P-384' : null;
    if (!namedCurve) throw new Error(`unsupported EC curve ${String(curve)}`);
    return webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve }, true, ['sign']);
  }
  if (type === 'rsa') {
    return webcrypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['sign']);
  }
  throw new Error(`unsupported private key type ${String(type)}`);
}

/** The signature algorithm for a signing key: ECDSA with the curve's hash, or the RSA key's own scheme. */
function signatureAlgorithm(signingKey: CryptoKey): { name: string; hash: string } {
  const alg = signingKey.algorithm as { name: string; namedCurve?: string };
  if (alg.name === 'ECDSA') return { name: 'ECDSA', hash: alg.namedCurve === 'P-384' ? 'SHA-384' : 'SHA-256' };
  return { name: alg.name, hash: 'SHA-256' };
}

/** Leaf key usages: digital signature, plus key encipherment for RSA keys (TLS key transport). */
function leafKeyUsages(publicKey: PublicKeyInput): number {
  const isRSA =
    publicKey instanceof Uint8Array || publicKey instanceof ArrayBuffer
      ? createPublicKey({ key: Buffer.from(publicKey instanceof ArrayBuffer ? new Uint8Array(publicKey) : publicKey), format: 'der', type: 'spki' })
          .asymmetricKeyType === 'rsa'
      : publicKey.algorithm.name.startsWith('RSA');
  return isRSA ? KeyUsage.digitalSignature | KeyUsage.keyEncipherment : KeyUsage.digitalSignature;
}
