/**
 * Upstream's name and key rules (k8s.io/apimachinery/pkg/util/validation). Each check returns the
 * list of problems as upstream words them; callers wrap them into field errors.
 */

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const configKeyFmt = '[-._a-zA-Z0-9]+';
const configKeyRe = new RegExp(`^${configKeyFmt}$`);

export const dns1123LabelMaxLength = 63;
export const dns1123SubdomainMaxLength = 253;
const qualifiedNameMaxLength = 63;
const labelValueMaxLength = 63;

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

function regexError(what: string, fmt: string, ...examples: string[]): string {
  const eg = examples.length
    ? `(e.g. ${examples.map((e) => `'${e}'`).join(',  or ')}, regex used for validation is '${fmt}')`
    : `(regex used for validation is '${fmt}')`;
  return `${what} ${eg}`;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > dns1123LabelMaxLength) errs.push(maxLenError(dns1123LabelMaxLength));
  if (!dns1123LabelRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        dns1123LabelFmt,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        dns1123SubdomainFmt,
        'example.com',
      ),
    );
  }
  return errs;
}

/** A label key or annotation key: an optional DNS subdomain prefix and a name part. */
export function isQualifiedName(value: string): string[] {
  // The common case, a valid name without prefix, in one regex test (a Node may carry 100,000 labels).
  if (value.length <= qualifiedNameMaxLength && qualifiedNameRe.test(value)) return [];
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      regexError(
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        qualifiedNameFmt,
        'MyName',
        'my.name',
        '123-abc',
      ) + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > qualifiedNameMaxLength) errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(
      'name part ' +
        regexError(
          "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          qualifiedNameFmt,
          'MyName',
          'my.name',
          '123-abc',
        ),
    );
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > labelValueMaxLength) errs.push(maxLenError(labelValueMaxLength));
  if (!labelValueRe.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        labelValueFmt,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** Keys of ConfigMap and Secret data. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!configKeyRe.test(value)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Names that only need to be usable as one URL path segment (CertificateSigningRequest and others). */
export function isValidPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (value.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/** How a kind's names are validated; generateName prefixes are checked with a trailing '-' tolerated. */
export type NameRule = (name: string, prefix: boolean) => string[];

/** Upstream's maskTrailingDash: a generateName may end in '-', checked as if its last two characters were 'a'. */
const stripDash = (name: string, prefix: boolean): string => (prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name);

export const nameIsDNSSubdomain: NameRule = (name, prefix) => isDNS1123Subdomain(stripDash(name, prefix));
export const nameIsDNSLabel: NameRule = (name, prefix) => isDNS1123Label(stripDash(name, prefix));
export const nameIsPathSegment: NameRule = (name) => isValidPathSegmentName(name);
