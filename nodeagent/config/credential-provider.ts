/**
 * CredentialProviderConfig (`--image-credential-provider-config`), read and validated as the
 * kubelet's credential provider plugin package does (pkg/credentialprovider/plugin, 1.32): strictly
 * decoded (no lenient fallback: unknown and duplicate fields are errors), every provider checked
 * with upstream's field errors, and the plugin binaries looked for in the bin dir. The spec's merge
 * order for the credentials several matching providers return: the earlier provider in the list
 * wins an overlapping registry key.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FieldPath, fieldErrorString, invalid, notSupported, required, duplicate, type FieldError } from '../../shared/api/field.ts';
import { formatGoDuration } from '../../shared/go/duration.ts';
import { goQuote } from '../../shared/go/format.ts';
import { decodeConfig, ConfigDecodeError, type ConfigKind } from './decode.ts';
import { fill } from './defaults.ts';
import { kubeletConfigGroup, type Decoded } from './fields.ts';
import { goFileError } from './go-file-error.ts';

const providerFields = {
  name: { kind: 'string' },
  matchImages: { kind: 'strings' },
  defaultCacheDuration: { kind: 'duration', nullable: true },
  apiVersion: { kind: 'string' },
  args: { kind: 'strings' },
  env: { kind: 'structs', fields: { name: { kind: 'string' }, value: { kind: 'string' } } },
} as const;

const credentialProviderFields = { providers: { kind: 'structs', fields: providerFields } } as const;

export type CredentialProviderConfig = Decoded<typeof credentialProviderFields>;
export type CredentialProvider = CredentialProviderConfig['providers'][number];

export const credentialProviderKind: ConfigKind = {
  kind: 'CredentialProviderConfig',
  apiVersions: ['v1alpha1', 'v1beta1', 'v1'].map((v) => `${kubeletConfigGroup}/${v}`),
  schemeName: 'pkg/credentialprovider/plugin/plugin.go',
  fields: credentialProviderFields,
};

/** The CredentialProviderRequest versions a plugin may speak, sorted as upstream lists them. */
const pluginApiVersions = ['v1', 'v1alpha1', 'v1beta1'].map((v) => `credentialprovider.kubelet.k8s.io/${v}`);

const hostAllowed = /^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]$/;

/**
 * The error of Go's url.Parse("https://" + image) (credentialprovider.ParseSchemelessURL) for the
 * mistakes a match image can hold: control characters, a bad percent escape, a character a host
 * may not have, a port that is not a number. Null when Go parses it.
 */
export function schemelessUrlError(image: string): string | null {
  const url = `https://${image}`;
  const fail = (detail: string): string => `parse ${goQuote(url)}: ${detail}`;
  if ([...image].some((ch) => ch < ' ' || ch === '\x7f')) return fail('net/url: invalid control character in URL');
  const end = image.search(/[/?#]/);
  const authority = end < 0 ? image : image.slice(0, end);
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const colon = hostPort.startsWith('[') ? hostPort.indexOf(':', hostPort.indexOf(']')) : hostPort.lastIndexOf(':');
  const host = colon < 0 ? hostPort : hostPort.slice(0, colon);
  const port = colon < 0 ? '' : hostPort.slice(colon);
  if (port !== '' && !/^:\d*$/.test(port)) return fail(`invalid port ${goQuote(port)} after host`);
  const escape = /%(?![0-9A-Fa-f]{2})/.exec(image);
  if (escape) return fail(`invalid URL escape ${goQuote(image.slice(escape.index, escape.index + 3))}`);
  for (const ch of host) {
    if (ch.charCodeAt(0) < 0x80 && ch !== '%' && !hostAllowed.test(ch)) return fail(`invalid character ${goQuote(ch)} in host name`);
  }
  return null;
}

/** validateCredentialProviderConfig: every field error, upstream's paths (no list index) and wording. */
export function validateCredentialProviderConfig(config: CredentialProviderConfig): FieldError[] {
  const errors: FieldError[] = [];
  const path = FieldPath.root('providers');
  if (config.providers.length === 0) errors.push(required(path, 'at least 1 item in plugins is required'));
  const seen = new Set<string>();
  for (const provider of config.providers) {
    const name = path.child('name');
    if (provider.name.includes('/')) errors.push(invalid(name, provider.name, "provider name cannot contain '/'"));
    if (provider.name.includes(' ')) errors.push(invalid(name, provider.name, 'provider name cannot contain spaces'));
    if (provider.name === '.') errors.push(invalid(name, provider.name, "provider name cannot be '.'"));
    if (provider.name === '..') errors.push(invalid(name, provider.name, "provider name cannot be '..'"));
    if (seen.has(provider.name)) errors.push(duplicate(name, provider.name));
    seen.add(provider.name);
    if (provider.apiVersion === '') errors.push(required(path.child('apiVersion')));
    else if (!pluginApiVersions.includes(provider.apiVersion)) errors.push(notSupported(path.child('apiVersion'), provider.apiVersion, pluginApiVersions));
    if (provider.matchImages.length === 0) errors.push(required(path.child('matchImages'), 'at least 1 item in matchImages is required'));
    for (const image of provider.matchImages) {
      const problem = schemelessUrlError(image);
      if (problem) errors.push(invalid(path.child('matchImages'), image, `match image is invalid: ${problem}`));
    }
    const cache = provider.defaultCacheDuration;
    if (cache === null) errors.push(required(path.child('defaultCacheDuration')));
    else if (cache < 0)
      errors.push({ ...invalid(path.child('defaultCacheDuration'), cache, 'must be greater than or equal to 0'), valueText: formatGoDuration(cache) });
  }
  return errors;
}

/**
 * Reads, decodes and validates the file at `path` and, when `binDir` is given, checks that it and
 * every provider's executable exist, as RegisterCredentialProviderPlugins does before the kubelet
 * runs. Returns the configuration, or every problem found as upstream words it.
 */
export function loadCredentialProviderConfig(path: string, binDir: string | undefined): { config: CredentialProviderConfig | null; errors: string[] } {
  if (binDir !== undefined && !existsSync(binDir)) return { config: null, errors: [`plugin binary directory ${binDir} did not exist`] };
  if (path === '') return { config: null, errors: ['credential provider config path is empty'] };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return { config: null, errors: [`unable to read external registry credential provider configuration from ${goQuote(path)}: ${goFileError(err, path)}`] };
  }
  let config: CredentialProviderConfig;
  try {
    const decoded = decodeConfig(text, credentialProviderKind);
    if (decoded.strictError !== null) throw new ConfigDecodeError(decoded.strictError);
    config = fill(decoded.value, credentialProviderFields);
  } catch (err) {
    if (err instanceof ConfigDecodeError) return { config: null, errors: [`error decoding config ${path}: ${err.message}`] };
    throw err;
  }
  const invalidFields = validateCredentialProviderConfig(config);
  if (invalidFields.length) return { config, errors: invalidFields.map((e) => `failed to validate credential provider config: ${fieldErrorString(e)}`) };
  const errors: string[] = [];
  if (binDir !== undefined) {
    for (const provider of config.providers) {
      const executable = join(binDir, provider.name);
      try {
        statSync(executable);
      } catch {
        errors.push(`plugin binary executable ${executable} did not exist`);
      }
    }
  }
  return { config, errors };
}

export interface RegistryAuth {
  username: string;
  password: string;
}

/**
 * The credentials of several matching providers combined, `results` in the providers' order: for
 * a registry key more than one provider returns, the earlier provider's entry wins.
 */
export function mergeProviderCredentials(results: readonly Readonly<Record<string, RegistryAuth>>[]): Record<string, RegistryAuth> {
  const merged: Record<string, RegistryAuth> = {};
  for (const result of results) for (const [key, auth] of Object.entries(result)) if (!Object.hasOwn(merged, key)) merged[key] = auth;
  return merged;
}
