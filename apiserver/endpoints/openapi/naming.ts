/**
 * Names in OpenAPI documents, as upstream spells them: component schemas
 * `io.k8s.api.<package>.<version>.<Kind>` (kinds and the structs schema.ts `named()` marks) and the
 * apimachinery types', operation ids `<verb><Group><Version>[Namespaced]<Kind>[<Subresource>]`,
 * tags `<group>_<version>`, paths and /openapi/v3 keys of group versions, and group version kinds
 * (`x-kubernetes-group-version-kind`).
 */
import type { ResourceDefinition } from '../../registry/definition.ts';
import type { GroupVersion } from '../../registry/registry.ts';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export const gvkList = (kind: string, groupVersions: readonly GroupVersion[]): GroupVersionKind[] =>
  groupVersions.map((gv) => ({ group: gv.group, kind, version: gv.version }));

export function gvkOf(def: ResourceDefinition, kind = def.kind): GroupVersionKind {
  return { group: def.group, kind, version: def.version };
}

export const metaName = (kind: string): string => `io.k8s.apimachinery.pkg.apis.meta.v1.${kind}`;

export const names = {
  fieldsV1: metaName('FieldsV1'),
  time: metaName('Time'),
  microTime: metaName('MicroTime'),
  status: metaName('Status'),
  deleteOptions: metaName('DeleteOptions'),
  patch: metaName('Patch'),
  watchEvent: metaName('WatchEvent'),
  apiResourceList: metaName('APIResourceList'),
  apiResource: metaName('APIResource'),
  apiGroupList: metaName('APIGroupList'),
  apiGroup: metaName('APIGroup'),
  apiVersions: metaName('APIVersions'),
  groupVersionForDiscovery: metaName('GroupVersionForDiscovery'),
  serverAddressByClientCIDR: metaName('ServerAddressByClientCIDR'),
  rawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
  quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
  intOrString: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  versionInfo: 'io.k8s.apimachinery.pkg.version.Info',
} as const;

/** Groups whose Go types live outside k8s.io/api, by the package prefix of their schema names. */
const packagePrefixes: Readonly<Record<string, string>> = {
  'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
  'apiregistration.k8s.io': 'io.k8s.kube-aggregator.pkg.apis.apiregistration',
  'internal.apiserver.k8s.io': 'io.k8s.api.apiserverinternal',
};

/** The component schema name of a kind, as upstream's OpenAPI names it (io.k8s.api.core.v1.ConfigMap). */
export function schemaName(group: string, version: string, kind: string): string {
  const prefix = packagePrefixes[group] ?? `io.k8s.api.${group === '' ? 'core' : (group.split('.')[0] ?? group)}`;
  return `${prefix}.${version}.${kind}`;
}

/**
 * Upstream's operation id word for a path segment: letters and `_` kept, digits kept unless first,
 * every other character dropped and the next kept letter upper-cased.
 */
export function identifier(text: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  [...text].forEach((ch, i) => {
    if (/\p{L}/u.test(ch) || ch === '_' || (i > 0 && /\p{Nd}/u.test(ch))) {
      out += capitalize ? ch.toUpperCase() : ch;
      capitalize = false;
    } else {
      capitalize = true;
    }
  });
  return out;
}

/** The group's word in operation ids and tags: `core` for the legacy group, `.k8s.io` trimmed. */
export const groupWord = (group: string): string => (group === '' ? 'core' : group.replace(/\.k8s\.io$/, ''));

export const operationGroupVersion = (gv: GroupVersion): string => identifier(groupWord(gv.group), true) + identifier(gv.version, true);

export const groupVersionTag = (gv: GroupVersion): string => `${identifier(groupWord(gv.group), false)}_${identifier(gv.version, false)}`;

export const apiPrefix = (gv: GroupVersion): string => (gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`);

/** The /openapi/v3 key of a group version: `api/v1`, `apis/<group>/<version>`. */
export const groupVersionKey = (gv: GroupVersion): string => apiPrefix(gv).slice(1);

/** "a"/"an" before a kind; none before a plural-looking kind (Endpoints), as upstream's docs read. */
export function article(kind: string): string {
  if (!kind.endsWith('ss') && kind.endsWith('s')) return ' ';
  return /^[aeiouAEIOU]/.test(kind) ? ' an ' : ' a ';
}

export const title = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
