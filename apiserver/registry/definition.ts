/**
 * A kind is declared once, as a ResourceDefinition: its names, scope, verbs, schema, strategy and
 * subresources. Everything generic (routing, discovery, the store, decoding, selectors, deletion)
 * is driven by these definitions; adding a kind touches nothing generic.
 */
import type { FieldError } from '../../shared/api/field.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import type { Schema } from '../../shared/api/schema.ts';
import type { NameRule } from '../../shared/validation/names.ts';
import type { GarbageCollectionPolicy } from './deletion-finalizers.ts';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const allVerbs: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** Who is calling; filled by authentication. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** What a strategy hook may know about the request it serves. */
export interface RequestContext {
  user: UserInfo;
  /** The time of the request; hooks use it instead of reading the clock. */
  now: Date;
}

/**
 * The kind-specific steps of writes. The generic store calls them in a fixed order (store.ts):
 * create: mutating admission → metadata defaults → prepareForCreate, generation → validate
 *   (+ generic metadata) → validating admission → storage;
 * update: mutating admission → prepareForUpdate, generation → validateUpdate (+ generic metadata) →
 *   validating admission → storage.
 */
export interface Strategy<T extends KubeObject = KubeObject> {
  /** Clears what a client may not set on create (status, usually) and applies defaults. May mutate obj. */
  prepareForCreate?(obj: T, ctx: RequestContext): void;
  /** Kind-specific validation of a new object. Must not mutate. Metadata is validated generically. */
  validate(obj: T, ctx: RequestContext): FieldError[];
  /**
   * Who may write this object, beyond the authorization of the request itself (RBAC's escalation
   * prevention: nobody grants what they do not hold). Runs after mutating admission and before
   * prepare and validation, on create (`old` undefined) and on updates of the main resource.
   * Throws a StatusError (403); must not mutate.
   */
  authorizeWrite?(obj: T, old: T | undefined, ctx: RequestContext): Promise<void>;
  /** Carries over what the main resource may not change (status, usually). May mutate obj, never old. */
  prepareForUpdate?(obj: T, old: T, ctx: RequestContext): void;
  /** Validation of an update; without it, validate(obj) runs. Must not mutate. */
  validateUpdate?(obj: T, old: T, ctx: RequestContext): FieldError[];
  /** Warnings returned to the client in `Warning` headers; never reject. */
  warnings?(obj: T, old: T | undefined): string[];
  /** PUT of a missing object creates it (upstream: true for few kinds, e.g. Node, Lease, Event). */
  allowCreateOnUpdate?: boolean;
  /** PUT without metadata.resourceVersion is allowed (last write wins). Default true. */
  allowUnconditionalUpdate?: boolean;
  /**
   * Called on the first delete of an object that must be finalized before removal: returns true
   * when the object still needs finalization beyond metadata.finalizers (Namespace: spec.finalizers),
   * and may mark it (Namespace: status.phase Terminating). May mutate obj.
   */
  prepareForDelete?(obj: T, ctx: RequestContext): boolean;
  /** True while the kind's own finalizers (beyond metadata.finalizers) keep the object alive. */
  hasPendingFinalizers?(obj: T): boolean;
  /**
   * The kind deletes gracefully (upstream's RESTGracefulDeleteStrategy, Pods): returns the grace
   * period in seconds a DELETE gives the object, from the request's `gracePeriodSeconds` (undefined
   * when absent) and the object. A positive period keeps the object, marked with deletionTimestamp
   * (now + period) and deletionGracePeriodSeconds, until a later DELETE with a shorter period (0: at
   * once) removes it; 0 removes it now (finalizers permitting). Must not mutate. See
   * graceful-deletion.ts.
   */
  checkGracefulDelete?(obj: T, gracePeriodSeconds: number | undefined): number;
  /** What a DELETE without a propagation policy does to dependents (deletion-finalizers.ts); default DeleteDependents. */
  garbageCollectionPolicy?: GarbageCollectionPolicy;
  /**
   * metadata.generation counts changes of the spec, as upstream's strategy of the kind does
   * (PrepareForCreate sets Generation to 1, PrepareForUpdate adds one when the spec is not
   * semantically equal to the stored one; e.g. CSIDriver). The store then sets 1 on create and
   * adds one on every update whose spec changed (specChanged), whichever subresource wrote it;
   * changes of metadata or status alone and writes that change nothing leave it. Without it the
   * store never moves generation on create or update (a client's value is kept on create and the
   * stored one on update, as upstream does).
   */
  tracksGeneration?: boolean;
  /**
   * With tracksGeneration: true when the update changes what generation counts. Default: `spec`
   * differs from the stored `spec` by Go's semantic equality. Must not mutate.
   */
  specChanged?(obj: T, old: T): boolean;
}

/**
 * Reads one field of an object as a string, for field selectors. Declared through a method so that
 * a definition of a specific kind is usable where a definition of any kind is expected.
 */
export type FieldReader<T extends KubeObject> = { read(obj: T): string | undefined }['read'];

/** A subresource that writes part of its parent (status, approval, finalize). */
export interface SubresourceDefinition<T extends KubeObject = KubeObject> {
  verbs: readonly ('get' | 'update' | 'patch')[];
  /** Copies everything the subresource may not change from old into obj. May mutate obj. */
  prepareForUpdate(obj: T, old: T, ctx: RequestContext): void;
  validateUpdate(obj: T, old: T, ctx: RequestContext): FieldError[];
}

/** A column of the kind's Table (kubectl get), as upstream's printers define it. */
export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type of the cells: string, integer, number, boolean, date. */
  type: string;
  format?: string;
  description: string;
  /** 0: shown by default; 1: only with `-o wide`. */
  priority?: number;
}

/** The kind's Table: columns and how one object fills a row (cells in column order). */
export interface TableDefinition<T extends KubeObject = KubeObject> {
  columns: readonly TableColumnDefinition[];
  /** `now` is the request's time, for Age-like cells. */
  cells(obj: T, now: Date): unknown[];
}

/** Converts between the served form of a kind and the form stored in etcd (events.k8s.io Event ↔ core Event). */
export interface StorageConversion<T extends KubeObject = KubeObject> {
  toStorage(obj: T): KubeObject;
  fromStorage(stored: KubeObject): T;
}

/**
 * A create-only kind that stores nothing (access and token reviews): a POST is decoded and
 * validated like any create, then answered with what `create` returns (the request with its
 * status filled in), 201 Created as upstream.
 */
export interface ReviewHandler<T extends KubeObject = KubeObject> {
  /** `namespace`: the request's (LocalSubjectAccessReview), '' for cluster-scoped kinds. */
  create(obj: T, ctx: RequestContext, namespace: string): Promise<T>;
}

/**
 * What a kind holds outside its objects (a Service's cluster IPs), upstream's BeginCreate,
 * BeginUpdate and AfterDelete hooks of the generic store, called by the store (store.ts) at fixed
 * points of a write.
 */
export interface ExternalAllocation<T extends KubeObject = KubeObject> {
  /**
   * Reserves what `obj` holds that `old` (undefined on create) did not, filling in what the client
   * left to the server (may mutate obj); throws a StatusError when it cannot. Runs after validation
   * and validating admission, right before the write; a dry run checks without reserving. Returns
   * the undo, which the store calls when the write does not happen (a failure, a lost race).
   */
  reserve(obj: T, old: T | undefined, dryRun: boolean): Promise<() => Promise<void>>;
  /**
   * Frees what `old` held that `obj` no longer holds, once the write is stored; `obj` undefined:
   * the object was removed. Never runs for dry runs.
   */
  release(obj: T | undefined, old: T): Promise<void>;
}

/** A read-only kind computed on each request instead of stored (ComponentStatus). */
export interface ComputedSource<T extends KubeObject = KubeObject> {
  list(): Promise<T[]>;
}

export interface ResourceDefinition<T extends KubeObject = KubeObject> {
  group: string;
  version: string;
  kind: string;
  /** The URL name, lower case plural. */
  plural: string;
  singular: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
  namespaced: boolean;
  verbs: readonly Verb[];
  /** OpenAPI v3 schema of the whole object (apiVersion, kind, metadata included). */
  schema: Schema;
  strategy: Strategy<T>;
  subresources?: Readonly<Record<string, SubresourceDefinition<T>>>;
  /** How metadata.name is validated; defaults to a DNS subdomain. */
  nameRule?: NameRule;
  /** Field selector keys beyond metadata.name and metadata.namespace, with how to read them. */
  fieldSelectors?: Readonly<Record<string, FieldReader<T>>>;
  /** DELETE answers with the object rather than a Status. */
  deleteReturnsObject?: boolean;
  /** Where and in which form objects are stored, when not under `<plural>` as served. */
  storage?: { resource: string } & Partial<StorageConversion<T>>;
  /**
   * Objects are deleted by etcd this long after their last write (a lease), as upstream does for
   * Events: names the server setting that holds the time (`--event-ttl`).
   */
  timeToLive?: 'eventTTL';
  /** Read-only kinds computed on request rather than stored. */
  computed?: ComputedSource<T>;
  /** Create-only kinds answered on request rather than stored. */
  review?: ReviewHandler<T>;
  /** Kinds of other group versions that are off unless --runtime-config enables them. */
  enabledByDefault?: boolean;
  /** A deprecation notice served in a Warning header (upstream's text). */
  deprecationWarning?: string;
  /** Resources held outside the objects, reserved before writes and freed after them. */
  allocation?: ExternalAllocation<T>;
  /** Custom Table columns; without them the default Name / Created At table is served. */
  table?: TableDefinition<T>;
}

/** A definition's apiVersion; the one rule, shared with the clients. */
export { apiVersionOf } from '../../shared/api/types.ts';

/** Typed identity for declaring a definition with inference of T. */
export function defineResource<T extends KubeObject>(def: ResourceDefinition<T>): ResourceDefinition<T> {
  return def;
}
