/**
 * Validation and defaults shared by the four RBAC kinds, as upstream's rbac validation and
 * defaulting: rules need verbs and either resources with API groups or non-resource URLs (never
 * both, and never URLs in a namespaced Role); bindings reference a Role or ClusterRole of
 * rbac.authorization.k8s.io and name User, Group or ServiceAccount subjects.
 *
 * Verbs are free words, as upstream keeps them: besides the API verbs, rules grant `bind`,
 * `escalate`, `impersonate`, `approve`, `sign` and whatever an extension checks.
 */
import { append } from '../../../shared/api/append.ts';
import { FieldPath, invalid, notSupported, required, type FieldError } from '../../../shared/api/field.ts';
import { rbacGroup, type AggregationRule, type PolicyRule, type RoleRef, type Subject } from '../../../shared/api/rbac.ts';
import { hasInvalidLabelValue, validateLabelSelector } from '../../../shared/validation/label-selector.ts';
import { isDNS1123Subdomain, isValidPathSegmentName } from '../../../shared/validation/names.ts';

export function validatePolicyRules(rules: readonly PolicyRule[] | undefined, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  (rules ?? []).forEach((rule, i) => append(errs, validatePolicyRule(rule, namespaced, FieldPath.root('rules').index(i))));
  return errs;
}

function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!rule.verbs?.length) errs.push(required(path.child('verbs'), 'verbs must contain at least one value'));
  if (rule.nonResourceURLs?.length) {
    if (namespaced) errs.push(invalid(path.child('nonResourceURLs'), rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (rule.apiGroups?.length || rule.resources?.length || rule.resourceNames?.length) {
      errs.push(invalid(path.child('nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!rule.apiGroups?.length) errs.push(required(path.child('apiGroups'), 'resource rules must supply at least one api group'));
  if (!rule.resources?.length) errs.push(required(path.child('resources'), 'resource rules must supply at least one resource'));
  return errs;
}

/** `allowInvalidValues`: the stored role already had selectors with invalid label values (an update keeps accepting them). */
export function validateAggregationRule(rule: AggregationRule | undefined, allowInvalidValues: boolean): FieldError[] {
  if (!rule) return [];
  const path = FieldPath.root('aggregationRule').child('clusterRoleSelectors');
  const selectors = rule.clusterRoleSelectors ?? [];
  if (selectors.length === 0) return [required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  const errs: FieldError[] = [];
  selectors.forEach((selector, i) => append(errs, validateLabelSelector(selector, allowInvalidValues, path.index(i))));
  return errs;
}

export function aggregationHasInvalidLabelValues(rule: AggregationRule | undefined): boolean {
  return (rule?.clusterRoleSelectors ?? []).some((s) => hasInvalidLabelValue(s));
}

/** `kinds`: the role kinds the binding may reference (RoleBinding: Role and ClusterRole). */
export function validateRoleRef(ref: RoleRef | undefined, kinds: readonly string[]): FieldError[] {
  const path = FieldPath.root('roleRef');
  const errs: FieldError[] = [];
  const apiGroup = ref?.apiGroup ?? '';
  if (apiGroup !== rbacGroup) errs.push(notSupported(path.child('apiGroup'), apiGroup, [rbacGroup]));
  const kind = ref?.kind ?? '';
  if (!kinds.includes(kind)) errs.push(notSupported(path.child('kind'), kind, kinds));
  const name = ref?.name ?? '';
  if (!name) errs.push(required(path.child('name')));
  else for (const msg of isValidPathSegmentName(name)) errs.push(invalid(path.child('name'), name, msg));
  return errs;
}

export function validateSubjects(subjects: readonly Subject[] | undefined, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  (subjects ?? []).forEach((subject, i) => append(errs, validateSubject(subject, namespaced, FieldPath.root('subjects').index(i))));
  return errs;
}

function validateSubject(subject: Subject, namespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!subject.name) errs.push(required(path.child('name')));
  const apiGroup = subject.apiGroup ?? '';
  switch (subject.kind) {
    case 'ServiceAccount':
      if (subject.name) for (const msg of isDNS1123Subdomain(subject.name)) errs.push(invalid(path.child('name'), subject.name, msg));
      if (apiGroup) errs.push(notSupported(path.child('apiGroup'), apiGroup, ['']));
      if (!namespaced && !subject.namespace) errs.push(required(path.child('namespace')));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== rbacGroup) errs.push(notSupported(path.child('apiGroup'), apiGroup, [rbacGroup]));
      break;
    default:
      errs.push(notSupported(path.child('kind'), subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/** Upstream's defaults: roleRef.apiGroup and User/Group subjects' apiGroup are rbac.authorization.k8s.io. */
export function defaultBinding(binding: { subjects?: Subject[]; roleRef?: RoleRef }): void {
  if (binding.roleRef && !binding.roleRef.apiGroup) binding.roleRef.apiGroup = rbacGroup;
  for (const subject of binding.subjects ?? []) {
    if (!subject.apiGroup && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = rbacGroup;
  }
}

/** roleRef never changes (upstream: "cannot change roleRef"); a body without one has upstream's empty roleRef. */
export function validateRoleRefUnchanged(sent: RoleRef | undefined, old: RoleRef): FieldError[] {
  const ref = sent ?? { apiGroup: '', kind: '', name: '' };
  const same = ref.apiGroup === old.apiGroup && ref.kind === old.kind && ref.name === old.name;
  return same ? [] : [invalid(FieldPath.root('roleRef'), ref, 'cannot change roleRef')];
}
