/**
 * The served API: which definitions are enabled (by default and by --runtime-config) and the
 * generic store of each. Routing and discovery read only this.
 */
import type { AdmissionChain } from '../admission/admission.ts';
import type { EtcdStore } from '../storage/etcd/store.ts';
import type { WatchCache } from '../storage/cache/watch-cache.ts';
import type { FieldManager } from './field-manager.ts';
import { createFieldManager } from './managed-fields.ts';
import { apiVersionOf, type ResourceDefinition } from './definition.ts';
import { GenericStore } from './store.ts';

export interface ServedResource {
  definition: ResourceDefinition;
  /** Absent for computed kinds, which are never stored. */
  store: GenericStore | undefined;
}

export interface GroupVersion {
  group: string;
  version: string;
}

/** `v1` / `group/v1` for a group version. */
export const groupVersionString = (gv: GroupVersion): string => apiVersionOf(gv);

/**
 * Parses --runtime-config (`group/version[=bool]`, `group/version/resource[=bool]`, `api/all`,
 * `api/alpha`, `api/beta`, comma separated) into a decision function for a definition.
 */
export function runtimeConfig(text: string): (def: ResourceDefinition) => boolean {
  const entries: { key: string; enabled: boolean }[] = [];
  for (const raw of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = raw.indexOf('=');
    const key = eq < 0 ? raw : raw.slice(0, eq);
    const value = eq < 0 ? 'true' : raw.slice(eq + 1).toLowerCase();
    if (value !== 'true' && value !== 'false') throw new Error(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing "${value}": invalid syntax`);
    entries.push({ key: key === 'v1' ? 'api/v1' : key, enabled: value === 'true' });
  }
  return (def) => {
    let enabled = def.enabledByDefault ?? !/alpha|beta/.test(def.version);
    const gv = def.group ? `${def.group}/${def.version}` : `api/${def.version}`;
    for (const { key, enabled: on } of entries) {
      if (key === 'api/all') enabled = on;
      else if (key === 'api/alpha' && def.version.includes('alpha')) enabled = on;
      else if (key === 'api/beta' && def.version.includes('beta')) enabled = on;
      else if (key === gv) enabled = on;
      else if (key === `${gv}/${def.plural}`) enabled = on;
    }
    return enabled;
  };
}

export class Registry {
  private readonly byPath = new Map<string, ServedResource>();
  readonly resources: ServedResource[] = [];

  constructor(
    definitions: readonly ResourceDefinition[],
    etcd: EtcdStore,
    admission: AdmissionChain,
    enabled: (def: ResourceDefinition) => boolean,
    watchCache?: WatchCache,
    fieldManager: FieldManager = createFieldManager(),
  ) {
    for (const definition of definitions) {
      if (!enabled(definition)) continue;
      const served: ServedResource = {
        definition,
        store: definition.computed ? undefined : new GenericStore(definition, etcd, admission, fieldManager, watchCache),
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
