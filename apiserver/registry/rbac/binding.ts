/**
 * What RoleBinding and ClusterRoleBinding share: defaults, validation, the escalation check and
 * upstream's table (Name, Role, Age, and the subjects by kind in wide columns).
 */
import type { ClusterRoleBinding, RoleBinding, Subject } from '../../../shared/api/rbac.ts';
import { onlyGarbageCollectorFields, type EscalationGuard } from '../../authorization/rbac/escalation.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
import type { Strategy, TableDefinition } from '../definition.ts';
import { defaultBinding, validateRoleRef, validateRoleRefUnchanged, validateSubjects } from './validation.ts';

type Binding = RoleBinding | ClusterRoleBinding;

/** Upstream's SubjectsStrings: users, groups and `namespace/name` service accounts. */
function subjectsByKind(subjects: readonly Subject[] | undefined): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of subjects ?? []) {
    if (s.kind === 'User') out.users.push(s.name);
    else if (s.kind === 'Group') out.groups.push(s.name);
    else if (s.kind === 'ServiceAccount') out.serviceAccounts.push(`${s.namespace ?? ''}/${s.name}`);
  }
  return out;
}

/** `kind` names the binding in the wide columns' descriptions (roleBinding, clusterRoleBinding). */
export function bindingTable<T extends Binding>(kind: string, roleRefDescription: string): TableDefinition<T> {
  return {
    columns: [
      nameColumn,
      { name: 'Role', type: 'string', description: roleRefDescription },
      ageColumn,
      { name: 'Users', type: 'string', priority: 1, description: `Users in the ${kind}` },
      { name: 'Groups', type: 'string', priority: 1, description: `Groups in the ${kind}` },
      { name: 'ServiceAccounts', type: 'string', priority: 1, description: `ServiceAccounts in the ${kind}` },
    ],
    cells: (binding, now) => {
      const { users, groups, serviceAccounts } = subjectsByKind(binding.subjects);
      return [
        binding.metadata.name,
        `${binding.roleRef.kind}/${binding.roleRef.name}`,
        age(binding, now),
        users.join(', '),
        groups.join(', '),
        serviceAccounts.join(', '),
      ];
    },
  };
}

/**
 * The strategy of a binding kind. `roleKinds`: what roleRef may name; `namespaced`: RoleBinding
 * (service account subjects default to its namespace, `bind` is checked there).
 */
export function bindingStrategy<T extends Binding>(
  guard: EscalationGuard,
  resource: 'rolebindings' | 'clusterrolebindings',
  roleKinds: readonly string[],
): Strategy<T> {
  const namespaced = resource === 'rolebindings';
  const validate = (binding: T) => [...validateRoleRef(binding.roleRef, roleKinds), ...validateSubjects(binding.subjects, namespaced)];
  return {
    allowCreateOnUpdate: true,
    async authorizeWrite(binding, old, ctx) {
      if (old && onlyGarbageCollectorFields(binding, old)) return;
      const roleRef = { ...binding.roleRef, apiGroup: binding.roleRef?.apiGroup || 'rbac.authorization.k8s.io' };
      await guard.confirmBinding(ctx.user, {
        resource,
        namespace: namespaced ? (binding.metadata.namespace ?? '') : '',
        name: binding.metadata.name ?? '',
        roleRef,
      });
    },
    prepareForCreate: (binding) => defaultBinding(binding),
    prepareForUpdate: (binding) => defaultBinding(binding),
    validate,
    validateUpdate: (binding, old) => [...validate(binding), ...(old.roleRef ? validateRoleRefUnchanged(binding.roleRef, old.roleRef) : [])],
  };
}
