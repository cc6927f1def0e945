/**
 * The wire shapes every kind shares: object and list metadata, Status, and the generic object type
 * the registry handles. Kind-specific shapes live beside their definitions.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  selfLink?: string;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** Any object the API serves. Kind-specific fields are reached through the index signature. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: ListMeta;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  /** Omitted on success Statuses (Go's omitempty of 0). */
  code?: number;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `obj` without metadata.managedFields, for a reader that never looks at them: a copy of its top
 * level and metadata only, the rest shared with `obj`; `obj` itself when it has none. An update
 * sent without them keeps the live object's (a client unaware of managedFields never erases them).
 */
export function withoutManagedFields<T extends KubeObject>(obj: T): T {
  if (!isObject(obj.metadata) || obj.metadata.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** Deep copy of a JSON value; storage and cache hand out copies so that callers may mutate freely. */
export function deepCopy<T>(value: T): T {
  return structuredClone(value);
}

/** `group/version` as apiVersion writes it (`v1` for the core group). */
export function apiVersionOf(ref: { readonly group: string; readonly version: string }): string {
  return ref.group ? `${ref.group}/${ref.version}` : ref.version;
}
