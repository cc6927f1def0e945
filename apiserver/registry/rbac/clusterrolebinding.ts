/**
 * ClusterRoleBinding (rbac.authorization.k8s.io/v1): grants a ClusterRole to users, groups and
 * service accounts in every namespace and at cluster scope. roleRef never changes; writing one
 * needs `bind` on the ClusterRole or every permission it grants.
 */
import type { ClusterRoleBinding } from '../../../shared/api/rbac.ts';
import { describe, kindSchema } from '../../../shared/api/schema.ts';
import { nameIsPathSegment } from '../../../shared/validation/names.ts';
import type { EscalationGuard } from '../../authorization/rbac/escalation.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { bindingStrategy, bindingTable } from './binding.ts';
import { bindingFields } from './schema.ts';

export function clusterRoleBindingDefinition(guard: EscalationGuard) {
  return defineResource<ClusterRoleBinding>({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    singular: 'clusterrolebinding',
    namespaced: false,
    verbs: allVerbs,
    nameRule: nameIsPathSegment,
    schema: describe(kindSchema(bindingFields(), ['roleRef']), 'Grants a ClusterRole to users, groups and service accounts everywhere.'),
    strategy: bindingStrategy<ClusterRoleBinding>(guard, 'clusterrolebindings', ['ClusterRole']),
    table: bindingTable<ClusterRoleBinding>(
      'clusterRoleBinding',
      'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
    ),
  });
}
