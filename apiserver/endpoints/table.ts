/**
 * The Table representation (meta.k8s.io/v1 Table) that `kubectl get` asks for. A kind's own
 * columns come from its definition (`table`), as upstream's printers define them; kinds without
 * them get upstream's default: Name and Created At. Like upstream's server-side printing, every
 * row carries the cells of all columns, wide ones included; clients hide priority > 0 unless asked.
 */
import type { KubeObject, ListMeta } from '../../shared/api/types.ts';
import { humanDuration } from '../../shared/api/duration.ts';
import { apiVersionOf, type ResourceDefinition, type TableColumnDefinition } from '../registry/definition.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** A column as served: every field present, as metav1.TableColumnDefinition marshals. */
export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** metav1.ObjectMeta's swagger docs, which upstream's printers use for these columns. */
const objectMetaNameDoc =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const creationTimestampDoc =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The Name column of upstream's printers. */
export const nameColumn: TableColumnDefinition = { name: 'Name', type: 'string', format: 'name', description: objectMetaNameDoc };
/** The Age column of upstream's printers (a human duration, so of type string). */
export const ageColumn: TableColumnDefinition = { name: 'Age', type: 'string', description: creationTimestampDoc };

const defaultColumns: readonly TableColumnDefinition[] = [
  nameColumn,
  { name: 'Created At', type: 'date', description: creationTimestampDoc },
];

const zeroTime = Date.parse('0001-01-01T00:00:00Z');

/** Milliseconds since the epoch of a metav1.Time or MicroTime, or null for Go's zero time (absent, null, year 1). */
export function timestampMillis(timestamp: string | null | undefined): number | null {
  if (!timestamp) return null;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) || ms === zeroTime ? null : ms;
}

/** Upstream's translateTimestampSince: the time since `timestamp` as a human duration, `<unknown>` for a zero time. */
export function timeSince(timestamp: string | null | undefined, now: Date): string {
  const ms = timestampMillis(timestamp);
  return ms === null ? '<unknown>' : humanDuration(now.getTime() - ms);
}

/** The Age cell: time since the object's creation. */
export function age(obj: KubeObject, now: Date): string {
  return timeSince(obj.metadata.creationTimestamp, now);
}

export function partialObjectMetadata(obj: KubeObject, version: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

/** What a Table needs of a kind: its columns, and its group, version and kind for rows carrying the object. */
export type TableKind = Pick<ResourceDefinition, 'table' | 'group' | 'version' | 'kind'>;

/**
 * A row's object with includeObject=Object is the object converted to the kind's version, so it
 * names its apiVersion and kind as a single object does (clients decode it on its own: kubectl's
 * --sort-by does, and prints an empty row for an object without a kind). List items are stored and
 * listed without them; the object given is never changed, a copy carries them.
 */
function withTypeMeta(def: TableKind, obj: KubeObject): KubeObject {
  const apiVersion = apiVersionOf(def);
  if (obj.apiVersion === apiVersion && obj.kind === def.kind) return obj;
  // kind and apiVersion lead, as upstream encodes TypeMeta; the object's own (if any) are overridden.
  const typeMeta = { kind: def.kind, apiVersion };
  return { ...typeMeta, ...obj, ...typeMeta };
}

function rowObject(def: TableKind, obj: KubeObject, include: IncludeObject, version: string): KubeObject | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return withTypeMeta(def, obj);
  return partialObjectMetadata(obj, version);
}

function servedColumn(column: TableColumnDefinition): TableColumn {
  return { name: column.name, type: column.type, format: column.format ?? '', description: column.description, priority: column.priority ?? 0 };
}

function defaultCells(obj: KubeObject): unknown[] {
  return [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? null];
}

/** The cells of one object's row as of `now` (the only part of a row that depends on the time). */
export function rowCells(def: Pick<ResourceDefinition, 'table'>, obj: KubeObject, now: Date): unknown[] {
  return def.table ? def.table.cells(obj, now) : defaultCells(obj);
}

/** The Table of `objects` (one for a get, the items of a list), as of the request's time `now`. */
export function toTable(
  def: TableKind,
  objects: KubeObject[],
  listMeta: ListMeta,
  include: IncludeObject,
  version: string,
  now: Date,
): Record<string, unknown> {
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: { resourceVersion: listMeta.resourceVersion, ...(listMeta.continue ? { continue: listMeta.continue } : {}), ...(listMeta.remainingItemCount !== undefined ? { remainingItemCount: listMeta.remainingItemCount } : {}) },
    columnDefinitions: (def.table?.columns ?? defaultColumns).map(servedColumn),
    rows: objects.map((obj) => {
      const object = rowObject(def, obj, include, version);
      return { cells: rowCells(def, obj, now), ...(object ? { object } : {}) };
    }),
  };
}
