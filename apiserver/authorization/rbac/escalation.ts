/**
 * RBAC's escalation prevention (upstream's policybased role and binding storage): nobody grants
 * what they do not hold.
 *
 * - Writing a Role or ClusterRole needs every permission of its rules (in the role's namespace, or
 *   cluster-wide for a ClusterRole), unless the writer may `escalate` that role; an aggregationRule
 *   can gather anything, so setting one needs full authority.
 * - Writing a binding needs every permission of the role it references, unless the writer may
 *   `bind` that role (in the binding's namespace; cluster-wide for a ClusterRoleBinding).
 * - `system:masters` may always do both; writes that touch only ownerReferences, finalizers or
 *   managedFields (the garbage collector's) are not checked.
 *
 * Failures are upstream's 403s: `roles.rbac.authorization.k8s.io "x" is forbidden: user "alice"
 * (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`
 * followed by one line per missing grant.
 */
import { forbidden } from '../../../shared/api/errors.ts';
import { goQuote } from '../../../shared/go/format.ts';
import { rbacGroup, type PolicyRule, type RoleRef } from '../../../shared/api/rbac.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { isDeepStrictEqual } from 'node:util';
import type { UserInfo } from '../../registry/definition.ts';
import { resourceAttributes, type Authorizer } from '../authorizer.ts';
import { systemPrivilegedGroup } from '../privileged-groups.ts';
import type { RbacAuthorizer } from './authorizer.ts';

const fullAuthority: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** Upstream's BreakdownRule: one rule per group × resource × verb (× name), and per URL × verb. */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length) for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean => (wanted ?? []).every((w) => (set ?? []).includes(w));
const has = (set: readonly string[] | undefined, value: string): boolean => (set ?? []).includes(value);

function resourcesCover(owned: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owned, '*') || hasAll(owned, wanted)) return true;
  return (wanted ?? []).every((path) => {
    if (has(owned, path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && has(owned, `*/${path.slice(slash + 1)}`);
  });
}

function urlCovers(owned: string, wanted: string): boolean {
  return owned === wanted || (owned.endsWith('*') && wanted.startsWith(owned.replace(/\*+$/, '')));
}

/** Upstream's ruleCovers: `owner` grants everything the simple rule `sub` grants. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const urls = (sub.nonResourceURLs ?? []).every((url) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, url)));
  const ownerNames = owner.resourceNames ?? [];
  const names = sub.resourceNames?.length ? ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames) : ownerNames.length === 0;
  return verbs && groups && resourcesCover(owner.resources, sub.resources) && names && urls;
}

/** The simple rules of `wanted` that no rule of `owned` covers. */
export function missingRules(owned: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of wanted) for (const sub of breakdown(rule)) if (!owned.some((o) => ruleCovers(o, sub))) missing.push(sub);
  return missing;
}

/** Upstream's CompactRules: simple rules of one group, resource and name merge their verbs. */
function compact(rules: readonly PolicyRule[]): PolicyRule[] {
  const merged = new Map<string, PolicyRule>();
  const other: PolicyRule[] = [];
  for (const rule of rules) {
    const simple = !rule.nonResourceURLs?.length && (rule.resourceNames?.length ?? 0) <= 1 && rule.apiGroups?.length === 1 && rule.resources?.length === 1;
    if (!simple) {
      other.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, rule.resourceNames ?? []]);
    const existing = merged.get(key);
    if (!existing) merged.set(key, { ...rule, verbs: [...rule.verbs] });
    else for (const verb of rule.verbs) if (!existing.verbs.includes(verb)) existing.verbs.push(verb);
  }
  return [...other, ...merged.values()];
}

/** Go's %q of a []string: ["a" "b"]. */
const quotedList = (values: readonly string[]): string => `[${values.map(goQuote).join(' ')}]`;

/** Upstream's PolicyRule CompactString: {APIGroups:["x"], Resources:["y"], Verbs:["get"]}. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${quotedList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${quotedList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${quotedList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${quotedList(rule.resourceNames)}`);
  if (rule.verbs.length) parts.push(`Verbs:${quotedList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Upstream's IsOnlyMutatingGCFields: the update changes nothing but what the garbage collector writes. */
export function onlyGarbageCollectorFields(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject): KubeObject => {
    const { ownerReferences: _o, finalizers: _f, managedFields: _m, resourceVersion: _r, selfLink: _s, ...metadata } = o.metadata;
    return { ...o, metadata };
  };
  return isDeepStrictEqual(strip(obj), strip(old));
}

export interface RoleWrite {
  /** roles or clusterroles, with the object's group resource for the 403. */
  resource: 'roles' | 'clusterroles';
  namespace: string;
  name: string;
  rules: readonly PolicyRule[];
  /** A ClusterRole that sets or changes an aggregationRule. */
  setsAggregationRule: boolean;
}

export class EscalationGuard {
  constructor(
    private readonly rbac: RbacAuthorizer,
    /** The server's whole authorizer (escalate and bind may be granted by any mode). */
    private readonly authorizer: Authorizer,
  ) {}

  /** Throws upstream's 403 unless the user may write a role with these rules. */
  async confirmRoleWrite(user: UserInfo, write: RoleWrite): Promise<void> {
    if (user.groups.includes(systemPrivilegedGroup)) return;
    const gr = { group: rbacGroup, resource: write.resource };
    const escalate = await this.authorizer.authorize(
      user,
      resourceAttributes('escalate', rbacGroup, write.resource, { namespace: write.namespace, name: write.name }),
    );
    if (escalate.decision === 'allow') return;
    const owned = this.rbac.rulesFor(user, write.namespace);
    this.confirmHeld(user, owned, write.rules, gr, write.name);
    if (write.setsAggregationRule && missingRules(owned.rules, fullAuthority).length) {
      throw forbidden(gr, write.name, 'must have cluster-admin privileges to use the aggregationRule');
    }
  }

  /** Throws upstream's 403 unless the user may bind the role (`bind` on it, or holding all its rules). */
  async confirmBinding(
    user: UserInfo,
    binding: { resource: 'rolebindings' | 'clusterrolebindings'; namespace: string; name: string; roleRef: RoleRef },
  ): Promise<void> {
    if (user.groups.includes(systemPrivilegedGroup)) return;
    const gr = { group: rbacGroup, resource: binding.resource };
    const { roleRef } = binding;
    const roleResource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : undefined;
    if (roleResource) {
      const bind = await this.authorizer.authorize(
        user,
        resourceAttributes('bind', roleRef.apiGroup, roleResource, { namespace: binding.namespace, name: roleRef.name }),
      );
      if (bind.decision === 'allow') return;
    }
    const rules = this.rbac.roleReferenceRules(roleRef, binding.namespace);
    if ('error' in rules) throw forbidden(gr, binding.name, rules.error);
    this.confirmHeld(user, this.rbac.rulesFor(user, binding.namespace), rules.rules, gr, binding.name);
  }

  /** Throws upstream's 403 unless `owned` (the user's rules where the grant applies) covers `rules`. */
  private confirmHeld(
    user: UserInfo,
    owned: { rules: PolicyRule[]; errors: string[] },
    rules: readonly PolicyRule[],
    gr: { group: string; resource: string },
    name: string,
  ): void {
    const missing = missingRules(owned.rules, rules);
    if (!missing.length) return;
    const lines = [...new Set(compact(missing).map(compactString))].sort();
    let message = `user ${goQuote(user.username)} (groups=${quotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
    if (owned.errors.length) message += `; resolution errors: [${owned.errors.join(' ')}]`;
    throw forbidden(gr, name, message);
  }
}
