/**
 * CertificateSigningRequest's validation, as upstream's ValidateCertificateSigningRequestCreate and
 * ...Update. Tolerances for data stored by older versions (duplicate usages, both Approved and
 * Denied, ...) follow upstream's getValidationOptions: a rule is relaxed on update only when the
 * stored object already breaks it. What a write may set (approval conditions, the certificate) is
 * granted by the subresource it goes through.
 */
import { isDeepStrictEqual } from 'node:util';
import { append } from '../../../../shared/api/append.ts';
import { FieldPath, duplicate, forbidden, invalid, notSupported, required, type FieldError } from '../../../../shared/api/field.ts';
import { certificateChainPemError, certificateRequestPemError } from '../../../../shared/validation/certificates.ts';
import { conditionsOf, conditionsOfType } from './conditions.ts';
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from '../../../../shared/api/certificate-signing-request.ts';
import { legacyUnknownSignerName, validateSignerName } from './signer-name.ts';

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

/** A base64 field's bytes (the wire form of `[]byte`). */
const decoded = (value: string | undefined): Buffer => Buffer.from(value ?? '', 'base64');

/** Which rules an update relaxes, and which subresource capabilities it has. */
export interface ValidationOptions {
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

const hasDuplicates = (values: readonly string[]): boolean => new Set(values).size !== values.length;

export function validationOptions(csr: CertificateSigningRequest, old: CertificateSigningRequest | undefined): ValidationOptions {
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
      old !== undefined &&
      ((csr.status?.certificate ?? '') === (old.status?.certificate ?? '') || certificateChainPemError(decoded(old.status?.certificate)) !== null),
    allowUnknownUsages: oldUsages.some((u) => !validUsages.includes(u)),
    allowDuplicateUsages: hasDuplicates(oldUsages),
  };
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

export function validateCSR(csr: CertificateSigningRequest, opts: ValidationOptions): FieldError[] {
  const spec = csr.spec ?? {};
  const errs: FieldError[] = [];
  const requestProblem = certificateRequestPemError(decoded(spec.request));
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
    const problem = certificateChainPemError(decoded(csr.status?.certificate));
    if (problem) errs.push(invalid(certificatePath, '<certificate data>', problem));
  }
  return errs;
}

/**
 * A readable account of a changed condition. Upstream appends a go-cmp diff here, whose layout is
 * deliberately unstable, so no client can depend on its text.
 */
function describeChange(before: CertificateSigningRequestCondition[], after: CertificateSigningRequestCondition[]): string {
  return [...before.map((c) => `- ${JSON.stringify(c)}`), ...after.map((c) => `+ ${JSON.stringify(c)}`)].join('\n');
}

export function validateCSRUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest, opts: ValidationOptions): FieldError[] {
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
