/**
 * The Table representation (meta.k8s.io/v1 Table) that `kubectl get` asks for. Kinds without
 * their own columns get upstream's default: Name and Created At.
 */
import type { KubeObject, ListMeta } from '../../shared/api/types.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

const defaultColumns: TableColumn[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names', priority: 0 },
  { name: 'Created At', type: 'date', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata', priority: 0 },
];

export function partialObjectMetadata(obj: KubeObject, version: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

function rowObject(obj: KubeObject, include: IncludeObject, version: string): KubeObject | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return partialObjectMetadata(obj, version);
}

export function toTable(objects: KubeObject[], listMeta: ListMeta, include: IncludeObject, version: string): Record<string, unknown> {
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: { resourceVersion: listMeta.resourceVersion, ...(listMeta.continue ? { continue: listMeta.continue } : {}), ...(listMeta.remainingItemCount !== undefined ? { remainingItemCount: listMeta.remainingItemCount } : {}) },
    columnDefinitions: defaultColumns,
    rows: objects.map((obj) => {
      const object = rowObject(obj, include, version);
      return { cells: [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? null], ...(object ? { object } : {}) };
    }),
  };
}
