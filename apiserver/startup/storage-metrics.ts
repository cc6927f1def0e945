/** What the metrics of a replica read from its registry: object counts and the resource of an etcd key. */
import type { Registry } from '../registry/registry.ts';
import type { StorageObjectCount } from '../server/metrics.ts';
import type { WatchCache } from '../storage/cache/watch-cache.ts';

/** The number of objects of each stored resource, read from the watch cache; a resource stored for two groups counts once. */
export function storageObjectCounts(registry: Registry, watchCache: WatchCache): StorageObjectCount[] {
  const seen = new Set<string>();
  const out: StorageObjectCount[] = [];
  for (const { definition, store } of registry.resources) {
    if (!store) continue;
    const stored = definition.storage?.resource ?? definition.plural;
    if (seen.has(stored)) continue;
    seen.add(stored);
    out.push({ resource: definition.group ? `${definition.plural}.${definition.group}` : definition.plural, count: watchCache.resource(stored).size });
  }
  return out;
}

/** The group resource an etcd key belongs to (etcd_request_duration_seconds' `type`), by its storage resource. */
export function etcdTypeResolver(registry: Registry, prefix: string): (key: string) => string {
  const byStorage = new Map<string, string>();
  for (const { definition, store } of registry.resources) {
    if (!store) continue;
    const stored = definition.storage?.resource ?? definition.plural;
    if (!byStorage.has(stored)) byStorage.set(stored, definition.group ? `${definition.plural}.${definition.group}` : definition.plural);
  }
  return (key) => {
    const rest = key.slice(prefix.length + 1);
    const slash = rest.indexOf('/');
    const stored = slash < 0 ? rest : rest.slice(0, slash);
    return byStorage.get(stored) ?? stored;
  };
}
