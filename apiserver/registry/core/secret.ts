/**
 * Secret (v1). `stringData` is write-only: it is merged into `data` on every write and never
 * stored or returned, as upstream's conversion does. Types get their required keys checked;
 * `type` defaults to Opaque and never changes.
 */
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { FieldPath, invalid, required, tooLong, type FieldError } from '../../../shared/api/field.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { boolean, bytes, describe, kindSchema, map, pb, string } from '../../../shared/api/schema.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../../endpoints/table.ts';
import { decodedSize, maxDataSize, validateDataKeys, validateImmutableData, validateImmutableField } from './shared-validation.ts';

export interface Secret extends KubeObject {
  immutable?: boolean;
  /** Values are base64 on the wire. */
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: string;
}

export const secretTypes = {
  opaque: 'Opaque',
  serviceAccountToken: 'kubernetes.io/service-account-token',
  dockercfg: 'kubernetes.io/dockercfg',
  dockerConfigJson: 'kubernetes.io/dockerconfigjson',
  basicAuth: 'kubernetes.io/basic-auth',
  sshAuth: 'kubernetes.io/ssh-auth',
  tls: 'kubernetes.io/tls',
  bootstrapToken: 'bootstrap.kubernetes.io/token',
} as const;

const serviceAccountNameKey = 'kubernetes.io/service-account.name';
/** Upstream hides secret contents in the bad value of a malformed docker config. */
const redacted = '<secret contents redacted>';

/** What decoding does upstream: stringData overwrites data keys, then disappears; type defaults. */
function normalize(secret: Secret): void {
  const stringData = secret.stringData;
  delete secret.stringData;
  if (stringData && Object.keys(stringData).length) {
    secret.data ??= {};
    for (const [key, value] of Object.entries(stringData)) secret.data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  if (!secret.type) secret.type = secretTypes.opaque;
}

function dataBytes(secret: Secret, key: string): Buffer | undefined {
  const value = secret.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64');
}

function validateSecret(secret: Secret): FieldError[] {
  const dataPath = FieldPath.root('data');
  const errors = validateDataKeys(secret.data, dataPath);
  let size = 0;
  for (const value of Object.values(secret.data ?? {})) size += decodedSize(value);
  if (size > maxDataSize) errors.push(tooLong(dataPath, '', maxDataSize));
  const has = (key: string): boolean => secret.data !== undefined && Object.hasOwn(secret.data, key);

  switch (secret.type) {
    case secretTypes.serviceAccountToken:
      // The uid annotation and the token are filled in later by the token controller.
      if (!secret.metadata.annotations?.[serviceAccountNameKey]) {
        errors.push(required(FieldPath.root('metadata').child('annotations').key(serviceAccountNameKey)));
      }
      break;
    case secretTypes.dockercfg:
    case secretTypes.dockerConfigJson: {
      const key = secret.type === secretTypes.dockercfg ? '.dockercfg' : '.dockerconfigjson';
      const content = dataBytes(secret, key);
      if (content === undefined) {
        errors.push(required(dataPath.key(key)));
        break;
      }
      const problem = goJsonObjectError(content);
      if (problem) errors.push(invalid(dataPath.key(key), redacted, problem));
      break;
    }
    case secretTypes.basicAuth:
      // Either key may be empty, but one of them must be present.
      if (!has('username') && !has('password')) errors.push(required(dataPath.key('username')), required(dataPath.key('password')));
      break;
    case secretTypes.sshAuth:
      if (!dataBytes(secret, 'ssh-privatekey')?.length) errors.push(required(dataPath.key('ssh-privatekey')));
      break;
    case secretTypes.tls:
      if (!has('tls.crt')) errors.push(required(dataPath.key('tls.crt')));
      if (!has('tls.key')) errors.push(required(dataPath.key('tls.key')));
      break;
  }
  return errors;
}

function validateSecretUpdate(secret: Secret, old: Secret): FieldError[] {
  return [
    ...validateImmutableField(secret.type ?? '', old.type ?? '', FieldPath.root('type')),
    // stringData was already merged into data, so checking data covers it.
    ...validateImmutableData(secret, old, ['data']),
    ...validateSecret(secret),
  ];
}

/** Upstream warns (never rejects) when a TLS secret's key does not fit its certificate. */
function secretWarnings(secret: Secret): string[] {
  if (secret.type !== secretTypes.tls) return [];
  const problem = tlsKeyPairError(dataBytes(secret, 'tls.crt') ?? Buffer.alloc(0), dataBytes(secret, 'tls.key') ?? Buffer.alloc(0));
  return problem ? [problem] : [];
}

export const secretDefinition = defineResource<Secret>({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  singular: 'secret',
  namespaced: true,
  verbs: allVerbs,
  schema: describe(
    kindSchema({
      immutable: pb(5, boolean('When true, data can no longer change; only deletion and re-creation replace it.'), 'optional'),
      data: pb(2, map(bytes(), 'The secret values as bytes (base64 in JSON), by key. Keys consist of letters, digits, -, _ and .; 1 MiB at most in all.')),
      stringData: pb(
        4,
        map(string(), 'Write-only convenience: plain-text values merged into data on write, winning over data\'s entries of the same key. Never returned.'),
      ),
      type: pb(3, string('What the secret holds, which decides the keys it must have: Opaque (the default), kubernetes.io/tls, kubernetes.io/dockerconfigjson, ...; cannot change.')),
    }),
    'Confidential data such as passwords, tokens or keys, as key/value pairs that pods mount as files or read as environment variables.',
  ),
  strategy: {
    prepareForCreate: (secret) => normalize(secret),
    validate: (secret) => validateSecret(secret),
    prepareForUpdate: (secret) => normalize(secret),
    validateUpdate: (secret, old) => validateSecretUpdate(secret, old),
    warnings: (secret) => secretWarnings(secret),
  },
  fieldSelectors: { type: (secret) => secret.type ?? '' },
  table: {
    columns: [
      nameColumn,
      {
        name: 'Type',
        type: 'string',
        description: 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
      },
      {
        name: 'Data',
        type: 'string',
        description:
          "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
      },
      ageColumn,
    ],
    // Upstream counts the keys of its internal form, where stringData is merged into data.
    cells: (secret, now) => [
      secret.metadata.name,
      secret.type ?? '',
      new Set([...Object.keys(secret.data ?? {}), ...Object.keys(secret.stringData ?? {})]).size,
      age(secret, now),
    ],
  },
});

// ---------------------------------------------------------------------------------------------
// Go's json.Unmarshal into map[string]interface{}: which error, worded as Go words it, a docker
// config gets. The scanner follows encoding/json's states so that the reported character and
// context ("after object key", "in string literal", ...) are the ones kubectl users see.

type Container = 'key' | 'value' | 'array';
type State = (c: number) => void;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const escapes = new Set([...'bfnrt\\/"'].map((ch) => ch.charCodeAt(0)));

/** Go's quoteChar: a byte as a single-quoted Go character literal. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  const hex = c.toString(16).padStart(2, '0');
  if (named[c] !== undefined) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${hex}'`;
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u00${hex}'`;
  return `'${String.fromCharCode(c)}'`;
}

/** The syntax error Go reports for input, or null when it is one well-formed JSON value. */
function goJsonSyntaxError(input: Uint8Array): string | null {
  const stack: Container[] = [];
  let endTop = false;
  let error: string | null = null;
  const fail = (c: number, context: string): void => {
    error = `invalid character ${quoteChar(c)} ${context}`;
  };

  const endOfTop: State = (c) => {
    if (!isSpace(c)) fail(c, 'after top-level value');
  };
  const pop = (): void => {
    stack.pop();
    if (stack.length === 0) {
      step = endOfTop;
      endTop = true;
    } else step = endValue;
  };
  const endValue: State = (c) => {
    const top = stack.length - 1;
    if (top < 0) {
      step = endOfTop;
      endTop = true;
      return endOfTop(c);
    }
    if (isSpace(c)) {
      step = endValue;
      return;
    }
    switch (stack[top]) {
      case 'key':
        if (c === 0x3a) {
          stack[top] = 'value';
          step = beginValue;
        } else fail(c, 'after object key');
        return;
      case 'value':
        if (c === 0x2c) {
          stack[top] = 'key';
          step = beginString;
        } else if (c === 0x7d) pop();
        else fail(c, 'after object key:value pair');
        return;
      case 'array':
        if (c === 0x2c) step = beginValue;
        else if (c === 0x5d) pop();
        else fail(c, 'after array element');
    }
  };
  const literal =
    (word: string, at: number): State =>
    (c) => {
      if (c !== word.charCodeAt(at)) return fail(c, `in literal ${word} (expecting '${word[at]}')`);
      step = at + 1 === word.length ? endValue : literal(word, at + 1);
    };
  const inString: State = (c) => {
    if (c === 0x22) step = endValue;
    else if (c === 0x5c) step = inEscape;
    else if (c < 0x20) fail(c, 'in string literal');
  };
  const inEscape: State = (c) => {
    if (escapes.has(c)) step = inString;
    else if (c === 0x75) step = hexEscape(4);
    else fail(c, 'in string escape code');
  };
  const hexEscape =
    (left: number): State =>
    (c) => {
      if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
      step = left === 1 ? inString : hexEscape(left - 1);
    };
  const afterNumber = (c: number, next: State): void => {
    if (isDigit(c)) step = next;
    else endValue(c);
  };
  const exponentDigits: State = (c) => afterNumber(c, exponentDigits);
  const exponentSign: State = (c) => {
    if (isDigit(c)) step = exponentDigits;
    else fail(c, 'in exponent of numeric literal');
  };
  const exponent: State = (c) => {
    if (c === 0x2b || c === 0x2d) step = exponentSign;
    else exponentSign(c);
  };
  const fraction: State = (c) => {
    if (c === 0x65 || c === 0x45) step = exponent;
    else afterNumber(c, fraction);
  };
  const decimalPoint: State = (c) => {
    if (isDigit(c)) step = fraction;
    else fail(c, 'after decimal point in numeric literal');
  };
  const zero: State = (c) => {
    if (c === 0x2e) step = decimalPoint;
    else if (c === 0x65 || c === 0x45) step = exponent;
    else endValue(c);
  };
  const integer: State = (c) => {
    if (isDigit(c)) step = integer;
    else zero(c);
  };
  const negative: State = (c) => {
    if (c === 0x30) step = zero;
    else if (c >= 0x31 && c <= 0x39) step = integer;
    else fail(c, 'in numeric literal');
  };
  const beginValue: State = (c) => {
    if (isSpace(c)) return;
    if (c === 0x7b) {
      stack.push('key');
      step = beginStringOrEmpty;
    } else if (c === 0x5b) {
      stack.push('array');
      step = beginValueOrEmpty;
    } else if (c === 0x22) step = inString;
    else if (c === 0x2d) step = negative;
    else if (c === 0x30) step = zero;
    else if (c >= 0x31 && c <= 0x39) step = integer;
    else if (c === 0x74) step = literal('true', 1);
    else if (c === 0x66) step = literal('false', 1);
    else if (c === 0x6e) step = literal('null', 1);
    else fail(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty: State = (c) => {
    if (isSpace(c)) return;
    if (c === 0x5d) endValue(c);
    else beginValue(c);
  };
  const beginString: State = (c) => {
    if (isSpace(c)) return;
    if (c === 0x22) step = inString;
    else fail(c, 'looking for beginning of object key string');
  };
  const beginStringOrEmpty: State = (c) => {
    if (isSpace(c)) return;
    if (c === 0x7d) {
      stack[stack.length - 1] = 'value';
      endValue(c);
    } else beginString(c);
  };

  let step: State = beginValue;
  for (const c of input) {
    step(c);
    if (error) return error;
  }
  if (endTop) return null;
  // Go feeds a space at the end so that a number in progress completes (or fails, as "1." does).
  step(0x20);
  if (error) return error;
  return endTop ? null : 'unexpected end of JSON input';
}

/** The error of Go's json.Unmarshal(input, &map[string]interface{}{}), or null. */
export function goJsonObjectError(input: Uint8Array): string | null {
  const syntax = goJsonSyntaxError(input);
  if (syntax) return syntax;
  const first = input.find((c) => !isSpace(c));
  const kind = first === 0x7b || first === 0x6e ? null : first === 0x5b ? 'array' : first === 0x22 ? 'string' : first === 0x74 || first === 0x66 ? 'bool' : 'number';
  return kind ? `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}` : null;
}

// ---------------------------------------------------------------------------------------------
// Go's tls.X509KeyPair, reduced to the error it returns, worded as Go words it.

interface PemBlock {
  type: string;
  der: Buffer;
}

function pemBlocks(input: Buffer): PemBlock[] {
  const blocks: PemBlock[] = [];
  const re = /-----BEGIN ([^\r\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (const m of input.toString('latin1').matchAll(re)) {
    const body = (m[2] ?? '')
      .split(/\r?\n/)
      .filter((line) => !line.includes(':'))
      .join('');
    blocks.push({ type: m[1] ?? '', der: Buffer.from(body, 'base64') });
  }
  return blocks;
}

function parsePrivateKey(der: Buffer): KeyObject | null {
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch {
      // Go tries PKCS#1, PKCS#8, then SEC 1 as well.
    }
  }
  return null;
}

export function tlsKeyPairError(certPem: Buffer, keyPem: Buffer): string | null {
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
    publicKey = new X509Certificate(first.der).publicKey;
  } catch {
    return 'x509: malformed certificate';
  }
  const privateKey = parsePrivateKey(keyBlock.der);
  if (!privateKey) return 'tls: failed to parse private key';
  if (publicKey.asymmetricKeyType !== privateKey.asymmetricKeyType) return 'tls: private key type does not match public key type';
  const spki = (key: KeyObject): Buffer => key.export({ type: 'spki', format: 'der' });
  if (!spki(createPublicKey(privateKey)).equals(spki(publicKey))) return 'tls: private key does not match public key';
  return null;
}
