/**
 * The FieldManager of the generic store: maintains `metadata.managedFields` on every write and
 * performs server-side apply, with upstream's behaviour (k8s.io/apimachinery managedfields and
 * its layers, outermost first):
 *
 * - apply only: the applied object must be of the served kind and version (400), and may not carry
 *   managedFields (400); kubectl's client-side `last-applied-configuration` annotation lets
 *   `kubectl apply --server-side` take over fields it applied client-side, and is kept up to date;
 * - an object whose managedFields are empty is not tracked by updates (a create is), and its first
 *   apply records its existing fields as owned by `before-first-apply`;
 * - updates (operation Update) are recorded per manager, API version and subresource; at most 10
 *   update entries are kept, the oldest merged into `ancient-changes` entries;
 * - identity metadata (name, namespace, uid, resourceVersion, ...) and the fields the write's
 *   strategy resets are never owned.
 */
import { StatusError, badRequest } from '../../shared/api/errors.ts';
import { FieldPath, forbidden, required, type FieldError } from '../../shared/api/field.ts';
import { deepCopy, isObject, withoutManagedFields, type KubeObject, type ManagedFieldsEntry, type StatusCause } from '../../shared/api/types.ts';
import { FieldSet, compareStrings, fromFieldsV1Steps, goJSON, makePath, pathString, toFieldsV1Steps, valuesEqual } from '../../shared/apply/fieldpath.ts';
import {
  ApplyConflictError,
  applyConfigurationSteps,
  recordUpdateSteps,
  type Conflict,
  type ManagedSets,
  type UpdaterOptions,
} from '../../shared/apply/merge.ts';
import { runSteps, type Steps } from '../../shared/apply/steps.ts';
import {
  TypedValueError,
  compareSteps,
  dropNullFieldsSteps,
  toFieldSetSteps,
  validateSteps,
  validationErrorsString,
  withGoStructs,
} from '../../shared/apply/typed.ts';
import { apiVersionOf, type ResourceDefinition } from './definition.ts';
import type { FieldManager, FieldManagerRequest } from './field-manager.ts';
import type { TimeSlice } from '../../shared/apply/time-slice.ts';
import { parseJson } from '../../shared/codec/json.ts';
import { goQuote, isGoPrint } from '../../shared/go/format.ts';
import { formatTime, formatTimeOf, tryParseTime } from '../../shared/go/time.ts';
import { compareManagedFieldsEntries, entryTimeSeconds, unownedMetadataFields } from './managed-fields-entries.ts';
import { ownedUpdateManagedFields } from './owned-update.ts';

/** Update entries kept before the oldest are merged (upstream DefaultMaxUpdateManagers). */
export const maxUpdateManagers = 10;
const ancientChangesManager = 'ancient-changes';
const beforeFirstApplyManager = 'before-first-apply';
/** Stands for the write being recorded; manager identifiers are JSON objects, so it cannot clash. */
const currentOperation = 'current-operation';
/** kubectl's client-side apply annotation. */
export const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
/** The manager whose applies upgrade client-side apply (upstream hard-codes kubectl's default). */
const kubectlManager = 'kubectl';
/** upstream TotalAnnotationSizeLimitB: an annotation value that would exceed it is not written. */
const totalAnnotationSizeLimit = 256 * 1024;
/** upstream FieldManagerMaxLength, in bytes. */
const fieldManagerMaxLength = 128;

/** Paths never owned by anyone: identity and system metadata (upstream's strip set). */
const strippedFields = FieldSet.of(
  makePath('apiVersion'),
  makePath('kind'),
  makePath('metadata'),
  ...unownedMetadataFields.map((name) => makePath('metadata', name)),
);

/**
 * The fields a write's strategy resets, by `group/Kind` and subresource, where they differ from the
 * rule below (upstream's GetResetFields of each strategy).
 */
const resetFieldsByKind: Readonly<Record<string, Readonly<Record<string, readonly (readonly string[])[]>>>> = {
  'certificates.k8s.io/CertificateSigningRequest': {
    '': [['spec'], ['status']],
    status: [['spec'], ['status', 'conditions']],
    approval: [['spec'], ['status', 'certificate']],
  },
  'storage.k8s.io/VolumeAttachment': { status: [['metadata'], ['spec']] },
  '/Namespace': { finalize: [['status']] },
};

/** A write's reset fields, as paths of field names and as the set the full recording subtracts. */
interface ResetFields {
  paths: readonly (readonly string[])[];
  set: FieldSet | undefined;
}

const resetFieldsCache = new WeakMap<ResourceDefinition, Map<string, ResetFields>>();

/** The set of resetFieldsOf. */
export function resetFieldsFor(definition: ResourceDefinition, subresource: string): FieldSet | undefined {
  return resetFieldsOf(definition, subresource).set;
}

/**
 * What a write through `subresource` may not own because the strategy resets it: by default the
 * main resource of a kind with a status subresource resets `status`, and `status` resets `spec`.
 */
function resetFieldsOf(definition: ResourceDefinition, subresource: string): ResetFields {
  let bySubresource = resetFieldsCache.get(definition);
  if (!bySubresource) resetFieldsCache.set(definition, (bySubresource = new Map<string, ResetFields>()));
  const known = bySubresource.get(subresource);
  if (known) return known;
  const declared = resetFieldsByKind[`${definition.group}/${definition.kind}`]?.[subresource];
  const paths =
    declared ??
    (subresource === ''
      ? definition.subresources?.['status']
        ? [['status']]
        : []
      : subresource === 'status' && definition.schema.properties?.['spec']
        ? [['spec']]
        : []);
  const reset = { paths, set: paths.length ? FieldSet.of(...paths.map((p) => makePath(...p))) : undefined };
  bySubresource.set(subresource, reset);
  return reset;
}

// ---------------------------------------------------------------------------------------------
// Manager identifiers: the managedFields entry without fields, time and type, as JSON.

interface ManagerInfo {
  manager: string;
  operation: string;
  apiVersion: string;
  subresource: string;
}

/**
 * upstream BuildManagerIdentifier: an entry's manager, operation, API version (not for appliers,
 * who keep one entry across versions) and subresource, in ManagedFieldsEntry's JSON field order.
 */
function managerIdentifier(info: ManagerInfo): string {
  const parts: string[] = [];
  if (info.manager) parts.push(`"manager":${goJSON(info.manager, true)}`);
  if (info.operation) parts.push(`"operation":${goJSON(info.operation, true)}`);
  if (info.apiVersion && info.operation !== 'Apply') parts.push(`"apiVersion":${goJSON(info.apiVersion, true)}`);
  if (info.subresource) parts.push(`"subresource":${goJSON(info.subresource, true)}`);
  return `{${parts.join(',')}}`;
}

function parseIdentifier(identifier: string): Partial<ManagerInfo> {
  const parsed: unknown = JSON.parse(identifier);
  return isObject(parsed) ? parsed : {};
}

/** How conflict messages name a manager: `"kubectl"`, `"ctl" with subresource "status" using v1`. */
function describeManager(identifier: string): string {
  const info = parseIdentifier(identifier);
  let text = goQuote(info.manager ?? '');
  if (info.subresource) text += ` with subresource ${goQuote(info.subresource)}`;
  if (info.operation === 'Update') text += ` using ${info.apiVersion ?? ''}`;
  return text;
}

// ---------------------------------------------------------------------------------------------
// managedFields ⇄ owned sets.

/** Decoded managedFields: owned sets and entry times by manager identifier. */
export interface Managed {
  fields: ManagedSets;
  /** Entry times (RFC 3339, seconds, UTC) by identifier; undefined: the entry has none. */
  times: Map<string, string | undefined>;
}

const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

/** managedFields that cannot be decoded; upstream then keeps what the live object has. */
export class InvalidManagedFieldsError extends Error {
  override readonly name = 'InvalidManagedFieldsError';
}

function stringField(entry: Record<string, unknown>, name: string, index: number): string {
  const value = entry[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new InvalidManagedFieldsError(`${name} of managed fields entry ${index} must be a string`);
  return value;
}

/** upstream DecodeManagedFields, with its checks and messages. */
export function decodeManagedFields(entries: unknown): Managed {
  return runSteps(decodeManagedFieldsSteps(entries));
}

/** decodeManagedFields, a step per entry (an entry may own every one of 150,000 labels). */
function* decodeManagedFieldsSteps(entries: unknown): Steps<Managed> {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new InvalidManagedFieldsError('managedFields must be a list');
  for (let i = 0; i < entries.length; i++) {
    const entry: unknown = entries[i];
    if (!isObject(entry)) throw new InvalidManagedFieldsError(`managed fields entry ${i} must be an object`);
    const operation = stringField(entry, 'operation', i);
    if (operation !== 'Apply' && operation !== 'Update') throw new InvalidManagedFieldsError('operation must be `Apply` or `Update`');
    const apiVersion = stringField(entry, 'apiVersion', i);
    if (!apiVersion) throw new InvalidManagedFieldsError('apiVersion must not be empty');
    const fieldsType = stringField(entry, 'fieldsType', i);
    if (fieldsType === '') throw new InvalidManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== 'FieldsV1') throw new InvalidManagedFieldsError(`invalid fieldsType ${goQuote(fieldsType)} in managed fields entry ${i}`);
    const identifier = managerIdentifier({
      manager: stringField(entry, 'manager', i),
      operation,
      apiVersion,
      subresource: stringField(entry, 'subresource', i),
    });
    let set: FieldSet;
    try {
      set = yield* fromFieldsV1Steps(entry['fieldsV1']);
    } catch (err) {
      throw new InvalidManagedFieldsError(`error decoding versioned set: ${err instanceof Error ? err.message : String(err)}`);
    }
    const time = stringField(entry, 'time', i);
    if (time && tryParseTime(time) === null) throw new InvalidManagedFieldsError(`invalid time ${goQuote(time)} in managed fields entry ${i}`);
    managed.fields.set(identifier, { set, apiVersion, applied: operation === 'Apply' });
    managed.times.set(identifier, time ? formatTime(entryTimeSeconds(time)) : undefined);
    yield;
  }
  return managed;
}

function* decodeOrEmpty(entries: unknown): Steps<Managed> {
  try {
    return yield* decodeManagedFieldsSteps(entries);
  } catch {
    return emptyManaged();
  }
}

/**
 * upstream encodeManagedFields: one entry per manager (none at all when nobody owns anything),
 * sorted by operation (Apply first), time, manager, API version and subresource.
 */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  return runSteps(encodeManagedFieldsSteps(managed));
}

/** encodeManagedFields, a step per entry. */
function* encodeManagedFieldsSteps(managed: Managed): Steps<ManagedFieldsEntry[] | undefined> {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [identifier, owned] of managed.fields) {
    const info = parseIdentifier(identifier);
    const entry: ManagedFieldsEntry = {};
    if (info.manager) entry.manager = info.manager;
    const operation = owned.applied ? 'Apply' : info.operation;
    if (operation === 'Apply' || operation === 'Update') entry.operation = operation;
    if (owned.apiVersion) entry.apiVersion = owned.apiVersion;
    const time = managed.times.get(identifier);
    if (time) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = yield* toFieldsV1Steps(owned.set);
    if (info.subresource) entry.subresource = info.subresource;
    entries.push(entry);
    yield;
  }
  return entries.sort(compareManagedFieldsEntries);
}

/**
 * A client resets managedFields with a list holding one empty entry (or an empty list, which
 * upstream's decoder yields only for an explicit `[]`); the reset happens before the write is
 * recorded, so the write's own changes are then the only entry.
 */
function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  if (entries.length !== 1) return false;
  const entry: unknown = entries[0];
  return isObject(entry) && Object.values(entry).every((v) => v === undefined || v === null || v === '');
}

function* setManagedFields(obj: KubeObject, managed: Managed): Steps<void> {
  const entries = yield* encodeManagedFieldsSteps(managed);
  if (!isObject(obj.metadata)) obj.metadata = {};
  if (entries) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}

// ---------------------------------------------------------------------------------------------
// Recording writes.

/** Identity metadata is owned by no one. */
function stripMeta(fields: ManagedSets, manager: string): void {
  const owned = fields.get(manager);
  if (!owned) return;
  const set = owned.set.difference(strippedFields);
  if (set.empty()) fields.delete(manager);
  else fields.set(manager, { ...owned, set });
}

/**
 * Keeps at most maxUpdateManagers update entries: the oldest are merged, per API version, into an
 * `ancient-changes` entry carrying the time of the newest entry merged into it (upstream
 * capManagersManager, including its handling of an existing bucket).
 */
function* capUpdateManagers(managed: Managed): Steps<void> {
  const { fields, times } = managed;
  const updaters = [...fields].filter(([, owned]) => !owned.applied).map(([id]) => id);
  if (updaters.length <= maxUpdateManagers) return;
  updaters.sort((a, b) => entryTimeSeconds(times.get(a)) - entryTimeSeconds(times.get(b)) || compareStrings(a, b));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > maxUpdateManagers; i++) {
    const manager = updaters[i] as string;
    const owned = fields.get(manager);
    if (!owned) continue;
    const version = owned.apiVersion;
    const bucket = managerIdentifier({ manager: ancientChangesManager, operation: 'Update', apiVersion: version, subresource: '' });
    const first = firstOfVersion.get(version);
    if (first === undefined) {
      firstOfVersion.set(version, manager);
      continue;
    }
    if (!fields.has(bucket)) {
      const firstSet = fields.get(first);
      fields.delete(first);
      if (firstSet) fields.set(bucket, firstSet);
    }
    fields.set(bucket, { set: owned.set.union(fields.get(bucket)?.set ?? new FieldSet()), apiVersion: owned.apiVersion, applied: owned.applied });
    fields.delete(manager);
    length--;
    times.set(bucket, times.get(manager));
    yield;
  }
}

/**
 * Records a non-apply write by `identifier`: the write's changes are computed as an anonymous
 * operation, and only when it owns something afterwards does its entry change and get the time.
 */
function* recordWrite(
  opts: UpdaterOptions,
  live: Record<string, unknown>,
  updated: Record<string, unknown>,
  managed: Managed,
  identifier: string,
  now: string,
): Steps<Managed> {
  const fields = yield* recordUpdateSteps(opts, live, updated, managed.fields, currentOperation);
  stripMeta(fields, currentOperation);
  yield;
  const times = new Map(managed.times);
  const current = fields.get(currentOperation);
  if (current) {
    fields.delete(currentOperation);
    const previous = fields.get(identifier);
    fields.set(identifier, previous ? { ...current, set: current.set.union(previous.set) } : current);
    times.set(identifier, now);
    yield;
  }
  const result = { fields, times };
  yield* capUpdateManagers(result);
  return result;
}

function updaterOptions(request: FieldManagerRequest): UpdaterOptions {
  return {
    schema: request.definition.schema,
    apiVersion: apiVersionOf(request.definition),
    resetFields: resetFieldsFor(request.definition, request.subresource),
  };
}

/**
 * Which managedFields an update starts from: the live object's for subresources (they cannot set
 * managedFields); otherwise a reset, or the request's when they decode and are not empty, or the
 * live object's (a client unaware of managedFields never erases them).
 */
function* managedForUpdate(live: KubeObject | null, updated: KubeObject, subresource: string): Steps<Managed> {
  const liveEntries = live?.metadata.managedFields;
  if (subresource) return yield* decodeOrEmpty(liveEntries);
  const sent = updated.metadata.managedFields;
  if (isResetManagedFields(sent)) return emptyManaged();
  try {
    const managed = yield* decodeManagedFieldsSteps(sent);
    if (managed.fields.size > 0) return managed;
  } catch {
    // Undecodable managedFields in a request are ignored.
  }
  return yield* decodeOrEmpty(liveEntries);
}

// ---------------------------------------------------------------------------------------------
// Apply.

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** upstream schema.FromAPIVersionAndKind: an unparsable apiVersion leaves group and version empty. */
function gvkOf(obj: Record<string, unknown>): GroupVersionKind {
  const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
  const kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '', kind };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion, kind };
  if (parts.length === 2) return { group: parts[0] as string, version: parts[1] as string, kind };
  return { group: '', version: '', kind };
}

const gvkString = (gvk: GroupVersionKind): string => `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;

/** upstream objectGVKNN: `namespace/name; group/version, Kind=kind`. */
function objectDescription(obj: Record<string, unknown>): string {
  const meta = isObject(obj['metadata']) ? obj['metadata'] : {};
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return `${text(meta['namespace'])}/${text(meta['name'])}; ${gvkString(gvkOf(obj))}`;
}

/** An error upstream reports as a plain Go error: 500 with the error's text, no reason. */
function unknownError(message: string): StatusError {
  return new StatusError({ message, code: 500 });
}

/**
 * The 409 of an apply that conflicts (upstream NewApplyConflict): one FieldManagerConflict cause per
 * field; the message lists the fields by manager, managers in identifier order.
 */
export function applyConflictError(conflicts: readonly Conflict[]): StatusError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${describeManager(c.manager)}`,
    field: pathString(c.path),
  }));
  return new StatusError({ message: conflictMessage(conflicts), reason: 'Conflict', details: { causes }, code: 409 });
}

function conflictMessage(conflicts: readonly Conflict[]): string {
  const [only] = conflicts;
  if (conflicts.length === 1 && only) return `Apply failed with 1 conflict: conflict with ${describeManager(only.manager)}: ${pathString(only.path)}`;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const paths = byManager.get(c.manager) ?? [];
    paths.push(pathString(c.path));
    byManager.set(c.manager, paths);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort(compareStrings)) {
    lines.push(`conflicts with ${describeManager(manager)}:`);
    for (const path of byManager.get(manager) ?? []) lines.push(`- ${path}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/**
 * The fields kubectl applied client-side (its last-applied annotation) that still hold the applied
 * values: `kubectl apply --server-side` may take them over without conflicts. Null when there is
 * no usable annotation.
 */
function* fieldsFromLastApplied(live: KubeObject | null, opts: UpdaterOptions): Steps<FieldSet | null> {
  if (!live) return null;
  const annotation = live.metadata.annotations?.[lastAppliedAnnotation];
  if (!annotation) return null;
  let lastApplied: unknown;
  try {
    lastApplied = parseJson(annotation);
  } catch {
    return null;
  }
  if (!isObject(lastApplied) || lastApplied['apiVersion'] !== opts.apiVersion) return null;
  yield;
  const liveValue = deepCopy(live) as Record<string, unknown>;
  yield;
  if ((yield* validateSteps(lastApplied, opts.schema)).length) return null;
  yield;
  if ((yield* validateSteps(liveValue, opts.schema)).length) return null;
  yield;
  let changed;
  let applied;
  try {
    changed = yield* compareSteps(lastApplied, withGoStructs(liveValue, opts.schema), opts.schema);
    yield;
    applied = yield* toFieldSetSteps(lastApplied, opts.schema);
  } catch {
    return null;
  }
  yield;
  const unmodified = applied.difference(changed.modified);
  yield;
  const kept = unmodified.difference(changed.added);
  yield;
  return kept.difference(changed.removed);
}

/**
 * kubectl's annotation value: the applied object without the annotation, as Go's JSON encoder
 * writes it. Only the path to the annotation is copied (a deep copy would be a pass of its own).
 */
function lastAppliedValue(applied: KubeObject): string {
  const copy: Record<string, unknown> = { ...applied };
  const meta = copy['metadata'];
  if (isObject(meta)) {
    const metadata: Record<string, unknown> = { ...meta };
    copy['metadata'] = metadata;
    const annotations = metadata['annotations'];
    if (isObject(annotations)) {
      const rest: Record<string, unknown> = { ...annotations };
      delete rest[lastAppliedAnnotation];
      metadata['annotations'] = rest;
    }
  }
  return `${goJSON(copy, true)}\n`;
}

function annotationsSize(annotations: Record<string, string>): number {
  return Object.entries(annotations).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
}

function* refreshLastApplied(result: KubeObject, applied: KubeObject): Steps<void> {
  const annotations = result.metadata.annotations;
  if (!annotations?.[lastAppliedAnnotation]) return;
  yield;
  annotations[lastAppliedAnnotation] = lastAppliedValue(applied);
  yield;
  if (annotationsSize(annotations) > totalAnnotationSizeLimit) delete annotations[lastAppliedAnnotation];
}

// ---------------------------------------------------------------------------------------------

class ManagedFieldsManager implements FieldManager {
  /** `ownedUpdates`: record updates that rewrite only the writer's own fields without field sets (owned-update.ts). */
  constructor(private readonly ownedUpdates: boolean) {}

  update(live: KubeObject | null, updated: KubeObject, request: FieldManagerRequest): Promise<KubeObject> {
    return run(this.updateSteps(live, updated, request), request);
  }

  apply(live: KubeObject | null, applied: KubeObject, request: FieldManagerRequest & { force: boolean }): Promise<KubeObject> {
    return run(this.applySteps(live, applied, request), request);
  }

  private *updateSteps(live: KubeObject | null, updated: KubeObject, request: FieldManagerRequest): Steps<KubeObject> {
    try {
      return yield* this.track(live, updated, request);
    } catch {
      // Upstream never fails a write over managedFields: it drops them instead.
      delete updated.metadata.managedFields;
      return updated;
    }
  }

  private *track(live: KubeObject | null, obj: KubeObject, request: FieldManagerRequest): Steps<KubeObject> {
    const opts = updaterOptions(request);
    const manager = request.manager || 'unknown';
    const now = formatTimeOf(request.now);
    if (live && this.ownedUpdates) {
      const writer = { manager, apiVersion: opts.apiVersion, subresource: request.subresource };
      const resetPaths = resetFieldsOf(request.definition, request.subresource).paths;
      const entries = ownedUpdateManagedFields(live, obj, writer, now, { subresource: request.subresource, resetPaths });
      if (entries) {
        obj.metadata.managedFields = entries;
        return obj;
      }
    }
    const managed = yield* managedForUpdate(live, obj, request.subresource);
    delete obj.metadata.managedFields;
    // An existing object without managedFields stays untracked until it is applied to.
    if (managed.fields.size === 0 && live?.metadata.uid) return obj;
    const identifier = managerIdentifier({ manager, operation: 'Update', apiVersion: opts.apiVersion, subresource: request.subresource });
    const liveValue = live ? withoutManagedFields(live) : {};
    const recorded = yield* recordWrite(opts, liveValue, obj, managed, identifier, now);
    yield* setManagedFields(obj, recorded);
    return obj;
  }

  private *applySteps(live: KubeObject | null, applied: KubeObject, request: FieldManagerRequest & { force: boolean }): Steps<KubeObject> {
    const def = request.definition;
    const gvk = gvkOf(applied);
    if (gvk.group !== def.group || gvk.version !== def.version || gvk.kind !== def.kind) {
      throw badRequest(`invalid object type: ${gvkString(gvk)}`);
    }
    let managed: Managed;
    try {
      managed = yield* decodeManagedFieldsSteps(live?.metadata.managedFields);
    } catch (err) {
      throw unknownError(`failed to decode managed fields: ${err instanceof Error ? err.message : String(err)}`);
    }
    const opts = updaterOptions(request);
    let result: KubeObject;
    try {
      try {
        result = yield* this.applyOnce(live, applied, managed, request, opts, request.force);
      } catch (err) {
        if (!(err instanceof ApplyConflictError) || request.manager !== kubectlManager) throw err;
        const allowed = yield* fieldsFromLastApplied(live, opts);
        if (!allowed) throw err;
        const remaining = err.conflicts.filter((c) => !allowed.has(c.path));
        if (remaining.length > 0) throw new ApplyConflictError(remaining);
        result = yield* this.applyOnce(live, applied, managed, request, opts, true);
      }
    } catch (err) {
      if (err instanceof ApplyConflictError) throw applyConflictError(err.conflicts);
      throw err;
    }
    if (request.manager === kubectlManager) yield* refreshLastApplied(result, applied);
    return result;
  }

  private *applyOnce(
    live: KubeObject | null,
    applied: KubeObject,
    start: Managed,
    request: FieldManagerRequest,
    opts: UpdaterOptions,
    force: boolean,
  ): Steps<KubeObject> {
    const now = formatTimeOf(request.now);
    const liveValue = live ? withoutManagedFields(live) : {};
    let managed = start;
    if (managed.fields.size === 0) {
      // The fields the object has before its first apply are owned by a stand-in updater.
      const identifier = managerIdentifier({
        manager: beforeFirstApplyManager,
        operation: 'Update',
        apiVersion: opts.apiVersion,
        subresource: request.subresource,
      });
      managed = yield* recordWrite(opts, {}, liveValue, managed, identifier, now);
    }
    // Read only: the merge builds new maps and lists and shares leaves with it (see the contract).
    const config = applied as Record<string, unknown>;
    const meta = config['metadata'];
    if (isObject(meta) && Array.isArray(meta['managedFields'])) throw badRequest('metadata.managedFields must be nil');
    const errors = yield* validateSteps(config, opts.schema);
    if (errors.length) throw badRequest(`failed to create typed patch object (${objectDescription(config)}): ${validationErrorsString(errors)}`);
    yield;

    const identifier = managerIdentifier({
      manager: request.manager || 'unknown',
      operation: 'Apply',
      apiVersion: opts.apiVersion,
      subresource: request.subresource,
    });
    let merged;
    try {
      merged = yield* applyConfigurationSteps(opts, liveValue, config, managed.fields, identifier, force);
    } catch (err) {
      if (err instanceof TypedValueError) throw badRequest(`failed to merge config: ${err.message}`);
      throw err;
    }
    const fields = merged.managers;
    stripMeta(fields, identifier);
    yield;
    const times = new Map(managed.times);
    let object: KubeObject;
    if (merged.object) {
      times.set(identifier, now);
      object = (yield* dropNullFieldsSteps(merged.object, opts.schema)) as KubeObject;
      yield;
    } else {
      // Nothing changed in the object: it stays as it is, and the applier's time is not touched.
      object = liveValue as KubeObject;
    }
    if (!isObject(object.metadata)) object.metadata = {};
    yield* setManagedFields(object, { fields, times });
    return object;
  }
}

/** Runs a field manager's steps, yielding to the event loop between them as the request's slice decides. */
async function run<T>(steps: Steps<T>, request: FieldManagerRequest): Promise<T> {
  const slice = request.slice;
  return slice ? slice.run(steps) : runSteps(steps);
}

/** `ownedUpdates: false` records every update in full (tests compare the two). */
export function createFieldManager(options: { ownedUpdates?: boolean } = {}): FieldManager {
  return new ManagedFieldsManager(options.ownedUpdates ?? true);
}

// ---------------------------------------------------------------------------------------------
// Helpers for the store and the endpoint.

/**
 * The manager of a write without `fieldManager` (upstream prefixFromUserAgent): the User-Agent up
 * to its first `/`, without unprintable characters, cut to 128 bytes. `kubectl/v1.32.0 (linux)`
 * gives `kubectl`.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const head = (userAgent ?? '').split('/')[0] ?? '';
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!isGoPrint(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > fieldManagerMaxLength) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/**
 * upstream ValidatePatchOptions' rules on fieldManager and force, which come before its other
 * checks (the field manager's length and characters, dryRun, fieldValidation). Report them as
 * `PatchOptions.meta.k8s.io "" is invalid: ...` (422).
 */
export function patchOptionsErrors(isApply: boolean, fieldManager: string | null | undefined, forceGiven: boolean): FieldError[] {
  if (isApply) return fieldManager ? [] : [required(FieldPath.root('fieldManager'), 'is required for apply patch')];
  return forceGiven ? [forbidden(FieldPath.root('force'), 'may not be specified for non-apply patch')] : [];
}

/**
 * The warning of a write whose mutating admission left managedFields undecodable; the store then
 * restores the managedFields from before admission (upstream's managedFields-validating admission
 * wrapper). Undefined when they decode.
 */
export function invalidManagedFieldsWarning(entries: unknown): string | undefined {
  try {
    decodeManagedFields(entries);
    return undefined;
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return `.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: ${detail}`;
  }
}

const isBlank = (v: unknown): boolean => {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (!isObject(v)) return false;
  for (const _ in v) return false;
  return true;
};

/**
 * Equality where absent, null and empty lists or maps are alike, as Go's semantic equality. Every
 * key of either map is compared once (no set of their union: a map of 150,000 keys).
 */
function semanticEqual(a: unknown, b: unknown): boolean {
  if (isBlank(a) && isBlank(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => semanticEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    for (const k of Object.keys(a)) if (!semanticEqual(a[k], Object.hasOwn(b, k) ? b[k] : undefined)) return false;
    for (const k of Object.keys(b)) if (!Object.hasOwn(a, k) && !semanticEqual(undefined, b[k])) return false;
    return true;
  }
  return valuesEqual(a, b);
}

function withoutEntries(metadata: KubeObject['metadata']): Record<string, unknown> {
  const { managedFields: _entries, ...rest } = metadata;
  return rest;
}

function withoutTimes(entries: readonly ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  return entries.map((entry) => {
    const copy = { ...entry };
    delete copy.time;
    return copy;
  });
}

/**
 * Undoes managedFields time changes of a write that changes nothing else (upstream
 * IgnoreManagedFieldsTimestampsTransformer), so that a no-op write stays a no-op. Call it after the
 * strategy's prepareForUpdate, before comparing with the stored object. Mutates `updated`.
 */
export function ignoreManagedFieldsTimestamps(updated: KubeObject, existing: KubeObject): void {
  runSteps(ignoreManagedFieldsTimestampsSteps(updated, existing));
}

/** ignoreManagedFieldsTimestamps with the request's slice between its passes (a pass per entry, one over the rest). */
export function ignoreManagedFieldsTimestampsYielding(updated: KubeObject, existing: KubeObject, slice: TimeSlice): Promise<void> {
  return slice.run(ignoreManagedFieldsTimestampsSteps(updated, existing));
}

function* ignoreManagedFieldsTimestampsSteps(updated: KubeObject, existing: KubeObject): Steps<void> {
  const next = updated.metadata.managedFields ?? [];
  const prev = existing.metadata.managedFields ?? [];
  if (next.length !== prev.length || next.length === 0) return;
  if (next.every((entry, i) => entry.time === prev[i]?.time)) return;
  const nextStripped = withoutTimes(next);
  const prevStripped = withoutTimes(prev);
  // semanticEqual(nextStripped, prevStripped), an entry at a time.
  for (let i = 0; i < nextStripped.length; i++) {
    if (!semanticEqual(nextStripped[i], prevStripped[i])) return;
    yield;
  }
  // The entries are equal: the objects are compared without them.
  const a = { ...updated, metadata: withoutEntries(updated.metadata) };
  const b = { ...existing, metadata: withoutEntries(existing.metadata) };
  if (!semanticEqual(a, b)) return;
  next.forEach((entry, i) => {
    const time = prev[i]?.time;
    if (time === undefined) delete entry.time;
    else entry.time = time;
  });
}
