/**
 * Signer names: which signer a CertificateSigningRequest asks to issue its certificate, as
 * `<domain>/<path>`. The legacy signer of certificates.k8s.io/v1beta1 is refused by v1 except on
 * objects that already name it.
 */
import { invalid, required, tooLong, type FieldError, type FieldPath } from '../../../../shared/api/field.ts';
import { dns1123LabelMaxLength, dns1123SubdomainMaxLength, isDNS1123Label, isDNS1123Subdomain } from '../../../../shared/validation/names.ts';

export const legacyUnknownSignerName = 'kubernetes.io/legacy-unknown';

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
