/**
 * A kind's Table (meta.k8s.io/v1) as its definition declares it (`table`), as upstream's printers
 * define them: the columns and the cells of one object's row. Kinds build theirs from the shared
 * columns and cell helpers here; kinds without one get upstream's default, Name and Created At.
 * Serving a Table for a request (includeObject, row objects, list metadata) is the endpoints'
 * (apiserver/endpoints/table.ts).
 */
import type { KubeObject } from '../../shared/api/types.ts';
import { humanDuration } from '../../shared/go/human-duration.ts';
import type { ResourceDefinition, TableColumnDefinition } from './definition.ts';

/** metav1.ObjectMeta's swagger docs, which upstream's printers use for these columns. */
const objectMetaNameDoc =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const creationTimestampDoc =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The Name column of upstream's printers. */
export const nameColumn: TableColumnDefinition = { name: 'Name', type: 'string', format: 'name', description: objectMetaNameDoc };
/** The Age column of upstream's printers (a human duration, so of type string). */
export const ageColumn: TableColumnDefinition = { name: 'Age', type: 'string', description: creationTimestampDoc };

/** Upstream's default columns, for kinds without their own. */
const defaultColumns: readonly TableColumnDefinition[] = [nameColumn, { name: 'Created At', type: 'date', description: creationTimestampDoc }];

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

/** The columns of a kind's Table. */
export function tableColumns(def: Pick<ResourceDefinition, 'table'>): readonly TableColumnDefinition[] {
  return def.table?.columns ?? defaultColumns;
}

function defaultCells(obj: KubeObject): unknown[] {
  return [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? null];
}

/** The cells of one object's row as of `now` (the only part of a row that depends on the time). */
export function rowCells(def: Pick<ResourceDefinition, 'table'>, obj: KubeObject, now: Date): unknown[] {
  return def.table ? def.table.cells(obj, now) : defaultCells(obj);
}
