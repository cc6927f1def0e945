/**
 * Whether one PolicyRule grants a request (upstream's rbac RuleAllows and its matchers):
 *
 * - verbs, apiGroups, resources and nonResourceURLs match with `*` as a wildcard;
 * - a resource rule `pods/log` matches that subresource, `*` matches every resource and every
 *   subresource, `* /status` (no space) matches the status subresource of every resource;
 * - resourceNames, when given, must contain the request's name (a request without a name, such as
 *   list or create, never matches a rule that names objects);
 * - a nonResourceURL `/apis/*` matches every path that starts with `/apis/`.
 */
import type { PolicyRule } from '../../../shared/api/rbac.ts';
import type { AuthorizationAttributes } from '../authorizer.ts';

export const verbAll = '*';
export const apiGroupAll = '*';
export const resourceAll = '*';
export const nonResourceAll = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === verbAll || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === apiGroupAll || g === group);
}

export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  for (const resource of rule.resources ?? []) {
    if (resource === resourceAll || resource === combinedResource) return true;
    // `*/status` grants the status subresource of every resource.
    if (subresource && resource.length === subresource.length + 2 && resource.startsWith('*/') && resource.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (!names || names.length === 0) return true;
  return names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === nonResourceAll || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(attributes: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (!attributes.isResourceRequest) return nonResourceURLMatches(rule, attributes.path);
  const combined = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  return apiGroupMatches(rule, attributes.apiGroup) && resourceMatches(rule, combined, attributes.subresource) && resourceNameMatches(rule, attributes.name);
}

export function rulesAllow(attributes: AuthorizationAttributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((rule) => ruleAllows(attributes, rule));
}
