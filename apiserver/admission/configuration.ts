/**
 * The admission configuration file (`--admission-control-config-file`, upstream's
 * AdmissionConfiguration of apiserver.config.k8s.io/v1): per plugin, its configuration inline
 * (`configuration`) or in a file (`path`, relative to this file's directory). Read once at start;
 * every problem stops the server with the file named.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isObject } from '../../shared/api/types.ts';

const acceptedVersions = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1'];

/** Each named plugin's configuration document (a parsed YAML or JSON object). */
export type PluginConfigurations = ReadonlyMap<string, Record<string, unknown>>;

function readDocument(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`unable to read ${what} from ${JSON.stringify(path)} [${err instanceof Error ? err.message : String(err)}]`);
  }
  try {
    return parseYaml(text);
  } catch (err) {
    throw new Error(`unable to decode ${what} ${JSON.stringify(path)}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function loadAdmissionConfiguration(file: string): PluginConfigurations {
  const doc = readDocument(file, 'admission control configuration');
  if (!isObject(doc)) throw new Error(`admission control configuration ${JSON.stringify(file)} is not an object`);
  if (doc.kind !== 'AdmissionConfiguration' || typeof doc.apiVersion !== 'string' || !acceptedVersions.includes(doc.apiVersion)) {
    throw new Error(`admission control configuration ${JSON.stringify(file)} must be kind AdmissionConfiguration of ${acceptedVersions.join(', ')}`);
  }
  const out = new Map<string, Record<string, unknown>>();
  const plugins = doc.plugins ?? [];
  if (!Array.isArray(plugins)) throw new Error(`admission control configuration ${JSON.stringify(file)}: plugins must be a list`);
  for (const [i, entry] of plugins.entries()) {
    if (!isObject(entry) || typeof entry.name !== 'string' || !entry.name)
      throw new Error(`admission control configuration ${JSON.stringify(file)}: plugins[${i}] needs a name`);
    let configuration: unknown = entry.configuration;
    if (typeof entry.path === 'string' && entry.path) {
      const path = resolve(dirname(file), entry.path);
      configuration = readDocument(path, `the configuration of admission plugin ${entry.name}`);
    }
    if (!isObject(configuration))
      throw new Error(`admission control configuration ${JSON.stringify(file)}: plugin ${entry.name} has neither a path nor a configuration`);
    out.set(entry.name, configuration);
  }
  return out;
}
