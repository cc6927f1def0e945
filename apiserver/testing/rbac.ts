/** RBAC test doubles: an in-memory RbacSource and request attributes. */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../../shared/api/rbac.ts';
import type { AuthorizationAttributes } from '../authorization/authorizer.ts';
import type { RbacSource } from '../authorization/rbac/authorizer.ts';

/** An in-memory RbacSource; `changes` moves on every edit, as the watch cache's counter does. */
export class MemorySource implements RbacSource {
  clusterRoles = new Map<string, ClusterRole>();
  roles = new Map<string, Role>();
  crbs: ClusterRoleBinding[] = [];
  rbs: RoleBinding[] = [];
  changes = 0;
  clusterRole = (name: string) => this.clusterRoles.get(name);
  role = (namespace: string, name: string) => this.roles.get(`${namespace}/${name}`);
  clusterRoleBindings = () => this.crbs;
  roleBindings = () => this.rbs;
  bindingChanges = () => this.changes;
  addClusterRole(name: string, rules: ClusterRole['rules']): void {
    this.clusterRoles.set(name, { kind: 'ClusterRole', metadata: { name }, ...(rules ? { rules } : {}) });
  }
  addRole(namespace: string, name: string, rules: Role['rules']): void {
    this.roles.set(`${namespace}/${name}`, { kind: 'Role', metadata: { name, namespace }, ...(rules ? { rules } : {}) });
  }
  bind(binding: RoleBinding | ClusterRoleBinding): void {
    if (binding.metadata.namespace) this.rbs.push({ ...binding, kind: 'RoleBinding' });
    else this.crbs.push({ ...binding, kind: 'ClusterRoleBinding' });
    this.changes++;
  }
}

export const user = (name: string, ...groups: string[]) => ({ username: name, groups: [...groups, 'system:authenticated'] });
export const ask = (verb: string, resource: string, namespace = '', more: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  verb,
  isResourceRequest: true,
  path: '',
  namespace,
  apiGroup: '',
  apiVersion: 'v1',
  resource,
  subresource: '',
  name: '',
  ...more,
});
