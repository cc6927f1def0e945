/**
 * What the API serves, read from its discovery documents (`/api`, `/api/v1`, `/apis`,
 * `/apis/<group>/<version>`), so that controllers working over every kind (garbage collector,
 * namespace deletion) cover kinds added later without a list in their code. Only top-level
 * resources are returned (no subresources), in each group's preferred version.
 *
 * As client-go's discovery, a group version that cannot be read does not hide the others: the
 * answer holds what could be discovered and says which failed (`discoveryFailure`), so a
 * controller works on what it knows and reports the rest.
 */
import type { ApiClient, ResourceRef } from '../../shared/client/api-client.ts';
import { apiVersionOf, isObject, type KubeObject } from '../../shared/api/types.ts';

export interface ServedResource extends ResourceRef {
  kind: string;
  verbs: string[];
}

interface ResourceList extends KubeObject {
  resources?: { name: string; namespaced: boolean; kind: string; verbs: string[] }[];
}

export interface Discovery {
  resources: ServedResource[];
  /** The group versions that could not be read, with why; empty when discovery was complete. */
  failed: { groupVersion: string; message: string }[];
}

/** client-go's ErrGroupDiscoveryFailed text for an incomplete discovery; undefined when complete. */
export function discoveryFailure(discovery: Discovery): string | undefined {
  if (!discovery.failed.length) return undefined;
  return `unable to retrieve the complete list of server APIs: ${discovery.failed.map((f) => `${f.groupVersion}: ${f.message}`).join(', ')}`;
}

/** Every top-level resource in each group's preferred version (core v1 included); throws only when the group list itself fails. */
export async function servedResources(api: ApiClient): Promise<Discovery> {
  const versions: { group: string; version: string }[] = [{ group: '', version: 'v1' }];
  const groups = await api.get<KubeObject & { groups?: unknown[] }>('/apis');
  for (const group of groups.groups ?? []) {
    if (!isObject(group) || typeof group['name'] !== 'string') continue;
    const preferred = group['preferredVersion'];
    if (isObject(preferred) && typeof preferred['version'] === 'string') versions.push({ group: group['name'], version: preferred['version'] });
  }
  const failed: Discovery['failed'] = [];
  const lists = await Promise.all(
    versions.map(async ({ group, version }) => {
      try {
        const list = await api.get<ResourceList>(group ? `/apis/${group}/${version}` : `/api/${version}`);
        return (list.resources ?? [])
          .filter((r) => !r.name.includes('/'))
          .map((r): ServedResource => ({ group, version, resource: r.name, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs }));
      } catch (err) {
        failed.push({ groupVersion: apiVersionOf({ group, version }), message: err instanceof Error ? err.message : String(err) });
        return [];
      }
    }),
  );
  return { resources: lists.flat(), failed };
}
