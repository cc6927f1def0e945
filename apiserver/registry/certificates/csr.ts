/**
 * CertificateSigningRequest (certificates.k8s.io/v1): a PKCS#10 request, approved or denied through
 * the `approval` subresource and answered through the `status` subresource. The requester's
 * identity in the spec comes from the request's user, never from the client. Tolerances for data
 * stored by older versions (duplicate usages, both Approved and Denied, ...) follow upstream's
 * getValidationOptions: a rule is relaxed on update only when the stored object already breaks it.
 */
import { X509Certificate, createPublicKey, verify, constants, type KeyObject } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { FieldPath, duplicate, forbidden, invalid, notSupported, required, tooLong, type FieldError } from '../../../shared/api/field.ts';
import { array, atomicArray, bytes, describe, int32, keyedArray, kindSchema, map, named, object, pb, string, time, type Schema } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { dns1123LabelMaxLength, dns1123SubdomainMaxLength, isDNS1123Label, isDNS1123Subdomain, nameIsPathSegment } from '../../../shared/validation/names.ts';
import { allVerbs, defineResource, type RequestContext } from '../definition.ts';
import { formatTimeOf } from '../../../shared/api/gotime.ts';
import { age, ageColumn, nameColumn } from '../../endpoints/table.ts';
import { humanDuration } from '../../../shared/api/duration.ts';
import { append } from '../../../shared/api/append.ts';

export interface CertificateSigningRequestCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CertificateSigningRequestSpec {
  /** Base64 of a PEM `CERTIFICATE REQUEST` block. */
  request?: string;
  signerName?: string;
  expirationSeconds?: number;
  usages?: string[];
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface CertificateSigningRequestStatus {
  conditions?: CertificateSigningRequestCondition[];
  /** Base64 of PEM `CERTIFICATE` blocks. */
  certificate?: string;
}

export interface CertificateSigningRequest extends KubeObject {
  spec?: CertificateSigningRequestSpec;
  status?: CertificateSigningRequestStatus;
}

export const legacyUnknownSignerName = 'kubernetes.io/legacy-unknown';

const validUsages = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
].sort();

/** Condition types that, when present, may only be True. */
const trueOnlyConditionTypes = ['Approved', 'Denied', 'Failed'];
const allConditionStatuses = ['False', 'True', 'Unknown'];
const approvalConditionTypes = ['Approved', 'Denied'];
const permanentConditionTypes = ['Approved', 'Denied', 'Failed'];
const minExpirationSeconds = 600;

const specPath = FieldPath.root('spec');
const conditionsPath = FieldPath.root('status').child('conditions');
const certificatePath = FieldPath.root('status').child('certificate');

// ---- PEM and DER, as Go's encoding/pem and crypto/x509 read them ----

interface PemBlock {
  type: string;
  hasHeaders: boolean;
  bytes: Buffer;
}

const pemBlockRe = /(?:^|\n)-----BEGIN ([^\n]*?)-----[ \t\r]*\n([\s\S]*?)(?:^|\n)-----END \1-----[ \t\r]*(?=\n|$)/gm;

/**
 * The PEM blocks of `text` in order. Like Go's pem.Decode, text around blocks is ignored and a
 * block whose body is not base64 is skipped. Leading `Key: value` lines are headers.
 */
function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const m of text.matchAll(pemBlockRe)) {
    const lines = (m[2] ?? '').split('\n');
    let i = 0;
    while (i < lines.length && (lines[i] ?? '').includes(':')) i++;
    const hasHeaders = i > 0;
    if (hasHeaders && i < lines.length && (lines[i] ?? '').trim() === '') i++;
    const body = lines.slice(i).join('').replace(/[ \t\r]/g, '');
    if (body.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(body)) continue;
    blocks.push({ type: m[1] ?? '', hasHeaders, bytes: Buffer.from(body, 'base64') });
  }
  return blocks;
}

/** A DER element: its tag, where its contents start and where it ends. */
interface Der {
  tag: number;
  contentStart: number;
  end: number;
}

class Asn1Error extends Error {}

function readDer(buf: Buffer, offset: number, expectedTag: number, what: string): Der {
  if (offset + 2 > buf.length) throw new Asn1Error('asn1: syntax error: data truncated');
  const tag = buf[offset] ?? 0;
  let length = buf[offset + 1] ?? 0;
  let contentStart = offset + 2;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0 || n > 4 || contentStart + n > buf.length) throw new Asn1Error('asn1: syntax error: data truncated');
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + (buf[contentStart + i] ?? 0);
    contentStart += n;
  }
  const end = contentStart + length;
  if (end > buf.length) throw new Asn1Error('asn1: syntax error: data truncated');
  if (tag !== expectedTag) throw new Asn1Error(`asn1: structure error: tags don't match (${expectedTag & 0x1f} vs tag ${tag & 0x1f}) ${what}`);
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

const SEQUENCE = 0x30;
const OID = 0x06;
const BIT_STRING = 0x03;
const INTEGER = 0x02;

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

/** The first OBJECT IDENTIFIER inside der[start, end), searching constructed elements depth first. */
function firstOID(der: Buffer, start: number, end: number): string | null {
  for (let offset = start; offset < end; ) {
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

/**
 * Parses a DER PKCS#10 request and checks its self-signature. Returns the error text upstream's
 * x509 package would give, or null. ASN.1 parse errors name the failure but not Go's exact
 * structure dump.
 */
function checkCertificateRequest(der: Buffer): string | null {
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
      ok = alg.pss
        ? verify(alg.hash, signed, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }, sig)
        : verify(alg.hash, signed, key, sig);
    } catch {
      ok = false;
    }
    if (ok) return null;
    if (alg.keyAlgorithm === 'RSA') return 'crypto/rsa: verification error';
    return `x509: ${alg.keyAlgorithm} verification failure`;
  } catch (err) {
    if (err instanceof Asn1Error) return err.message;
    throw err;
  }
}

/** upstream's validateCSR: the first PEM block must be a CERTIFICATE REQUEST with a valid signature. */
function requestError(request: string | undefined): string | null {
  const block = pemBlocks(Buffer.from(request ?? '', 'base64').toString('latin1'))[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  return checkCertificateRequest(block.bytes);
}

/** upstream's validateCertificate: one or more header-less CERTIFICATE blocks of parseable certificates. */
function certificateError(certificate: string | undefined): string | null {
  const text = Buffer.from(certificate ?? '', 'base64').toString('latin1');
  if (text.length === 0) return null;
  const blocks = pemBlocks(text);
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (block.hasHeaders) return 'no PEM block headers are permitted';
    let count = 0;
    for (let offset = 0; offset < block.bytes.length; count++) {
      try {
        const cert = readDer(block.bytes, offset, SEQUENCE, 'certificate');
        new X509Certificate(block.bytes.subarray(offset, cert.end));
        offset = cert.end;
      } catch {
        return 'x509: malformed certificate';
      }
    }
    if (count === 0) return 'found CERTIFICATE PEM block containing 0 certificates';
  }
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  return null;
}

// ---- validation ----

/** Which rules an update relaxes, and which subresource capabilities it has. */
interface ValidationOptions {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

const conditionsOf = (csr: CertificateSigningRequest | undefined): CertificateSigningRequestCondition[] => csr?.status?.conditions ?? [];
const hasDuplicates = (values: readonly string[]): boolean => new Set(values).size !== values.length;

function validationOptions(csr: CertificateSigningRequest, old: CertificateSigningRequest | undefined): ValidationOptions {
  const oldTypes = conditionsOf(old).map((c) => c.type ?? '');
  const oldUsages = old?.spec?.usages ?? [];
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    allowLegacySignerName: old?.spec?.signerName === legacyUnknownSignerName,
    allowDuplicateConditionTypes: old !== undefined && hasDuplicates(oldTypes),
    allowEmptyConditionType: oldTypes.includes(''),
    allowArbitraryCertificate:
      old !== undefined && ((csr.status?.certificate ?? '') === (old.status?.certificate ?? '') || certificateError(old.status?.certificate) !== null),
    allowUnknownUsages: oldUsages.some((u) => !validUsages.includes(u)),
    allowDuplicateUsages: hasDuplicates(oldUsages),
  };
}

/**
 * upstream's ValidateSignerName: `<domain>/<path>`, the domain made of DNS labels with at least one
 * dot, the path made of DNS subdomains separated by dots, at most 571 characters in all.
 */
export function validateSignerName(path: FieldPath, signerName: string): FieldError[] {
  if (signerName === '') return [required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) {
    return [invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const [domain = '', name = ''] = segments;
  const errs: FieldError[] = [];
  if (domain.length > dns1123SubdomainMaxLength) errs.push(tooLong(path, domain, dns1123SubdomainMaxLength));
  const domainLabels = domain.split('.');
  // Only the first bad label is reported: further ones would repeat the same messages.
  for (const label of domainLabels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length === 0) continue;
    for (const msg of msgs) errs.push(invalid(path, domain, `validating label ${JSON.stringify(label)}: ${msg}`));
    break;
  }
  if (domainLabels.length < 2) errs.push(invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of name.split('.')) {
    const msgs = isDNS1123Subdomain(label);
    if (msgs.length === 0) continue;
    for (const msg of msgs) errs.push(invalid(path, name, `validating label ${JSON.stringify(label)}: ${msg}`));
    break;
  }
  const maxLength = dns1123SubdomainMaxLength + (dns1123SubdomainMaxLength + dns1123LabelMaxLength + 1) + 1;
  if (signerName.length > maxLength) errs.push(tooLong(path, signerName, maxLength));
  return errs;
}

function validateConditions(csr: CertificateSigningRequest, opts: ValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(csr).forEach((c, i) => {
    const path = conditionsPath.index(i);
    const type = c.type ?? '';
    if (!opts.allowEmptyConditionType && type === '') errs.push(required(path.child('type')));
    const allowed = trueOnlyConditionTypes.includes(type) ? ['True'] : allConditionStatuses;
    const status = c.status ?? '';
    if (status === '') errs.push(required(path.child('status')));
    else if (!allowed.includes(status)) errs.push(notSupported(path.child('status'), status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) errs.push(invalid(path.child('type'), type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) errs.push(invalid(path.child('type'), type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(duplicate(path.child('type'), type));
      seen.add(type);
    }
  });
  return errs;
}

function validateCSR(csr: CertificateSigningRequest, opts: ValidationOptions): FieldError[] {
  const spec = csr.spec ?? {};
  const errs: FieldError[] = [];
  const requestProblem = requestError(spec.request);
  if (requestProblem) errs.push(invalid(specPath.child('request'), spec.request ?? '', requestProblem));
  const usages = spec.usages ?? [];
  if (usages.length === 0) errs.push(required(specPath.child('usages')));
  if (!opts.allowUnknownUsages) {
    usages.forEach((usage, i) => {
      if (!validUsages.includes(usage)) errs.push(notSupported(specPath.child('usages').index(i), usage, validUsages));
    });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((usage, i) => {
      if (seen.has(usage)) errs.push(duplicate(specPath.child('usages').index(i), usage));
      seen.add(usage);
    });
  }
  const signerName = spec.signerName ?? '';
  if (!opts.allowLegacySignerName && signerName === legacyUnknownSignerName) {
    errs.push(invalid(specPath.child('signerName'), signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    append(errs, validateSignerName(specPath.child('signerName'), signerName));
  }
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds < minExpirationSeconds) {
    errs.push(invalid(specPath.child('expirationSeconds'), spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  append(errs, validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const problem = certificateError(csr.status?.certificate);
    if (problem) errs.push(invalid(certificatePath, '<certificate data>', problem));
  }
  return errs;
}

const conditionsOfType = (csr: CertificateSigningRequest, type: string): CertificateSigningRequestCondition[] =>
  conditionsOf(csr).filter((c) => (c.type ?? '') === type);

/**
 * A readable account of a changed condition. Upstream appends a go-cmp diff here, whose layout is
 * deliberately unstable, so no client can depend on its text.
 */
function describeChange(before: CertificateSigningRequestCondition[], after: CertificateSigningRequestCondition[]): string {
  return [...before.map((c) => `- ${JSON.stringify(c)}`), ...after.map((c) => `+ ${JSON.stringify(c)}`)].join('\n');
}

function validateCSRUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest, opts: ValidationOptions): FieldError[] {
  const errs = validateCSR(csr, opts);
  for (const type of permanentConditionTypes) {
    if (conditionsOfType(csr, type).length < conditionsOfType(old, type).length) {
      errs.push(forbidden(conditionsPath, `updates may not remove a condition of type ${JSON.stringify(type)}`));
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const type of approvalConditionTypes) {
      const before = conditionsOfType(old, type);
      const after = conditionsOfType(csr, type);
      if (after.length < before.length) continue;
      if (after.length > before.length) {
        errs.push(forbidden(conditionsPath, `updates may not add a condition of type ${JSON.stringify(type)}`));
      } else if (!isDeepStrictEqual(before, after)) {
        errs.push(forbidden(conditionsPath, `updates may not modify a condition of type ${JSON.stringify(type)}\n${describeChange(before, after)}`));
      }
    }
  }
  const certificate = csr.status?.certificate ?? '';
  const oldCertificate = old.status?.certificate ?? '';
  if (certificate !== oldCertificate) {
    if (!opts.allowSettingCertificate) errs.push(forbidden(certificatePath, 'updates may not set certificate content'));
    else if (oldCertificate !== '') errs.push(forbidden(certificatePath, 'updates may not modify existing certificate content'));
  }
  return errs;
}

// ---- writes ----

/** Fills lastUpdateTime with now, and lastTransitionTime from a stored condition of the same type and status, else now. */
function populateConditionTimestamps(csr: CertificateSigningRequest, old: CertificateSigningRequest, ctx: RequestContext): void {
  const now = formatTimeOf(ctx.now);
  for (const c of conditionsOf(csr)) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const previous = conditionsOf(old).find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime);
      c.lastTransitionTime = previous?.lastTransitionTime ?? now;
    }
  }
}

/**
 * Through /status, existing Approved and Denied conditions keep their stored content when their
 * count is unchanged; adding or removing them is left for validation to reject.
 */
function preserveConditionInstances(csr: CertificateSigningRequest, old: CertificateSigningRequest, type: string): void {
  const conditions = conditionsOf(csr);
  const newIndices = conditions.flatMap((c, i) => ((c.type ?? '') === type ? [i] : []));
  const oldConditions = conditionsOfType(old, type);
  if (newIndices.length !== oldConditions.length) return;
  newIndices.forEach((index, i) => {
    conditions[index] = structuredClone(oldConditions[i] ?? {});
  });
}

function keepSpec(csr: CertificateSigningRequest, old: CertificateSigningRequest): void {
  if (old.spec === undefined) delete csr.spec;
  else csr.spec = structuredClone(old.spec);
}

const atomicBytes = (): Schema => ({ ...bytes(), 'x-kubernetes-list-type': 'atomic' });

/** The Condition cell: Denied, Approved or Pending (in that precedence), then Failed and Issued when so. */
function csrConditionText(csr: CertificateSigningRequest): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let text = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) text += ',Failed';
  if (csr.status?.certificate) text += ',Issued';
  return text;
}

/** The RequestedDuration cell: spec.expirationSeconds as a human duration, `<none>` when unset. */
function requestedDuration(csr: CertificateSigningRequest): string {
  const seconds = csr.spec?.expirationSeconds;
  return typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>';
}

const csrSpec = (): Schema =>
  named(
    'io.k8s.api.certificates.v1.CertificateSigningRequestSpec',
    'The certificate asked for: the request itself, the signer to issue it, and who asked, as the server recorded it.',
    object(
      {
        request: pb(1, describe(atomicBytes(), 'The PEM-encoded PKCS#10 certificate request (base64 in JSON). Required; cannot change.')),
        signerName: pb(7, string('Signer asked to issue the certificate, a qualified name such as kubernetes.io/kube-apiserver-client. Required; cannot change.'), 'keepZero'),
        expirationSeconds: pb(
          8,
          int32('Validity the requester asks for, in seconds (at least 600); the signer may issue a shorter or longer one.'),
          'optional',
        ),
        usages: pb(
          5,
          describe(atomicArray(string()), 'Key usages asked for, such as digital signature, key encipherment or client auth; the signer decides what to grant.'),
        ),
        username: pb(2, string('Name of the user who created the request; set by the server.')),
        uid: pb(3, string('UID of the user who created the request; set by the server.')),
        groups: pb(4, describe(atomicArray(string()), 'Groups of the user who created the request; set by the server.')),
        // Each value is an ExtraValue message in protobuf: the list under its field 1 (`items`).
        extra: pb(6, map(array(string()), 'Extra attributes of the user who created the request, by key; set by the server.')),
      },
      ['request', 'signerName'],
    ),
  );

const csrCondition = (): Schema =>
  named(
    'io.k8s.api.certificates.v1.CertificateSigningRequestCondition',
    'A decision on, or an outcome of, a certificate signing request.',
    object(
      {
        type: pb(1, string('Approved or Denied (written through approval), or Failed (written by the signer).'), 'keepZero'),
        status: pb(6, string('True, False or Unknown; Approved, Denied and Failed must be True.'), 'keepZero'),
        reason: pb(2, string('Machine-readable reason, in CamelCase.')),
        message: pb(3, string('Human-readable details.')),
        lastUpdateTime: pb(4, time('When the condition was last written.')),
        lastTransitionTime: pb(5, time('When status last changed; the server sets it when the writer does not.')),
      },
      ['type', 'status'],
    ),
  );

const csrStatus = (): Schema =>
  named(
    'io.k8s.api.certificates.v1.CertificateSigningRequestStatus',
    'Where a request stands: approved or denied, and the certificate once issued.',
    object({
      conditions: pb(1, describe(keyedArray(csrCondition(), ['type']), 'Approval, denial and failure of the request, at most one per type.')),
      certificate: pb(
        2,
        describe(atomicBytes(), 'The issued certificate chain as PEM blocks (base64 in JSON), set by the signer after approval; cannot change once set.'),
      ),
    }),
  );

export const csrDefinition = defineResource<CertificateSigningRequest>({
  group: 'certificates.k8s.io',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  singular: 'certificatesigningrequest',
  shortNames: ['csr'],
  namespaced: false,
  verbs: allVerbs,
  nameRule: nameIsPathSegment,
  fieldSelectors: { 'spec.signerName': (obj) => obj.spec?.signerName ?? '' },
  schema: describe(
    kindSchema(
      {
        spec: pb(2, describe(csrSpec(), 'The certificate request and who made it; cannot change after creation.')),
        status: pb(3, describe(csrStatus(), 'Approval and the issued certificate; written through approval and status.')),
      },
      ['spec'],
    ),
    'A request for a signed X.509 certificate, approved or denied by a person or controller and issued by the named signer.',
  ),
  strategy: {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate(obj, ctx) {
      const spec = (obj.spec ??= {});
      delete spec.username;
      delete spec.uid;
      delete spec.groups;
      delete spec.extra;
      const user = ctx.user;
      if (user.username) spec.username = user.username;
      if (user.uid) spec.uid = user.uid;
      if (user.groups.length) spec.groups = [...user.groups];
      if (user.extra && Object.keys(user.extra).length) spec.extra = structuredClone(user.extra);
      // Clients cannot create pre-approved or pre-signed requests.
      obj.status = {};
    },
    validate(obj) {
      return validateCSR(obj, validationOptions(obj, undefined));
    },
    prepareForUpdate(obj, old) {
      keepSpec(obj, old);
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
    },
    validateUpdate(obj, old) {
      return validateCSRUpdate(obj, old, validationOptions(obj, old));
    },
  },
  subresources: {
    approval: {
      verbs: ['get', 'patch', 'update'],
      prepareForUpdate(obj, old, ctx) {
        populateConditionTimestamps(obj, old, ctx);
        const conditions = obj.status?.conditions;
        keepSpec(obj, old);
        const status: CertificateSigningRequestStatus = structuredClone(old.status ?? {});
        if (conditions === undefined) delete status.conditions;
        else status.conditions = conditions;
        obj.status = status;
      },
      validateUpdate(obj, old) {
        return validateCSRUpdate(obj, old, { ...validationOptions(obj, old), allowSettingApprovalConditions: true });
      },
    },
    status: {
      verbs: ['get', 'update', 'patch'],
      prepareForUpdate(obj, old, ctx) {
        keepSpec(obj, old);
        preserveConditionInstances(obj, old, 'Approved');
        preserveConditionInstances(obj, old, 'Denied');
        populateConditionTimestamps(obj, old, ctx);
      },
      validateUpdate(obj, old) {
        return validateCSRUpdate(obj, old, { ...validationOptions(obj, old), allowSettingCertificate: true });
      },
    },
  },
  // Upstream describes these columns with certificates.k8s.io/v1beta1's docs, Requestor with the request's.
  table: {
    columns: [
      nameColumn,
      ageColumn,
      {
        name: 'SignerName',
        type: 'string',
        description:
          'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it\'s a kubelet client certificate, it is assigned\n    "kubernetes.io/kube-apiserver-client-kubelet".\n 2. If it\'s a kubelet serving certificate, it is assigned\n    "kubernetes.io/kubelet-serving".\n 3. Otherwise, it is assigned "kubernetes.io/legacy-unknown".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.',
      },
      { name: 'Requestor', type: 'string', description: 'Base64-encoded PKCS#10 CSR data' },
      {
        name: 'RequestedDuration',
        type: 'string',
        description:
          'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.',
      },
      { name: 'Condition', type: 'string', description: 'Conditions applied to the request, such as approval or denial.' },
    ],
    cells: (csr, now) => [
      csr.metadata.name,
      age(csr, now),
      csr.spec?.signerName || '<none>',
      csr.spec?.username ?? '',
      requestedDuration(csr),
      csrConditionText(csr),
    ],
  },
});
