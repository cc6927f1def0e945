/**
 * The Table representation (meta.k8s.io/v1 Table) that `kubectl get` asks for, served for a get or
 * a list: the kind's columns and row cells (apiserver/registry/table.ts), each row with the object
 * as includeObject asks (None, its metadata, or the whole object). Like upstream's server-side
 * printing, every row carries the cells of all columns, wide ones included; clients hide
 * priority > 0 unless asked.
 */
import type { KubeObject, ListMeta } from '../../shared/api/types.ts';
import { apiVersionOf, type ResourceDefinition, type TableColumnDefinition } from '../registry/definition.ts';
import { rowCells, tableColumns } from '../registry/table.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** A column as served: every field present, as metav1.TableColumnDefinition marshals. */
export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
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
    metadata: {
      resourceVersion: listMeta.resourceVersion,
      ...(listMeta.continue ? { continue: listMeta.continue } : {}),
      ...(listMeta.remainingItemCount !== undefined ? { remainingItemCount: listMeta.remainingItemCount } : {}),
    },
    columnDefinitions: tableColumns(def).map(servedColumn),
    rows: objects.map((obj) => {
      const object = rowObject(def, obj, include, version);
      return { cells: rowCells(def, obj, now), ...(object ? { object } : {}) };
    }),
  };
}
