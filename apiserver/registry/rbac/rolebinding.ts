/**
 * RoleBinding (rbac.authorization.k8s.io/v1): grants a Role of its namespace, or a ClusterRole,
 * to users, groups and service accounts within its namespace. roleRef never changes; writing one
 * needs `bind` on the role or every permission it grants.
 */
import type { RoleBinding } from '../../../shared/api/rbac.ts';
import { describe, kindSchema } from '../../../shared/api/schema.ts';
import { nameIsPathSegment } from '../../../shared/validation/names.ts';
import type { EscalationGuard } from '../../authorization/rbac/escalation.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { bindingStrategy, bindingTable } from './binding.ts';
import { bindingFields } from './schema.ts';

export function roleBindingDefinition(guard: EscalationGuard) {
  return defineResource<RoleBinding>({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'RoleBinding',
    plural: 'rolebindings',
    singular: 'rolebinding',
    namespaced: true,
    verbs: allVerbs,
    nameRule: nameIsPathSegment,
    schema: describe(kindSchema(bindingFields(), ['roleRef']), 'Grants a Role or ClusterRole to users, groups and service accounts within its namespace.'),
    strategy: bindingStrategy<RoleBinding>(guard, 'rolebindings', ['Role', 'ClusterRole']),
    table: bindingTable<RoleBinding>(
      'roleBinding',
      'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
    ),
  });
}
