/**
 * Field ownership across writes (upstream: sigs.k8s.io/structured-merge-diff merge.Updater).
 *
 * Every manager owns a set of fields. An update takes ownership of what it changed, away from
 * everyone else, and never conflicts. An apply merges the applied configuration into the live
 * object, owns exactly the fields it applied, removes what it applied before and no longer applies
 * unless someone else owns it, and fails with conflicts when it would change a field another
 * manager owns (unless forced, when it takes those fields over).
 *
 * Managers are opaque identifiers here; sets are kept per API version, and only sets of the
 * version being written are compared and pruned: corral serves one version per kind and cannot
 * convert objects between versions, so sets recorded at another version are carried unchanged.
 */
import type { Schema } from '../api/schema.ts';
import { FieldSet, compareStrings, comparePaths, valuesEqualSteps, type Path } from './fieldpath.ts';
import { runSteps, type Steps } from './steps.ts';
import { compareSteps, ensureNamedFieldsAreMembersSteps, mergeSteps, removeItemsSteps, toFieldSetSteps, withGoStructs, type Comparison } from './typed.ts';

/** What one manager owns, at which API version, and whether it got it by applying. */
export interface ManagerSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** Owned fields by manager identifier. */
export type ManagedSets = Map<string, ManagerSet>;

/** A field an apply would change although another manager owns it. */
export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

/** An apply that conflicts with other managers; conflicts are ordered by manager, then path. */
export class ApplyConflictError extends Error {
  override readonly name = 'ApplyConflictError';
  constructor(readonly conflicts: readonly Conflict[]) {
    super(`${conflicts.length} apply conflicts`);
  }
}

export interface UpdaterOptions {
  /** The kind's schema (the whole object). */
  schema: Schema;
  /** The API version of the write; the sets it records carry it. */
  apiVersion: string;
  /** Fields the write's strategy resets (upstream's reset fields): never owned, never compared. */
  resetFields?: FieldSet | undefined;
}

function filtered(opts: UpdaterOptions, set: FieldSet): FieldSet {
  return opts.resetFields ? set.recursiveDifference(opts.resetFields) : set;
}

/** What a write changed, compared as upstream compares Go objects, without the reset fields. */
function* filteredComparison(opts: UpdaterOptions, live: unknown, updated: unknown): Steps<Comparison> {
  const liveValue = withGoStructs(live, opts.schema);
  const updatedValue = withGoStructs(updated, opts.schema);
  yield;
  const c = yield* compareSteps(liveValue, updatedValue, opts.schema);
  yield;
  const removed = filtered(opts, c.removed);
  const modified = filtered(opts, c.modified);
  yield;
  return { removed, modified, added: filtered(opts, c.added) };
}

/** Conflicts from sets of conflicting fields by manager, in a stable order. */
function conflictsOf(sets: ReadonlyMap<string, FieldSet>): Conflict[] {
  const managers = [...sets.keys()].sort(compareStrings);
  return managers.flatMap((manager) =>
    (sets.get(manager) as FieldSet)
      .paths()
      .sort(comparePaths)
      .map((path) => ({ manager, path })),
  );
}

/**
 * The effect of a write on every manager but `writer`: fields it changed or added leave their
 * owners (or, unless forced, conflict); fields it removed leave everyone. Managers left with
 * nothing are dropped.
 */
function* takeOwnership(
  opts: UpdaterOptions,
  live: unknown,
  updated: unknown,
  managers: ManagedSets,
  writer: string,
  force: boolean,
): Steps<{ managers: ManagedSets; comparison: Comparison }> {
  const comparison = yield* filteredComparison(opts, live, updated);
  const changed = comparison.modified.union(comparison.added);
  yield;
  const conflicts = new Map<string, FieldSet>();
  const removed = new Set<string>();
  for (const [manager, owned] of managers) {
    if (manager === writer || owned.apiVersion !== opts.apiVersion) continue;
    const conflicting = owned.set.intersection(changed);
    if (!conflicting.empty()) conflicts.set(manager, conflicting);
    if (!comparison.removed.empty()) removed.add(manager);
    yield;
  }
  if (!force && conflicts.size > 0) throw new ApplyConflictError(conflictsOf(conflicts));
  const out: ManagedSets = new Map(managers);
  for (const [manager, conflicting] of conflicts) {
    const owned = out.get(manager) as ManagerSet;
    out.set(manager, { ...owned, set: owned.set.difference(conflicting) });
    yield;
  }
  for (const manager of removed) {
    const owned = out.get(manager) as ManagerSet;
    out.set(manager, { ...owned, set: owned.set.difference(comparison.removed) });
    yield;
  }
  for (const [manager, owned] of out) if (owned.set.empty()) out.delete(manager);
  return { managers: out, comparison };
}

/**
 * Records a create, update or non-apply patch by `manager` (upstream Updater.Update): the manager
 * owns what it owned before, minus what it removed, plus everything it changed or added.
 * `live` is `{}` for a create.
 */
export function recordUpdate(opts: UpdaterOptions, live: unknown, updated: unknown, managers: ManagedSets, manager: string): ManagedSets {
  return runSteps(recordUpdateSteps(opts, live, updated, managers, manager));
}

/** recordUpdate in steps of about one pass over the object each (steps.ts). */
export function* recordUpdateSteps(opts: UpdaterOptions, live: unknown, updated: unknown, managers: ManagedSets, manager: string): Steps<ManagedSets> {
  const { managers: out, comparison } = yield* takeOwnership(opts, live, updated, managers, manager, true);
  const previous = out.get(manager)?.set ?? new FieldSet();
  const kept = previous.difference(comparison.removed);
  yield;
  const owned = kept.union(comparison.modified);
  yield;
  const set = filtered(opts, owned.union(comparison.added));
  yield;
  if (set.empty()) out.delete(manager);
  else out.set(manager, { set, apiVersion: opts.apiVersion, applied: false });
  return out;
}

export interface ApplyResult {
  /** The merged object, or null when the apply changes nothing in the object. */
  object: Record<string, unknown> | null;
  managers: ManagedSets;
}

/**
 * Applies `config` by `manager` (upstream Updater.Apply). `live` is `{}` for a create; neither may
 * hold metadata.managedFields. Throws ApplyConflictError, or TypedValueError for a configuration
 * that does not merge.
 */
export function applyConfiguration(
  opts: UpdaterOptions,
  live: Record<string, unknown>,
  config: Record<string, unknown>,
  managers: ManagedSets,
  manager: string,
  force: boolean,
): ApplyResult {
  return runSteps(applyConfigurationSteps(opts, live, config, managers, manager, force));
}

/** applyConfiguration in steps of about one pass over the object each (steps.ts). */
export function* applyConfigurationSteps(
  opts: UpdaterOptions,
  live: Record<string, unknown>,
  config: Record<string, unknown>,
  managers: ManagedSets,
  manager: string,
  force: boolean,
): Steps<ApplyResult> {
  const merged = yield* mergeSteps(live, config, opts.schema);
  yield;
  const lastApplied = managers.get(manager);
  const withApplier: ManagedSets = new Map(managers);
  const applied = yield* toFieldSetSteps(config, opts.schema);
  yield;
  withApplier.set(manager, { set: filtered(opts, applied), apiVersion: opts.apiVersion, applied: true });
  yield;
  const pruned = yield* prune(opts, asObject(merged), withApplier, lastApplied);
  const { managers: out } = yield* takeOwnership(opts, live, pruned, withApplier, manager, force);
  const unchanged = yield* valuesEqualSteps(live, pruned);
  yield;
  return { object: unchanged ? null : pruned, managers: out };
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * Removes what the applier applied last time and no longer applies (upstream prune): a field, list
 * item or map entry goes iff the applier owned it, does not apply it now, and no one else owns it.
 */
function* prune(
  opts: UpdaterOptions,
  merged: Record<string, unknown>,
  managers: ManagedSets,
  lastApplied: ManagerSet | undefined,
): Steps<Record<string, unknown>> {
  if (!lastApplied || lastApplied.set.empty() || lastApplied.apiVersion !== opts.apiVersion) return merged;
  const named = (set: FieldSet): Steps<FieldSet> => ensureNamedFieldsAreMembersSteps(set, opts.schema);
  const remove = function* (set: FieldSet): Steps<Record<string, unknown>> {
    return asObject(yield* removeItemsSteps(merged, set, opts.schema));
  };
  const fieldsOf = function* (value: Record<string, unknown>): Steps<FieldSet> {
    return yield* named(yield* toFieldSetSteps(value, opts.schema));
  };

  const lastAppliedNamed = yield* named(lastApplied.set);
  yield;
  let pruned = yield* remove(lastAppliedNamed);
  yield;

  // Add back what anyone (the applier's new configuration included) owns.
  let owned = new FieldSet();
  for (const m of managers.values()) {
    if (m.apiVersion !== opts.apiVersion) continue;
    owned = owned.union(m.set);
    yield;
  }
  const ownedNamed = yield* named(owned);
  yield;
  const mergedFields = yield* fieldsOf(merged);
  yield;
  const prunedFields = yield* fieldsOf(pruned);
  yield;
  const keep = prunedFields.union(ownedNamed);
  yield;
  const readd = mergedFields.difference(keep);
  yield;
  pruned = yield* remove(readd);
  yield;

  // Remove only what the applier owned: unowned fields stay.
  const remaining = yield* fieldsOf(pruned);
  yield;
  const gone = mergedFields.difference(remaining);
  yield;
  const toRemove = gone.intersection(lastAppliedNamed);
  yield;
  return yield* remove(toRemove);
}
