/**
 * Validation of the metadata every object shares (upstream's apimachinery api/validation/objectmeta.go,
 * meta/v1/validation, and the finalizer-name rule pkg/apis/core/validation adds for built-in kinds).
 * Each check returns field errors with upstream's paths and texts, in upstream's order.
 *
 * Where Go prints a value no JSON string can reproduce (timestamps, structs, slices), the value shown is the
 * closest JSON: the field, type and detail still match upstream.
 */

import type { ManagedFieldsEntry, ObjectMeta, OwnerReference } from '../api/types.ts';
import { FieldPath, fieldImmutable, forbidden, invalid, required, tooLong, type FieldError } from '../api/field.ts';
import { compareGoStrings, goQuote, isGoPrint } from '../go/format.ts';
import { isQualifiedName, isValidLabelValue, nameIsDNSLabel, nameIsPathSegment, type NameRule } from './names.ts';
import { append } from '../api/append.ts';

export const totalAnnotationSizeLimitBytes = 256 * 1024;
export const fieldManagerMaxLength = 128;
export const maxSubresourceNameLength = 256;

export const finalizerOrphanDependents = 'orphan';
export const finalizerDeleteDependents = 'foregroundDeletion';
/** Finalizer names built-in kinds may use without a domain prefix. */
export const standardFinalizers: ReadonlySet<string> = new Set(['kubernetes', finalizerOrphanDependents, finalizerDeleteDependents]);

const isNegativeMessage = 'must be greater than or equal to 0';

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

export interface ObjectMetaOptions {
  namespaced: boolean;
  nameRule: NameRule;
  /**
   * Built-in kinds (default true) reject finalizer names without '/' that are not standard, as
   * pkg/apis/core/validation does; custom resources only warn (see customResourceFinalizerWarnings).
   */
  strictFinalizerNames?: boolean;
}

export interface ObjectMetaUpdateOptions {
  /** When given, the namespace is checked as on create; the store normally guarantees it already. */
  namespaced?: boolean;
  strictFinalizerNames?: boolean;
}

/** Label keys must be qualified names and values label values; both report at the labels map itself. */
export function validateLabels(labels: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!labels) return errs;
  // Keys and lookups rather than Object.entries: no pair array per label (a Node may carry 100,000).
  for (const k of Object.keys(labels)) {
    const v = labels[k] as string;
    for (const msg of isQualifiedName(k)) errs.push(invalid(path, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(path, v, msg));
  }
  return errs;
}

/** Annotation keys are qualified names regardless of case; keys and values together stay within 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > totalAnnotationSizeLimitBytes) errs.push(tooLong(path, '', totalAnnotationSizeLimitBytes));
  return errs;
}

/** Group and version of an apiVersion as upstream's ParseGroupVersion reads it; more than one '/' fails. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return undefined;
}

/** Kinds that may not own other objects, as upstream's BannedOwners. */
const bannedOwners = new Set(['/v1, Kind=Event']);

function validateOwnerReference(ref: OwnerReference, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = ref.apiVersion ?? '';
  const kind = ref.kind ?? '';
  const gv = parseGroupVersion(apiVersion) ?? { group: '', version: '' };
  if (gv.version === '') errs.push(invalid(path.child('apiVersion'), apiVersion, 'version must not be empty'));
  if (kind === '') errs.push(invalid(path.child('kind'), kind, 'kind must not be empty'));
  if (!ref.name) errs.push(invalid(path.child('name'), ref.name ?? '', 'name must not be empty'));
  if (!ref.uid) errs.push(invalid(path.child('uid'), ref.uid ?? '', 'uid must not be empty'));
  const gvk = `${gv.group}/${gv.version}, Kind=${kind}`;
  if (bannedOwners.has(gvk)) errs.push(invalid(path, ref, `${gvk} is disallowed from being an owner`));
  return errs;
}

/** Each reference names its owner fully (errors at the list path, unindexed, as upstream); at most one is the controller. */
export function validateOwnerReferences(refs: readonly OwnerReference[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    append(errs, validateOwnerReference(ref, path));
    if (ref.controller !== true) continue;
    const current = `${ref.kind ?? ''}/${ref.name ?? ''}`;
    if (firstController === '') firstController = current;
    else {
      errs.push(invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`));
    }
  }
  return errs;
}

/** Each finalizer is a qualified name (errors at the list path, unindexed); orphan and foregroundDeletion exclude each other. */
export function validateFinalizers(finalizers: readonly string[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const list = finalizers ?? [];
  for (const f of list) for (const msg of isQualifiedName(f)) errs.push(invalid(path, f, msg));
  if (list.includes(finalizerOrphanDependents) && list.includes(finalizerDeleteDependents)) {
    errs.push(invalid(path, list, `finalizer ${finalizerOrphanDependents} and ${finalizerDeleteDependents} cannot be both set`));
  }
  return errs;
}

/** Built-in kinds only: a finalizer name without '/' must be one of the standard ones. Errors are indexed. */
function validateStandardFinalizerNames(finalizers: readonly string[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (finalizers ?? []).forEach((f, i) => {
    if (!f.includes('/') && !standardFinalizers.has(f)) {
      errs.push(invalid(path.index(i), f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

/** Go's %#U of a rune: U+ and at least four hex digits. */
const runeText = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** A field manager name is at most 128 bytes of printable characters. */
export function validateFieldManager(manager: string | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const m = manager ?? '';
  if (byteLength(m) > fieldManagerMaxLength) errs.push(tooLong(path, '', fieldManagerMaxLength));
  let offset = 0;
  for (const ch of m) {
    if (!isGoPrint(ch)) errs.push(invalid(path, m, `invalid character ${runeText(ch.codePointAt(0) ?? 0)} (at position ${offset})`));
    offset += byteLength(ch);
  }
  return errs;
}

export function validateManagedFields(entries: readonly ManagedFieldsEntry[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((entry, i) => {
    const p = path.index(i);
    const operation = entry.operation ?? '';
    if (operation !== 'Apply' && operation !== 'Update') errs.push(invalid(p.child('operation'), operation, 'must be `Apply` or `Update`'));
    const fieldsType = entry.fieldsType ?? '';
    if (fieldsType !== '' && fieldsType !== 'FieldsV1') errs.push(invalid(p.child('fieldsType'), fieldsType, 'must be `FieldsV1`'));
    append(errs, validateFieldManager(entry.manager, p.child('manager')));
    if (byteLength(entry.subresource ?? '') > maxSubresourceNameLength) errs.push(tooLong(p.child('subresource'), '', maxSubresourceNameLength));
  });
  return errs;
}

/**
 * Metadata of an object being created (upstream's ValidateObjectMetaAccessor, plus the standard-finalizer
 * rule of built-in kinds). Expects a generated name to be in place already.
 */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaOptions, path: FieldPath = FieldPath.root('metadata')): FieldError[] {
  const errs: FieldError[] = [];
  append(errs, validateNames(meta, opts.nameRule, path));
  append(errs, validateNamespace(meta, opts.namespaced, path));
  append(errs, validateCommon(meta, path));
  if (opts.strictFinalizerNames !== false) append(errs, validateStandardFinalizerNames(meta.finalizers, path.child('finalizers')));
  return errs;
}

function validateNames(meta: ObjectMeta, nameRule: NameRule, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generateName) {
    for (const msg of nameRule(meta.generateName, true)) errs.push(invalid(path.child('generateName'), meta.generateName, msg));
  }
  if (!meta.name) errs.push(required(path.child('name'), 'name or generateName is required'));
  else for (const msg of nameRule(meta.name, false)) errs.push(invalid(path.child('name'), meta.name, msg));
  return errs;
}

function validateNamespace(meta: ObjectMeta, namespaced: boolean, path: FieldPath): FieldError[] {
  const p = path.child('namespace');
  if (!namespaced) return meta.namespace ? [forbidden(p, 'not allowed on this type')] : [];
  if (!meta.namespace) return [required(p)];
  return nameIsDNSLabel(meta.namespace, false).map((msg) => invalid(p, meta.namespace, msg));
}

/** The create checks that do not depend on the kind: generation, labels, annotations, owners, finalizers, managed fields. */
function validateCommon(meta: ObjectMeta, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const generation = meta.generation ?? 0;
  if (generation < 0) errs.push(invalid(path.child('generation'), generation, isNegativeMessage));
  append(errs, validateLabels(meta.labels, path.child('labels')));
  append(errs, validateAnnotations(meta.annotations, path.child('annotations')));
  append(errs, validateOwnerReferences(meta.ownerReferences, path.child('ownerReferences')));
  append(errs, validateFinalizers(meta.finalizers, path.child('finalizers')));
  append(errs, validateManagedFields(meta.managedFields, path.child('managedFields')));
  return errs;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Go's time.Time String() in UTC ("2006-01-02 15:04:05.999999999 +0000 UTC"); the zero time for absent. */
function goTimeText(value: string | undefined): string {
  if (!value) return '0001-01-01 00:00:00 +0000 UTC';
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return value;
  const d = new Date(ms);
  const frac = d.getUTCMilliseconds() ? `.${pad(d.getUTCMilliseconds(), 3).replace(/0+$/, '')}` : '';
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${frac} +0000 UTC`;
}

/** Times compare as instants (upstream's semantic equality), not as text. */
function sameTime(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return !a && !b;
  const x = Date.parse(a);
  const y = Date.parse(b);
  return Number.isNaN(x) || Number.isNaN(y) ? a === b : x === y;
}

/** Finalizers in `current` but not in `previous`, each once, sorted as upstream's string sets list them. */
function addedFinalizers(current: readonly string[] | undefined, previous: readonly string[] | undefined): string[] {
  const before = new Set(previous ?? []);
  return [...new Set((current ?? []).filter((f) => !before.has(f)))].sort(compareGoStrings);
}

function immutable(path: FieldPath, value: unknown): FieldError {
  return invalid(path, value, fieldImmutable);
}

/**
 * Metadata of an object being updated: the create checks upstream's generic store repeats (name and
 * generateName by its path-segment rule, generation, labels, annotations, owners, finalizers, managed
 * fields; the namespace only when opts.namespaced is given), then
 * upstream's ValidateObjectMetaAccessorUpdate: no finalizer may be added once deletion started, generation
 * may not decrease, and name, namespace, uid, creationTimestamp, deletionTimestamp and
 * deletionGracePeriodSeconds may not change.
 *
 * Left to the store, which answers them before validation with upstream's own messages: the
 * resourceVersion requirement, and names or namespaces that differ from the request's.
 * Upstream runs some of these checks twice on update (generic store and kind strategy) and so repeats
 * causes; each problem is reported once here, which leaves the Status message unchanged.
 */
export function validateObjectMetaUpdate(
  meta: ObjectMeta,
  old: ObjectMeta,
  path: FieldPath = FieldPath.root('metadata'),
  opts: ObjectMetaUpdateOptions = {},
): FieldError[] {
  const errs: FieldError[] = [];
  append(errs, validateNames(meta, nameIsPathSegment, path));
  if (opts.namespaced !== undefined) append(errs, validateNamespace(meta, opts.namespaced, path));
  append(errs, validateCommon(meta, path));

  if (old.deletionTimestamp) {
    const added = addedFinalizers(meta.finalizers, old.finalizers);
    if (added.length) {
      const list = `[]string{${added.map(goQuote).join(', ')}}`;
      errs.push(forbidden(path.child('finalizers'), `no new finalizers can be added if the object is being deleted, found new finalizers ${list}`));
    }
  }
  const generation = meta.generation ?? 0;
  if (generation < (old.generation ?? 0)) errs.push(invalid(path.child('generation'), generation, 'must not be decremented'));
  if ((meta.name ?? '') !== (old.name ?? '')) errs.push(immutable(path.child('name'), meta.name ?? ''));
  if ((meta.namespace ?? '') !== (old.namespace ?? '')) errs.push(immutable(path.child('namespace'), meta.namespace ?? ''));
  if ((meta.uid ?? '') !== (old.uid ?? '')) errs.push(immutable(path.child('uid'), meta.uid ?? ''));
  if (!sameTime(meta.creationTimestamp, old.creationTimestamp)) {
    errs.push(immutable(path.child('creationTimestamp'), goTimeText(meta.creationTimestamp)));
  }
  if (!sameTime(meta.deletionTimestamp, old.deletionTimestamp)) {
    errs.push(immutable(path.child('deletionTimestamp'), meta.deletionTimestamp ? goTimeText(meta.deletionTimestamp) : null));
  }
  if (meta.deletionGracePeriodSeconds !== old.deletionGracePeriodSeconds) {
    errs.push(immutable(path.child('deletionGracePeriodSeconds'), meta.deletionGracePeriodSeconds ?? null));
  }

  if (opts.strictFinalizerNames !== false) append(errs, validateStandardFinalizerNames(meta.finalizers, path.child('finalizers')));
  return errs;
}

/**
 * Warnings custom resources get instead of the standard-finalizer error, for finalizers the request adds
 * (all of them on create), in sorted order as upstream's apiextensions strategy words them.
 */
export function customResourceFinalizerWarnings(finalizers: readonly string[] | undefined, oldFinalizers?: readonly string[]): string[] {
  const added = addedFinalizers(finalizers, oldFinalizers);
  const path = 'metadata.finalizers';
  const warnings: string[] = [];
  for (const f of added) {
    const quoted = goQuote(f);
    for (const msg of isQualifiedName(f)) warnings.push(`${path}: ${quoted}: ${msg}`);
    if (!f.includes('/') && !standardFinalizers.has(f)) {
      const hint = f.includes('.') ? 'a domain-qualified finalizer name including a path (/)' : 'a domain-qualified finalizer name';
      warnings.push(`${path}: ${quoted}: prefer ${hint} to avoid accidental conflicts with other finalizer writers`);
    }
  }
  return warnings;
}
