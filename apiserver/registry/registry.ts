/**
 * The served API: which definitions are enabled (by default and by --runtime-config) and the
 * generic store of each. Routing and discovery read only this.
 */
import type { AdmissionChain } from '../admission/admission.ts';
import type { Storage } from '../storage/storage.ts';
import type { WatchCache } from '../storage/cache/watch-cache.ts';
import type { FieldManager } from './field-manager.ts';
import { createFieldManager } from './managed-fields.ts';
import { apiVersionOf, type ResourceDefinition } from './definition.ts';
import { GenericStore } from './store.ts';
import { ParseBoolError, tryParseBool } from '../../shared/go/parse-bool.ts';

export interface ServedResource {
  definition: ResourceDefinition;
  /** Absent for computed and review kinds, which are never stored. */
  store: GenericStore | undefined;
}

export interface GroupVersion {
  group: string;
  version: string;
}

/** `v1` / `group/v1` for a group version. */
export const groupVersionString = (gv: GroupVersion): string => apiVersionOf(gv);

/** Versions addressed by `api/ga`, `api/beta` and `api/alpha` (upstream's patterns). */
const stabilityPatterns: Record<string, RegExp | undefined> = {
  'api/all': /^/,
  'api/ga': /^v\d+$/,
  'api/beta': /^v\d+beta\d+$/,
  'api/alpha': /^v\d+alpha\d+$/,
};
/** Upstream applies the stability keys in this order, whatever their order in the flag. */
const stabilityKeys = ['api/all', 'api/ga', 'api/beta', 'api/alpha'] as const;

/**
 * The flag as pflag's ConfigurationMap reads it: comma separated `key[=value]`, both trimmed, a
 * later key replacing an earlier one; then kube-apiserver's aliases: `v1`, `api/v1` and anything
 * below them mean the core group (`/v1`), and `api/legacy` is dropped.
 */
function parseRuntimeConfigFlag(text: string): Map<string, string> {
  const raw = new Map<string, string>();
  for (const item of text.split(',')) {
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq < 0) raw.set(item.trim(), '');
    else raw.set(item.slice(0, eq).trim(), item.slice(eq + 1).trim());
  }
  const entries = new Map<string, string>();
  for (const [key, value] of raw) {
    if (key === 'api/legacy') continue;
    const core = key === 'v1' || key.startsWith('v1/') || key === 'api/v1' || key.startsWith('api/v1/');
    entries.set(core ? '/v1' : key, value);
  }
  return entries;
}

/**
 * Parses --runtime-config against the registered definitions (enabled or not) and returns whether
 * a definition is served, with upstream's rules and startup error messages:
 *
 * - keys: `api/all`, `api/ga`, `api/beta`, `api/alpha` (every registered version of that stability),
 *   `<group>/<version>`, `<group>/<version>/<resource>`, `v1` for the core group; a missing value
 *   means true (the spec's grammar; upstream rejects a bare `api/all`);
 * - precedence: stability keys (in the order above), then versions, then resources, each level
 *   replacing the finer choices of the level before;
 * - defaults: stable versions (`v<N>`) are served, alpha and beta ones are not; a definition's
 *   `enabledByDefault` overrides its version's default (beta APIs introduced before 1.22 declare
 *   `true`, off-by-default kinds of stable versions `false`).
 */
export function runtimeConfig(text: string, registered: readonly ResourceDefinition[]): (def: ResourceDefinition) => boolean {
  const entries = parseRuntimeConfigFlag(text);
  const groups = new Set(registered.map((d) => d.group));
  const versionDefaults = new Map<string, boolean>();
  const resourceDefaults = new Map<string, boolean>();
  for (const def of registered) {
    const gv = `${def.group}/${def.version}`;
    const stable = /^v\d+$/.test(def.version);
    versionDefaults.set(gv, stable);
    if (def.enabledByDefault !== undefined && def.enabledByDefault !== stable) resourceDefaults.set(`${gv}/${def.plural}`, def.enabledByDefault);
  }

  // Validation, before anything is applied (upstream's APIEnablementOptions.Validate).
  if (entries.get('api/all') === 'false' && entries.size === 1) throw new Error('invalid key with only api/all=false');
  const unknownGroups: string[] = [];
  for (const key of entries.keys()) {
    if (stabilityPatterns[key]) continue;
    const tokens = key.split('/');
    if (tokens.length !== 2 && tokens.length !== 3) throw new Error(`runtime-config invalid key ${key}`);
    if (!groups.has(tokens[0] ?? '')) unknownGroups.push(tokens[0] ?? '');
  }
  if (unknownGroups.length) throw new Error(`unknown api groups ${unknownGroups.join(',')}`);

  const versions = new Map(versionDefaults);
  const resources = new Map(resourceDefaults);
  const setVersion = (gv: string, enabled: boolean): void => {
    versions.set(gv, enabled);
    for (const key of [...resources.keys()]) if (key.startsWith(`${gv}/`)) resources.delete(key);
  };
  for (const key of stabilityKeys) {
    const value = entries.get(key);
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false' && value !== '') throw new Error(`invalid value ${key}=${value}`);
    const pattern = stabilityPatterns[key]!;
    for (const gv of versions.keys()) if (pattern.test(gv.slice(gv.indexOf('/') + 1))) setVersion(gv, value !== 'false');
  }
  const versionChoices: [string, boolean][] = [];
  const resourceChoices: [string, boolean][] = [];
  for (const [key, value] of entries) {
    if (stabilityPatterns[key]) continue;
    const [group = '', version = '', resource] = key.split('/');
    const gv = `${group}/${version}`;
    if (!versions.has(gv)) throw new Error(`group version ${group ? gv : version} that has not been registered`);
    const enabled = value === '' ? true : tryParseBool(value);
    if (enabled === undefined) throw new Error(`invalid value of ${key}: ${value}, err: ${new ParseBoolError(value).message}`);
    if (resource === undefined) {
      versionChoices.push([gv, enabled]);
    } else {
      if (resource.toLowerCase() !== resource) {
        throw new Error(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`);
      }
      resourceChoices.push([`${gv}/${resource}`, enabled]);
    }
  }
  for (const [gv, enabled] of versionChoices) setVersion(gv, enabled);
  for (const [gvr, enabled] of resourceChoices) resources.set(gvr, enabled);

  return (def) => {
    const gv = `${def.group}/${def.version}`;
    return resources.get(`${gv}/${def.plural}`) ?? versions.get(gv) ?? false;
  };
}

/** Server settings that shape how kinds are stored. */
export interface StoreSettings {
  /** `--event-ttl`: how long Events live after their last write; 0 or unset: forever. */
  eventTTLSeconds?: number;
}

export class Registry {
  private readonly byPath = new Map<string, ServedResource>();
  readonly resources: ServedResource[] = [];

  constructor(
    definitions: readonly ResourceDefinition[],
    etcd: Storage,
    admission: AdmissionChain,
    enabled: (def: ResourceDefinition) => boolean,
    watchCache?: WatchCache,
    /** Server settings kinds refer to (ResourceDefinition.timeToLive). */
    settings: StoreSettings = {},
    fieldManager: FieldManager = createFieldManager(),
  ) {
    for (const definition of definitions) {
      if (!enabled(definition)) continue;
      const ttlSeconds = definition.timeToLive ? settings[`${definition.timeToLive}Seconds`] : undefined;
      const served: ServedResource = {
        definition,
        store: definition.computed || definition.review ? undefined : new GenericStore(definition, etcd, admission, fieldManager, watchCache, ttlSeconds),
      };
      this.resources.push(served);
      this.byPath.set(`${definition.group}/${definition.version}/${definition.plural}`, served);
    }
  }

  lookup(group: string, version: string, plural: string): ServedResource | undefined {
    return this.byPath.get(`${group}/${version}/${plural}`);
  }

  /** Served group versions, groups in registration order, the core group first. */
  groupVersions(): GroupVersion[] {
    const seen = new Set<string>();
    const out: GroupVersion[] = [];
    for (const { definition } of this.resources) {
      const key = `${definition.group}/${definition.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ group: definition.group, version: definition.version });
    }
    return out;
  }

  resourcesOf(gv: GroupVersion): ServedResource[] {
    return this.resources.filter((r) => r.definition.group === gv.group && r.definition.version === gv.version);
  }

  /** The store of the core namespaces, which admission consults. */
  namespaces(): GenericStore | undefined {
    return this.lookup('', 'v1', 'namespaces')?.store;
  }
}
