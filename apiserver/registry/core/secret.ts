/**
 * Secret (v1). `stringData` is write-only: it is merged into `data` on every write and never
 * stored or returned, as upstream's conversion does. Types get their required keys checked;
 * `type` defaults to Opaque and never changes.
 */
import { FieldPath, invalid, required, tooLong, type FieldError } from '../../../shared/api/field.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { boolean, bytes, describe, kindSchema, map, pb, string } from '../../../shared/api/schema.ts';
import { jsonUnmarshalMapError } from '../../../shared/go/json-errors.ts';
import { x509KeyPairError } from '../../../shared/go/tls.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
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
      const problem = jsonUnmarshalMapError(content);
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
  const problem = x509KeyPairError(dataBytes(secret, 'tls.crt') ?? Buffer.alloc(0), dataBytes(secret, 'tls.key') ?? Buffer.alloc(0));
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
        map(string(), "Write-only convenience: plain-text values merged into data on write, winning over data's entries of the same key. Never returned."),
      ),
      type: pb(
        3,
        string(
          'What the secret holds, which decides the keys it must have: Opaque (the default), kubernetes.io/tls, kubernetes.io/dockerconfigjson, ...; cannot change.',
        ),
      ),
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
        description:
          'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
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
