/**
 * Reconciles the bootstrap policy at every start, as upstream's `rbac/bootstrap-roles` post-start
 * hook does: missing objects are created; existing ones gain what the policy adds (labels,
 * annotations, missing rules or aggregation selectors, missing subjects) and keep whatever else
 * they hold; a binding whose roleRef differs is recreated. Objects annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` are left exactly as they are.
 *
 * Writes go through the registry as `system:apiserver` (system:masters), so they are validated,
 * versioned and watched like any other. Replicas starting together race harmlessly: a lost race
 * (conflict, already exists) is retried on the new state, and an update that changes nothing
 * writes nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import { isStatusError } from '../../../shared/api/errors.ts';
import { autoUpdateAnnotation, type AggregationRule, type ClusterRole, type PolicyRule, type RoleBinding, type Subject } from '../../../shared/api/rbac.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import type { RequestContext } from '../../registry/definition.ts';
import type { Registry } from '../../registry/registry.ts';
import type { GenericStore } from '../../registry/store.ts';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapRoleBindings, bootstrapRoles, nodeJoinClusterRoleBindings } from './bootstrap-policy.ts';
import { missingRules } from './escalation.ts';

const attempts = 5;
const manager = 'kube-apiserver';

/** `base` with the keys of `override` set over it (upstream's merge: the existing object's values win). */
function merged(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!expected && !existing) return undefined;
  return { ...expected, ...existing };
}

function withMetadataOf(expected: KubeObject, existing: KubeObject): KubeObject {
  const out = structuredClone(existing);
  const labels = merged(expected.metadata.labels, existing.metadata.labels);
  const annotations = merged(expected.metadata.annotations, existing.metadata.annotations);
  if (labels) out.metadata.labels = labels;
  if (annotations) out.metadata.annotations = annotations;
  return out;
}

const isProtected = (obj: KubeObject): boolean => obj.metadata.annotations?.[autoUpdateAnnotation] === 'false';

/** A role with the policy's labels, annotations, missing rules and missing aggregation selectors added. */
export function reconcileRole<T extends ClusterRole>(expected: T, existing: T): T {
  const out = withMetadataOf(expected, existing) as T;
  const missing: PolicyRule[] = missingRules(existing.rules ?? [], expected.rules ?? []);
  if (missing.length) out.rules = [...(existing.rules ?? []), ...missing];
  if (!expected.aggregationRule && existing.aggregationRule) {
    delete out.aggregationRule;
  } else if (expected.aggregationRule) {
    const have = existing.aggregationRule?.clusterRoleSelectors ?? [];
    const add = (expected.aggregationRule.clusterRoleSelectors ?? []).filter((s) => !have.some((h) => isDeepStrictEqual(h, s)));
    if (add.length) out.aggregationRule = { clusterRoleSelectors: [...have, ...add] } satisfies AggregationRule;
  }
  return out;
}

const sameSubject = (a: Subject, b: Subject): boolean =>
  a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '') && (a.apiGroup ?? '') === (b.apiGroup ?? '');

/** A binding with the policy's labels, annotations and missing subjects added (its roleRef already matches). */
export function reconcileBinding<T extends RoleBinding>(expected: T, existing: T): T {
  const out = withMetadataOf(expected, existing) as T;
  const have = existing.subjects ?? [];
  const add = (expected.subjects ?? []).filter((s) => !have.some((h) => sameSubject(h, s)));
  if (add.length) out.subjects = [...have, ...add];
  return out;
}

const sameRoleRef = (a: RoleBinding, b: RoleBinding): boolean =>
  a.roleRef.apiGroup === b.roleRef.apiGroup && a.roleRef.kind === b.roleRef.kind && a.roleRef.name === b.roleRef.name;

export class BootstrapPolicy {
  constructor(
    private readonly registry: Registry,
    private readonly context: () => RequestContext,
    /** Also keep the bindings that let nodes join with bootstrap tokens. */
    private readonly nodeJoin = false,
  ) {}

  private store(resource: string): GenericStore {
    const store = this.registry.lookup('rbac.authorization.k8s.io', 'v1', resource)?.store;
    if (!store) throw new Error(`the rbac.authorization.k8s.io/v1 ${resource} API must be enabled`);
    return store;
  }

  /** Creates or reconciles every object of the policy; resolves once all are in place. */
  async reconcile(): Promise<void> {
    for (const role of bootstrapClusterRoles()) await this.ensure(this.store('clusterroles'), role, reconcileRole);
    for (const role of bootstrapRoles()) await this.ensure(this.store('roles'), role, reconcileRole);
    const clusterRoleBindings = [...bootstrapClusterRoleBindings(), ...(this.nodeJoin ? nodeJoinClusterRoleBindings() : [])];
    for (const binding of clusterRoleBindings) await this.ensureBinding(this.store('clusterrolebindings'), binding);
    for (const binding of bootstrapRoleBindings()) await this.ensureBinding(this.store('rolebindings'), binding);
  }

  private async ensure<T extends KubeObject>(store: GenericStore, expected: T, reconcile: (expected: T, existing: T) => T): Promise<void> {
    const namespace = expected.metadata.namespace ?? '';
    const name = expected.metadata.name ?? '';
    for (let i = 0; ; i++) {
      try {
        await store.update(
          namespace,
          name,
          '',
          // The store takes over what derive returns: the policy's object is copied for each attempt.
          {
            derive: (current) =>
              current === null ? structuredClone(expected) : isProtected(current) ? structuredClone(current) : reconcile(expected, current as T),
          },
          this.context(),
          { dryRun: false, manager },
        );
        return;
      } catch (err) {
        if (i + 1 >= attempts) throw err;
        if (isStatusError(err, 'NotFound')) {
          if (await this.created(store, namespace, expected)) return;
        } else if (!isStatusError(err, 'Conflict')) {
          throw err;
        }
      }
    }
  }

  /** A binding whose roleRef changed is deleted and created anew (roleRef is immutable). */
  private async ensureBinding<T extends RoleBinding>(store: GenericStore, expected: T): Promise<void> {
    const namespace = expected.metadata.namespace ?? '';
    const name = expected.metadata.name ?? '';
    const existing = await store.get(namespace, name).catch((err: unknown) => {
      if (isStatusError(err, 'NotFound')) return null;
      throw err;
    });
    if (existing && !isProtected(existing) && !sameRoleRef(existing as T, expected)) {
      await store.delete(namespace, name, this.context(), { dryRun: false }).catch((err: unknown) => {
        if (!isStatusError(err, 'NotFound')) throw err;
      });
    }
    await this.ensure(store, expected, reconcileBinding);
  }

  /** True when created; false when another replica created it first (the caller reconciles it). */
  private async created(store: GenericStore, namespace: string, obj: KubeObject): Promise<boolean> {
    try {
      await store.create(namespace, structuredClone(obj), this.context(), { dryRun: false, manager });
      return true;
    } catch (err) {
      if (isStatusError(err, 'AlreadyExists')) return false;
      throw err;
    }
  }
}
