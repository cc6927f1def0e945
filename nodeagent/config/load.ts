/**
 * The node agent's configuration from its command line, in the kubelet's order
 * (cmd/kubelet/app/server.go): flags parsed; without --config, the flags apply over the command
 * line's defaults (upstream's defaults with applyLegacyDefaults); with it, the file is loaded and
 * defaulted and the flags given explicitly are applied over it again, feature gates merged; then
 * the feature gates are set and the whole configuration validated, and the credential provider
 * configuration read. Every problem is collected and thrown together, before anything starts.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { FlagReader } from '../../shared/process/flags.ts';
import { loadCredentialProviderConfig, type CredentialProviderConfig } from './credential-provider.ts';
import { ConfigDecodeError, decodeConfig, type ConfigKind } from './decode.ts';
import { defaultKubeletConfiguration, flagDefaultKubeletConfiguration } from './defaults.ts';
import { FeatureGates } from './feature-gates.ts';
import { kubeletConfigKind, kubeletConfigVersion, kubeletFields, type KubeletConfiguration } from './fields.ts';
import { applyConfigFlags, parseNodeAgentArgv, readAgentFlags, readConfigFlags, type NodeAgentFlags } from './flags.ts';
import { goFileError } from './go-file-error.ts';
import { validateKubeletConfiguration } from './validation.ts';

export const kubeletConfigurationKind: ConfigKind = {
  kind: kubeletConfigKind,
  apiVersions: [kubeletConfigVersion],
  schemeName: 'k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32',
  fields: kubeletFields,
};

/** A configuration file's error, wrapped as the kubelet wraps it. */
export class ConfigFileError extends Error {}

/**
 * The file at `path` (fsLoader.Load): read, decoded, defaulted, with relative paths made absolute
 * against the file's directory. Unknown and duplicate fields are tolerated as the kubelet
 * tolerates them for v1beta1 (lenient decoding, with a warning). Throws ConfigFileError.
 */
export function loadKubeletConfigFile(path: string): { config: KubeletConfiguration; warnings: string[] } {
  const failure = (detail: string): ConfigFileError =>
    new ConfigFileError(`failed to load kubelet config file, path: ${path}, error: failed to load Kubelet config file ${path}, error ${detail}`);
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw failure(`failed to read kubelet config file ${JSON.stringify(file)}, error: ${goFileError(err, file)}`);
  }
  if (text === '') throw failure(`kubelet config file ${JSON.stringify(file)} was empty`);
  const warnings: string[] = [];
  let config: KubeletConfiguration;
  try {
    const decoded = decodeConfig(text, kubeletConfigurationKind);
    // v1beta1 falls back to lenient decoding: the strict error is logged, the object kept.
    if (decoded.strictError !== null) warnings.push(`Using lenient decoding as strict decoding failed: ${decoded.strictError}`);
    config = defaultKubeletConfiguration(decoded.value);
  } catch (err) {
    if (err instanceof ConfigDecodeError) throw failure(`failed to decode: ${err.message}`);
    throw err;
  }
  resolveRelativePaths(config, dirname(file));
  return { config, warnings };
}

/** KubeletConfigurationPathRefs made absolute against `root` (empty ones stay empty). */
function resolveRelativePaths(config: KubeletConfiguration, root: string): void {
  const absolute = (path: string): string => (path === '' || isAbsolute(path) ? path : join(root, path));
  config.staticPodPath = absolute(config.staticPodPath);
  config.authentication.x509.clientCAFile = absolute(config.authentication.x509.clientCAFile);
  config.tlsCertFile = absolute(config.tlsCertFile);
  config.tlsPrivateKeyFile = absolute(config.tlsPrivateKeyFile);
  config.resolvConf = absolute(config.resolvConf);
  config.volumePluginDir = absolute(config.volumePluginDir);
}

export interface NodeAgentConfig {
  config: KubeletConfiguration;
  flags: NodeAgentFlags;
  /** Null unless --image-credential-provider-config is given. */
  credentialProviders: CredentialProviderConfig | null;
  featureGates: FeatureGates;
  /** What upstream logs on the way: deprecated flags, lenient decoding, GA gates set. */
  warnings: string[];
}

/**
 * The node agent's configuration from its arguments (without the program name). Throws one Error
 * listing every problem, one per line, in upstream's words.
 */
export function loadNodeAgentConfig(argv: string[]): NodeAgentConfig {
  const values = parseNodeAgentArgv(argv);
  const reader = new FlagReader(values);
  const flags = readAgentFlags(values, reader);
  const given = readConfigFlags(values, reader);
  reader.finish();

  const warnings: string[] = [];
  let config: KubeletConfiguration;
  if (flags.config === undefined) {
    config = flagDefaultKubeletConfiguration();
    warnings.push(...applyConfigFlags(config, given));
  } else {
    const loaded = loadKubeletConfigFile(flags.config);
    config = loaded.config;
    warnings.push(...applyConfigFlags(config, given), ...loaded.warnings);
  }

  const errors: string[] = [];
  let featureGates: FeatureGates;
  try {
    const set = FeatureGates.from(config.featureGates);
    featureGates = set.gates;
    warnings.push(...set.warnings);
  } catch (err) {
    // ValidateKubeletConfiguration returns this error alone: nothing else is judged without the gates.
    throw new Error(`failed to set feature gates from initial flags-based config: ${err instanceof Error ? err.message : String(err)}`);
  }
  errors.push(...validateKubeletConfiguration(config, featureGates));

  let credentialProviders: CredentialProviderConfig | null = null;
  if (flags.imageCredentialProviderConfig !== undefined) {
    const loaded = loadCredentialProviderConfig(flags.imageCredentialProviderConfig, flags.imageCredentialProviderBinDir);
    credentialProviders = loaded.config;
    errors.push(...loaded.errors);
  }
  if (errors.length) throw new Error(errors.join('\n'));
  return { config, flags, credentialProviders, featureGates, warnings };
}
