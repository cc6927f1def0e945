/**
 * Role (rbac.authorization.k8s.io/v1): rules granted within one namespace by the RoleBindings that
 * reference it. Writing one needs every permission it grants (see EscalationGuard).
 */
import type { Role } from '../../../shared/api/rbac.ts';
import { describe, kindSchema } from '../../../shared/api/schema.ts';
import { nameIsPathSegment } from '../../../shared/validation/names.ts';
import { onlyGarbageCollectorFields, type EscalationGuard } from '../../authorization/rbac/escalation.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { policyRules } from './schema.ts';
import { validatePolicyRules } from './validation.ts';

export function roleDefinition(guard: EscalationGuard) {
  return defineResource<Role>({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'Role',
    plural: 'roles',
    singular: 'role',
    namespaced: true,
    verbs: allVerbs,
    nameRule: nameIsPathSegment,
    schema: describe(kindSchema({ rules: policyRules() }), 'Rules granted within its namespace by the RoleBindings that reference it.'),
    strategy: {
      allowCreateOnUpdate: true,
      async authorizeWrite(role, old, ctx) {
        if (old && onlyGarbageCollectorFields(role, old)) return;
        const namespace = role.metadata.namespace ?? '';
        await guard.confirmRoleWrite(ctx.user, {
          resource: 'roles',
          namespace,
          name: role.metadata.name ?? '',
          rules: role.rules ?? [],
          setsAggregationRule: false,
        });
      },
      validate: (role) => validatePolicyRules(role.rules, true),
    },
  });
}
