/**
 * The wire shapes of rbac.authorization.k8s.io/v1, shared by the four RBAC kinds, the RBAC
 * authorizer and the bootstrap policy. Optional lists are optional as they are in Go (nil slices).
 */
import type { LabelSelectorObject } from '../selectors/labels.ts';
import type { KubeObject } from './types.ts';

export const rbacGroup = 'rbac.authorization.k8s.io';

/** One grant: verbs on resources of API groups (optionally named), or verbs on non-resource URLs. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** Who a binding grants to: `User`, `Group` (apiGroup rbac.authorization.k8s.io) or `ServiceAccount` (apiGroup ""). */
export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  /** ServiceAccount only. */
  namespace?: string;
}

/** The role a binding grants: `Role` (RoleBinding only, same namespace) or `ClusterRole`. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface AggregationRule {
  clusterRoleSelectors?: LabelSelectorObject[];
}

export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  /** When set, the rules are the union of the rules of the ClusterRoles the selectors match. */
  aggregationRule?: AggregationRule;
}

export interface RoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}

export interface ClusterRoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}

/** Annotation on bootstrap policy objects: "false" stops the server from reconciling them at start. */
export const autoUpdateAnnotation = 'rbac.authorization.kubernetes.io/autoupdate';
/** Label on bootstrap policy objects. */
export const bootstrappingLabel = 'kubernetes.io/bootstrapping';
export const bootstrappingLabelValue = 'rbac-defaults';
