/**
 * The common update, recorded without the field sets: a manager writes again values of fields that
 * it alone already owns (a node renewing its Lease, a controller refreshing a status field). Its
 * managedFields come out as the live object's, with the writer's entry stamped with the time when
 * a value changed: what the full recording (managed-fields.ts, upstream's managedFieldsUpdater)
 * yields for such a write, at the cost of one walk over the two objects instead of converting both
 * to typed values and field sets.
 *
 * Anything else is left to the full recording (undefined): a field added or removed, a list that
 * differs, a changed field that another entry owns or the writer does not, a change under a field
 * the write's strategy resets or a writer's entry holding one, managedFields the request sets, a
 * kind or API version that differs, or entries that do not read as upstream's.
 */
import { isObject, type KubeObject, type ManagedFieldsEntry } from '../../shared/api/types.ts';
import { valuesEqual } from '../../shared/apply/fieldpath.ts';
import { tryParseTime } from '../../shared/go/time.ts';
import { compareManagedFieldsEntries, unownedMetadataFields } from './managed-fields-entries.ts';

/** Metadata fields nobody owns: their changes record nothing. */
const unownedMetadata = new Set(unownedMetadataFields);

/** Which entry is the writer's: upstream's manager identifier of an Update. */
export interface UpdateWriter {
  manager: string;
  apiVersion: string;
  subresource: string;
}

/** Too complex for the walk: the full recording decides. */
const fallBack = Symbol('fallBack');

type Changes = string[][] | typeof fallBack;

const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** What no one owns at the top of an object (its metadata's unowned fields are `unownedMetadata`). */
const unownedTopLevel = new Set(['apiVersion', 'kind']);

/**
 * The paths of scalars whose values differ between two maps with the same keys, the `ignored` keys
 * of this level left out; fallBack for any other difference. Nothing is copied: this runs on every
 * update.
 */
function changedScalars(
  live: Record<string, unknown>,
  updated: Record<string, unknown>,
  path: string[],
  out: string[][],
  ignored: ReadonlySet<string>,
): Changes {
  let keys = 0;
  for (const key in live) {
    if (ignored.has(key)) continue;
    keys++;
    if (!Object.hasOwn(updated, key)) return fallBack;
    const a = live[key];
    const b = updated[key];
    if (a === b) continue;
    if (isScalar(a) && isScalar(b)) {
      out.push([...path, key]);
      continue;
    }
    if (Array.isArray(a) || Array.isArray(b)) {
      if (Array.isArray(a) && Array.isArray(b) && valuesEqual(a, b)) continue;
      return fallBack;
    }
    if (!isObject(a) || !isObject(b)) return fallBack;
    const below = path.length === 0 && key === 'metadata' ? unownedMetadata : nothingIgnored;
    if (changedScalars(a, b, [...path, key], out, below) === fallBack) return fallBack;
  }
  for (const key in updated) if (!ignored.has(key)) keys--;
  return keys === 0 ? out : fallBack;
}

const nothingIgnored: ReadonlySet<string> = new Set();

/** The changed scalar paths of an update of the same kind and API version; fallBack for any other difference. */
function changes(live: KubeObject, updated: KubeObject): Changes {
  if (live.apiVersion !== updated.apiVersion || live.kind !== updated.kind) return fallBack;
  return changedScalars(live, updated, [], [], unownedTopLevel);
}

/**
 * Whether a FieldsV1 set holds anything at `path`: the field itself (a leaf is `{}`), or fields
 * below it.
 */
function reaches(fieldsV1: Record<string, unknown>, path: readonly string[]): boolean {
  let node: unknown = fieldsV1;
  for (const name of path) {
    if (!isObject(node)) return false;
    node = node[`f:${name}`];
  }
  return node !== undefined;
}

const startsWith = (path: readonly string[], prefix: readonly string[]): boolean => prefix.length <= path.length && prefix.every((name, i) => path[i] === name);

/** Whether a set holds `path`, or an ancestor of it as a leaf (owned whole): any claim on the field. */
function claimsField(fieldsV1: Record<string, unknown>, path: readonly string[]): boolean {
  let node: unknown = fieldsV1;
  for (const name of path) {
    if (!isObject(node)) return false;
    let empty = true;
    for (const _ in node) {
      empty = false;
      break;
    }
    if (empty && node !== fieldsV1) return true;
    node = node[`f:${name}`];
  }
  return node !== undefined;
}

function wellFormed(entry: unknown): entry is ManagedFieldsEntry & { fieldsV1: Record<string, unknown> } {
  if (!isObject(entry)) return false;
  const { operation, apiVersion, fieldsType, fieldsV1, time, manager, subresource } = entry;
  return (
    (operation === 'Apply' || operation === 'Update') &&
    typeof apiVersion === 'string' &&
    apiVersion !== '' &&
    fieldsType === 'FieldsV1' &&
    isObject(fieldsV1) &&
    (manager === undefined || typeof manager === 'string') &&
    (subresource === undefined || typeof subresource === 'string') &&
    (time === undefined || (typeof time === 'string' && tryParseTime(time) !== null))
  );
}

/**
 * The managedFields of `updated` when the update only rewrites fields the writer alone owns, or
 * undefined when the full recording must decide. `now`: the write's time (RFC 3339, seconds).
 * `resetPaths`: the fields the write's strategy resets, which nobody may own through it.
 */
export function ownedUpdateManagedFields(
  live: KubeObject,
  updated: KubeObject,
  writer: UpdateWriter,
  now: string,
  opts: { subresource: string; resetPaths: readonly (readonly string[])[] },
): ManagedFieldsEntry[] | undefined {
  const { resetPaths } = opts;
  const entries = live.metadata.managedFields;
  if (!Array.isArray(entries) || entries.length === 0 || !entries.every(wellFormed)) return undefined;
  // The request's own managedFields count only on the main resource, and only when they differ from the live ones.
  const sent = updated.metadata.managedFields;
  if (!opts.subresource && sent !== undefined && sent !== null && !valuesEqual(sent, entries)) return undefined;
  const writerIndex = entries.findIndex(
    (e) =>
      e.operation === 'Update' && (e.manager ?? '') === writer.manager && e.apiVersion === writer.apiVersion && (e.subresource ?? '') === writer.subresource,
  );
  const changed = changes(live, updated);
  if (changed === fallBack) return undefined;
  if (changed.length === 0) return entries.map((e) => ({ ...e }));
  if (writerIndex < 0) return undefined;
  const writerFields = entries[writerIndex]!.fieldsV1;
  // The full recording takes reset fields out of the writer's entry: it must hold none.
  if (resetPaths.some((reset) => reaches(writerFields, reset))) return undefined;
  for (const path of changed) {
    if (resetPaths.some((reset) => startsWith(path, reset))) return undefined;
    if (!reaches(writerFields, path)) return undefined;
    if (entries.some((e, i) => i !== writerIndex && claimsField(e.fieldsV1, path))) return undefined;
  }
  return entries.map((e, i) => (i === writerIndex ? { ...e, time: now } : { ...e })).sort(compareManagedFieldsEntries);
}
