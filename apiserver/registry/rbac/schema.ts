/** The schemas of rbac.authorization.k8s.io/v1's shared types (field numbers from upstream's generated.proto). */
import { atomicArray, describe, labelSelector, named, neverOmitted, object, pb, string, type Schema } from '../../../shared/api/schema.ts';

export const policyRule = (): Schema =>
  named(
    'io.k8s.api.rbac.v1.PolicyRule',
    'One grant: verbs on resources of API groups (optionally only named objects), or verbs on non-resource URLs.',
    object(
      {
        verbs: pb(1, describe(atomicArray(string()), "Verbs granted on every resource the rule names; '*' is every verb.")),
        apiGroups: pb(2, describe(atomicArray(string()), `API groups of the resources; "" is the core group, '*' every group.`)),
        resources: pb(3, describe(atomicArray(string()), "Resources, or resource/subresource; '*' is every resource, '*/status' every status subresource.")),
        resourceNames: pb(4, describe(atomicArray(string()), 'Names of the objects the rule grants; empty grants every object.')),
        nonResourceURLs: pb(
          5,
          describe(
            atomicArray(string()),
            "Paths that are not resources (/healthz); a final '*' matches a prefix. Only in ClusterRoles bound by ClusterRoleBindings.",
          ),
        ),
      },
      ['verbs'],
    ),
  );

export const policyRules = (): Schema => pb(2, describe(atomicArray(policyRule()), 'The grants of this role.'));

const subject = (): Schema =>
  named('io.k8s.api.rbac.v1.Subject', 'Who a binding grants to: a User, a Group or a ServiceAccount.', {
    ...object(
      {
        kind: pb(1, neverOmitted(string('User, Group or ServiceAccount.'))),
        apiGroup: pb(2, string('rbac.authorization.k8s.io for User and Group (the default), "" for ServiceAccount.')),
        name: pb(3, neverOmitted(string('The name of the user, group or service account.'))),
        namespace: pb(4, string('The namespace of a ServiceAccount; a RoleBinding defaults it to its own.')),
      },
      ['kind', 'name'],
    ),
    'x-kubernetes-map-type': 'atomic',
  });

const roleRef = (): Schema =>
  named('io.k8s.api.rbac.v1.RoleRef', 'The role a binding grants.', {
    ...object(
      {
        apiGroup: pb(1, neverOmitted(string('rbac.authorization.k8s.io.'))),
        kind: pb(2, neverOmitted(string('Role (RoleBindings only) or ClusterRole.'))),
        name: pb(3, neverOmitted(string('The name of the role.'))),
      },
      ['apiGroup', 'kind', 'name'],
    ),
    'x-kubernetes-map-type': 'atomic',
  });

/** subjects and roleRef, the fields every binding has. */
export const bindingFields = (): Record<string, Schema> => ({
  subjects: pb(2, describe(atomicArray(subject()), 'Who the role is granted to.')),
  roleRef: pb(3, describe(roleRef(), 'The role granted; it cannot change. A missing role grants nothing.')),
});

export const aggregationRule = (): Schema =>
  named(
    'io.k8s.api.rbac.v1.AggregationRule',
    'Which ClusterRoles are aggregated into this one.',
    object({
      clusterRoleSelectors: pb(1, describe(atomicArray(labelSelector()), 'ClusterRoles matched by any selector contribute their rules.')),
    }),
  );
