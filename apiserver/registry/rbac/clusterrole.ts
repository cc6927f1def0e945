/**
 * ClusterRole (rbac.authorization.k8s.io/v1): rules granted cluster-wide by ClusterRoleBindings,
 * or within one namespace by RoleBindings. With an aggregationRule its rules are the union of the
 * rules of the ClusterRoles its selectors match, kept current by the aggregation controller.
 * Writing one needs every permission it grants; setting an aggregationRule needs full authority.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ClusterRole } from '../../../shared/api/rbac.ts';
import { describe, kindSchema, pb } from '../../../shared/api/schema.ts';
import { nameIsPathSegment } from '../../../shared/validation/names.ts';
import { onlyGarbageCollectorFields, type EscalationGuard } from '../../authorization/rbac/escalation.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { aggregationRule, policyRules } from './schema.ts';
import { aggregationHasInvalidLabelValues, validateAggregationRule, validatePolicyRules } from './validation.ts';

export function clusterRoleDefinition(guard: EscalationGuard) {
  return defineResource<ClusterRole>({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    singular: 'clusterrole',
    namespaced: false,
    verbs: allVerbs,
    nameRule: nameIsPathSegment,
    schema: describe(
      kindSchema({
        rules: policyRules(),
        aggregationRule: pb(3, describe(aggregationRule(), 'Builds the rules from other ClusterRoles; the rules are then managed for you.')),
      }),
      'Rules granted cluster-wide by ClusterRoleBindings, or within a namespace by RoleBindings.',
    ),
    strategy: {
      allowCreateOnUpdate: true,
      async authorizeWrite(role, old, ctx) {
        if (old && onlyGarbageCollectorFields(role, old)) return;
        const setsAggregationRule = role.aggregationRule !== undefined && !isDeepStrictEqual(role.aggregationRule, old?.aggregationRule);
        await guard.confirmRoleWrite(ctx.user, {
          resource: 'clusterroles',
          namespace: '',
          name: role.metadata.name ?? '',
          rules: role.rules ?? [],
          setsAggregationRule,
        });
      },
      validate: (role) => [...validatePolicyRules(role.rules, false), ...validateAggregationRule(role.aggregationRule, false)],
      validateUpdate: (role, old) => [
        ...validatePolicyRules(role.rules, false),
        ...validateAggregationRule(role.aggregationRule, aggregationHasInvalidLabelValues(old.aggregationRule)),
      ],
    },
  });
}
