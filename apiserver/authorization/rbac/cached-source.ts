/**
 * RBAC objects as the watch cache holds them: the API server's own copy of etcd, kept current by
 * its watch, so authorization reads memory only. The cache shares its objects: they are read here,
 * never changed.
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../../../shared/api/rbac.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import type { ResourceCache, WatchCache } from '../../storage/cache/watch-cache.ts';
import type { RbacSource } from './authorizer.ts';

/** Stored under `<prefix>/<resource>/`, as the registry stores the four RBAC kinds. */
const storedResources = { roles: 'roles', roleBindings: 'rolebindings', clusterRoles: 'clusterroles', clusterRoleBindings: 'clusterrolebindings' } as const;

export class CachedRbacSource implements RbacSource {
  private readonly roles: ResourceCache;
  private readonly roleBindingCache: ResourceCache;
  private readonly clusterRoles: ResourceCache;
  private readonly clusterRoleBindingCache: ResourceCache;

  constructor(watchCache: WatchCache) {
    this.roles = watchCache.resource(storedResources.roles);
    this.roleBindingCache = watchCache.resource(storedResources.roleBindings);
    this.clusterRoles = watchCache.resource(storedResources.clusterRoles);
    this.clusterRoleBindingCache = watchCache.resource(storedResources.clusterRoleBindings);
  }

  clusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get(this.clusterRoles.prefix + name)?.object;
  }

  role(namespace: string, name: string): Role | undefined {
    return this.roles.get(`${this.roles.prefix}${namespace}/${name}`)?.object;
  }

  clusterRoleBindings(): ClusterRoleBinding[] {
    return objects<ClusterRoleBinding>(this.clusterRoleBindingCache);
  }

  roleBindings(): RoleBinding[] {
    return objects<RoleBinding>(this.roleBindingCache);
  }

  bindingChanges(): number {
    return this.roleBindingCache.changes + this.clusterRoleBindingCache.changes;
  }
}

function objects<T extends KubeObject>(cache: ResourceCache): T[] {
  return cache.list(cache.prefix).map((v) => v.object as T);
}
