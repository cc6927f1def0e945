/**
 * The RBAC authorizer (upstream's RBACAuthorizer and its rule resolver): a request is allowed when
 * a rule of a role bound to the user grants it:
 *
 * - ClusterRoleBindings grant their ClusterRole everywhere (every namespace and cluster scope);
 * - RoleBindings grant their Role or ClusterRole in their own namespace only.
 *
 * RBAC never denies: without a grant it has no opinion, so a later authorizer may still allow. Its
 * reason then lists the bindings that apply to the user but name a missing role (upstream's
 * `RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`); when it allows, the reason names
 * the binding (`RBAC: allowed by ClusterRoleBinding "a" of ClusterRole "b" to User "c"`), which
 * the audit log records.
 *
 * Decisions come from the objects an RbacSource holds (the watch cache, kept current by its etcd
 * watch): never a storage read per request. Bindings are indexed by subject, so a decision costs
 * lookups for the user's name and groups, not a scan of every binding.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from '../../../shared/api/rbac.ts';
import { SERVICE_ACCOUNT_USER_PREFIX } from '../../auth/authenticate.ts';
import type { UserInfo } from '../../registry/definition.ts';
import { noOpinion, type AuthorizationAttributes, type AuthorizationResult, type Authorizer } from '../authorizer.ts';
import { ruleAllows } from './rules.ts';

/** Where RBAC objects come from: lookups by name, and every binding with a counter of changes. */
export interface RbacSource {
  clusterRole(name: string): ClusterRole | undefined;
  role(namespace: string, name: string): Role | undefined;
  clusterRoleBindings(): readonly ClusterRoleBinding[];
  roleBindings(): readonly RoleBinding[];
  /** Moves whenever a binding changed: the subject index is rebuilt then. */
  bindingChanges(): number;
}

type Binding = ClusterRoleBinding | RoleBinding;

/** A binding that names the user, with the subject that does (for the "allowed by" reason). */
interface Grant {
  binding: Binding;
  subject: Subject;
}

/** Bindings by the subject key they grant to: `user:<name>` (service accounts by their user name) or `group:<name>`. */
type SubjectIndex = Map<string, Grant[]>;

/**
 * The index key of a subject, or undefined for subjects that can never apply (unknown kinds, a
 * service account without a namespace in a ClusterRoleBinding).
 */
function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  switch (subject.kind) {
    case 'User':
      return `user:${subject.name}`;
    case 'Group':
      return `group:${subject.name}`;
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace ? `user:${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${subject.name}` : undefined;
    }
    default:
      return undefined;
  }
}

function indexBindings(bindings: readonly Binding[], byNamespace: boolean): Map<string, SubjectIndex> {
  const out = new Map<string, SubjectIndex>();
  bindings.forEach((binding) => {
    const namespace = byNamespace ? (binding.metadata.namespace ?? '') : '';
    let index = out.get(namespace);
    if (!index) out.set(namespace, (index = new Map<string, Grant[]>()));
    const seen = new Set<string>();
    for (const subject of binding.subjects ?? []) {
      const key = subjectKey(subject, namespace);
      // A binding is visited once per user: through the first of its subjects that names them.
      if (!key || seen.has(key)) continue;
      seen.add(key);
      const grants = index.get(key);
      const grant = { binding, subject };
      if (grants) grants.push(grant);
      else index.set(key, [grant]);
    }
  });
  return out;
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} "${subject.name}/${subject.namespace || bindingNamespace}"`;
  return `${subject.kind} "${subject.name}"`;
}

function describeGrant({ binding, subject }: Grant): string {
  const namespace = binding.metadata.namespace ?? '';
  const name =
    binding.kind === 'RoleBinding' ? `RoleBinding "${binding.metadata.name ?? ''}/${namespace}"` : `ClusterRoleBinding "${binding.metadata.name ?? ''}"`;
  return `${name} of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, namespace)}`;
}

/** Go's utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated in brackets. */
function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

/**
 * What a visit of a user's rules reports for each grant: how to describe it (built only when asked:
 * most grants are passed over), its rules, or why it has none.
 */
export type RuleVisitor = (describe: () => string, rules: readonly PolicyRule[] | undefined, error: string | undefined) => boolean;

export class RbacAuthorizer implements Authorizer {
  private indexedAt = -1;
  private clusterIndex: SubjectIndex = new Map();
  private namespaceIndex = new Map<string, SubjectIndex>();

  constructor(private readonly source: RbacSource) {}

  authorize(user: UserInfo, attributes: AuthorizationAttributes): AuthorizationResult {
    const errors: string[] = [];
    let allowedBy: string | undefined;
    this.visitRules(user, attributes.namespace, (describe, rules, error) => {
      if (error !== undefined) {
        errors.push(error);
        return true;
      }
      if (rules?.some((rule) => ruleAllows(attributes, rule))) {
        allowedBy = describe();
        return false;
      }
      return true;
    });
    if (allowedBy !== undefined) return { decision: 'allow', reason: `RBAC: allowed by ${allowedBy}` };
    return errors.length ? { decision: 'no-opinion', reason: `RBAC: ${aggregate(errors)}` } : noOpinion;
  }

  /** Every rule granted to the user in a namespace ('' for cluster scope only), and the errors met (SelfSubjectRulesReview). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRules(user, namespace, (_grant, granted, error) => {
      if (error !== undefined) errors.push(error);
      else if (granted) rules.push(...granted);
      return true;
    });
    return { rules, errors };
  }

  /**
   * Visits the rules of every binding that applies to the user, ClusterRoleBindings first, then
   * the RoleBindings of the namespace, each in the source's order, until the visitor returns false.
   */
  visitRules(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    this.refreshIndex();
    if (!this.visitIndex(this.clusterIndex, user, '', visit) || !namespace) return;
    const index = this.namespaceIndex.get(namespace);
    if (index) this.visitIndex(index, user, namespace, visit);
  }

  /**
   * The grants of an index for the user's name, then for each group. A binding naming the user
   * twice (as a user and through a group) is visited twice: it changes no decision, and checking
   * for it would cost every request.
   */
  private visitIndex(index: SubjectIndex, user: UserInfo, namespace: string, visit: RuleVisitor): boolean {
    if (index.size === 0) return true;
    for (const grant of index.get(`user:${user.username}`) ?? []) if (!this.visitGrant(grant, namespace, visit)) return false;
    for (const group of user.groups) {
      for (const grant of index.get(`group:${group}`) ?? []) if (!this.visitGrant(grant, namespace, visit)) return false;
    }
    return true;
  }

  private visitGrant(grant: Grant, namespace: string, visit: RuleVisitor): boolean {
    const found = this.roleReferenceRules(grant.binding.roleRef, namespace);
    const describe = (): string => describeGrant(grant);
    return 'error' in found ? visit(describe, undefined, found.error) : visit(describe, found.rules, undefined);
  }

  /**
   * The rules of the role a binding references: a ClusterRole, or a Role of the binding's namespace
   * (a ClusterRoleBinding, with namespace '', can only reference ClusterRoles). Upstream's errors otherwise.
   */
  roleReferenceRules(roleRef: RoleRef, namespace: string): { rules: readonly PolicyRule[] } | { error: string } {
    let role: { rules?: PolicyRule[] } | undefined;
    if (roleRef.kind === 'ClusterRole') role = this.source.clusterRole(roleRef.name);
    else if (roleRef.kind === 'Role' && namespace) role = this.source.role(namespace, roleRef.name);
    else return { error: `unsupported role reference kind: "${roleRef.kind}"` };
    return role ? { rules: role.rules ?? [] } : { error: `${roleRef.kind.toLowerCase()}.rbac.authorization.k8s.io "${roleRef.name}" not found` };
  }

  private refreshIndex(): void {
    const changes = this.source.bindingChanges();
    if (changes === this.indexedAt) return;
    this.indexedAt = changes;
    this.clusterIndex = indexBindings(this.source.clusterRoleBindings(), false).get('') ?? new Map<string, Grant[]>();
    this.namespaceIndex = indexBindings(this.source.roleBindings(), true);
  }
}
