/**
 * Upstream's validatePodDNSConfig (dnsPolicy None needs name servers; at most 3 valid name server
 * IPs; at most 32 search domains of 2048 characters in all, each a DNS subdomain once a trailing dot
 * is dropped, RelaxedDNSSearchValidation being off in 1.32; options named) and ValidateHostAliases.
 */
import { append } from '../api/append.ts';
import { invalid, required, type FieldError, type FieldPath } from '../api/field.ts';
import type { PodSpec } from '../api/pod.ts';
import { isDNS1123Subdomain } from './names.ts';
import { validateIP } from './network.ts';

const maxNameservers = 3;
const maxSearchPaths = 32;
const maxSearchListChars = 2048;

/** validatePodDNSConfig, at `spec.dnsConfig`. */
export function validatePodDNSConfig(spec: PodSpec, path: FieldPath): FieldError[] {
  const config = spec.dnsConfig;
  if (spec.dnsPolicy === 'None') {
    if (!config) return [required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if ((config.nameservers ?? []).length === 0)
      return [required(path.child('nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!config) return [];
  const errors: FieldError[] = [];
  const nameservers = config.nameservers ?? [];
  if (nameservers.length > maxNameservers)
    errors.push(invalid(path.child('nameservers'), nameservers, `must not have more than ${maxNameservers} nameservers`));
  nameservers.forEach((ip, i) => append(errors, validateIP(path.child('nameservers').index(i), ip)));
  const searches = config.searches ?? [];
  if (searches.length > maxSearchPaths) errors.push(invalid(path.child('searches'), searches, `must not have more than ${maxSearchPaths} search paths`));
  if (searches.join(' ').length > maxSearchListChars)
    errors.push(invalid(path.child('searches'), searches, `must not have more than ${maxSearchListChars} characters (including spaces) in the search list`));
  searches.forEach((search, i) => {
    const domain = search.endsWith('.') ? search.slice(0, -1) : search;
    for (const msg of isDNS1123Subdomain(domain)) errors.push(invalid(path.child('searches').index(i), domain, msg));
  });
  (config.options ?? []).forEach((option, i) => {
    if (!option.name) errors.push(required(path.child('options').index(i), 'must not be empty'));
  });
  return errors;
}

/** ValidateHostAliases: a valid IP and DNS subdomain host names. */
export function validateHostAliases(aliases: PodSpec['hostAliases'], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  (aliases ?? []).forEach((alias, i) => {
    const at = path.index(i);
    append(errors, validateIP(at.child('ip'), alias.ip ?? ''));
    (alias.hostnames ?? []).forEach((hostname, j) => {
      for (const msg of isDNS1123Subdomain(hostname)) errors.push(invalid(at.child('hostnames').index(j), hostname, msg));
    });
  });
  return errors;
}
