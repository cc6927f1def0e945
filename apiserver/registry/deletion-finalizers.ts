/**
 * Which garbage-collection finalizers a DELETE leaves on an object (upstream's generic registry:
 * shouldOrphanDependents, shouldDeleteDependents, deletionFinalizersForGarbageCollection; and the
 * namespace REST Delete's own variant). The garbage collector acts on them: `orphan` (remove the
 * object from its dependents' ownerReferences, then the finalizer) and `foregroundDeletion` (delete
 * the dependents first). Background deletion leaves neither: the collector deletes the dependents
 * once the owner is gone.
 *
 * Priority, highest first: the request's options (orphanDependents, then propagationPolicy), the
 * finalizers the object already has, the kind's default policy.
 */
import { finalizerDeleteDependents, finalizerOrphanDependents } from '../../shared/validation/objectmeta.ts';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/**
 * What a DELETE without a policy does to a kind's dependents (upstream's
 * DefaultGarbageCollectionPolicy): `DeleteDependents` (Background) for most kinds,
 * `OrphanDependents` for kinds kept for backwards compatibility, `Unsupported` for kinds that never
 * take part (Events): their deletes neither add nor keep either finalizer.
 */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/** The propagation parts of DeleteOptions; validation made sure at most one of them is set. */
export interface PropagationOptions {
  propagationPolicy?: PropagationPolicy;
  /** Deprecated: true is Orphan, false is Background (for Namespaces: Foreground). */
  orphanDependents?: boolean;
}

function shouldOrphan(finalizers: readonly string[], options: PropagationOptions, policy: GarbageCollectionPolicy): boolean {
  if (policy === 'Unsupported') return false;
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  // Validation keeps the two finalizers apart; upstream's loop stops at the first of them.
  const first = finalizers.find((f) => f === finalizerOrphanDependents || f === finalizerDeleteDependents);
  if (first !== undefined) return first === finalizerOrphanDependents;
  return policy === 'OrphanDependents';
}

function shouldDeleteDependents(finalizers: readonly string[], options: PropagationOptions, policy: GarbageCollectionPolicy): boolean {
  if (policy === 'Unsupported') return false;
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  const first = finalizers.find((f) => f === finalizerOrphanDependents || f === finalizerDeleteDependents);
  return first === finalizerDeleteDependents;
}

/**
 * The finalizers a generic DELETE leaves: the object's own, minus both GC finalizers, plus those the
 * options, the existing finalizers or the kind's policy call for. The same list (same order) when
 * nothing changes.
 */
export function deletionFinalizers(finalizers: readonly string[], options: PropagationOptions, policy: GarbageCollectionPolicy = 'DeleteDependents'): string[] {
  const orphan = shouldOrphan(finalizers, options, policy);
  const foreground = shouldDeleteDependents(finalizers, options, policy);
  const next = finalizers.filter((f) => f !== finalizerOrphanDependents && f !== finalizerDeleteDependents);
  if (orphan) next.push(finalizerOrphanDependents);
  if (foreground) next.push(finalizerDeleteDependents);
  return sameSet(finalizers, next) ? [...finalizers] : next;
}

/**
 * The finalizers the first DELETE of a Namespace leaves (upstream's namespace REST Delete): without
 * options the existing GC finalizers stay; `orphanDependents: false` asks for Foreground there,
 * unlike the generic rule.
 */
export function namespaceDeletionFinalizers(finalizers: readonly string[], options: PropagationOptions): string[] {
  const has = (f: string): boolean => finalizers.includes(f);
  const orphan =
    options.orphanDependents !== undefined
      ? options.orphanDependents
      : options.propagationPolicy !== undefined
        ? options.propagationPolicy === 'Orphan'
        : has(finalizerOrphanDependents);
  const foreground =
    options.orphanDependents !== undefined
      ? !options.orphanDependents
      : options.propagationPolicy !== undefined
        ? options.propagationPolicy === 'Foreground'
        : has(finalizerDeleteDependents);
  if (orphan === has(finalizerOrphanDependents) && foreground === has(finalizerDeleteDependents)) return [...finalizers];
  const next = finalizers.filter((f) => f !== finalizerOrphanDependents && f !== finalizerDeleteDependents);
  if (orphan) next.push(finalizerOrphanDependents);
  if (foreground) next.push(finalizerDeleteDependents);
  return next;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((f) => right.has(f));
}
