/**
 * The generic store: every verb of every stored kind, driven by its ResourceDefinition. It owns the
 * order of steps, so that no kind can skip one:
 *
 *   create: Go's shape (canonical quantities, non-omitempty zeros) → field ownership →
 *           mutating admission → strategy.authorizeWrite → system metadata →
 *           strategy.prepareForCreate, generation →
 *           validation (metadata + kind) → validating admission → etcd create
 *   update: (inside the compare-and-swap loop) Go's shape → field ownership → mutating admission →
 *           strategy.authorizeWrite (main resource) → preconditions → system metadata carried over → strategy / subresource prepareForUpdate,
 *           generation → validation → validating admission → etcd put,
 *           or nothing when the object did not change, or removal when its last finalizer went
 *   delete: preconditions → admission (mutating, then validating, on the stored object) →
 *           graceful marking (kinds that delete gracefully) or mark for deletion (finalizers
 *           pending) or remove
 *
 * Admission runs where upstream's handlers and generic registry store run it: mutating admission
 * before the kind's prepare and validation (so that what a plugin changes is validated by the
 * kind), validating admission after them, on the object as it will be stored.
 *
 * Dry run performs every step but the write. Storage errors become API errors in one place
 * (interpretStorageError).
 */
import { randomUUID, randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  alreadyExists,
  badRequest,
  conflict,
  continueExpired,
  entityTooLarge,
  internalError,
  invalid,
  isStatusError,
  namespaceMismatch,
  notFound,
  optimisticLockMessage,
  resourceExpired,
  timeout,
  tooLargeResourceVersion,
  type GroupResource,
} from '../../shared/api/errors.ts';
import { FieldPath, invalid as invalidField, type FieldError } from '../../shared/api/field.ts';
import { toGoShape } from '../../shared/go/shape.ts';
import { isObject, type KubeList, type KubeObject, type Status } from '../../shared/api/types.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../shared/validation/objectmeta.ts';
import { nameIsDNSSubdomain } from '../../shared/validation/names.ts';
import type { AdmissionAttributes, AdmissionChain, Operation } from '../admission/admission.ts';
import { decodeContinue, encodeContinue } from '../storage/continue.ts';
import { StorageError } from '../storage/etcd/errors.ts';
import type { ServedForm, StoredValue, UpdateDecision, UpdateResult } from '../storage/etcd/store.ts';
import type { StorageEvent, StorageWatch } from '../storage/etcd/watch.ts';
import type { Storage } from '../storage/storage.ts';
import type { ResourceCache, WatchCache } from '../storage/cache/watch-cache.ts';
import type { FieldManager } from './field-manager.ts';
import { ignoreManagedFieldsTimestampsYielding } from './managed-fields.ts';
import { TimeSlice } from '../../shared/apply/time-slice.ts';
import { apiVersionOf, type RequestContext, type ResourceDefinition } from './definition.ts';
import { formatTimeOf } from '../../shared/go/time.ts';
import { deletionFinalizers, namespaceDeletionFinalizers, type PropagationOptions } from './deletion-finalizers.ts';
import { gracefulDeletion } from './graceful-deletion.ts';

/** Which objects a list or deletecollection selects; built from label and field selectors. */
export interface ListFilter {
  /** True when selectors narrow the list (remainingItemCount is then omitted). */
  readonly selective: boolean;
  matches(obj: KubeObject): boolean;
}

export const everything: ListFilter = { selective: false, matches: () => true };

export interface ListOptions {
  filter: ListFilter;
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface WriteOptions {
  dryRun: boolean;
  /** Who writes, for metadata.managedFields (fieldManager, or derived from the User-Agent). */
  manager: string;
  /**
   * The write is a server-side apply: its transform merged the applied configuration and the
   * ownership already, and it may create the object whatever the kind's allowCreateOnUpdate says.
   */
  apply?: boolean;
  /**
   * The request's time slice, started with its work (before its body was decoded) so that the
   * store's steps continue its budget; absent, the store starts one.
   */
  slice?: TimeSlice;
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions extends PropagationOptions {
  dryRun: boolean;
  /** The request's gracePeriodSeconds, for kinds that delete gracefully (Strategy.checkGracefulDelete). */
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
}

export interface UpdateOutcome {
  object: KubeObject;
  created: boolean;
}

export interface DeleteOutcome {
  /** The removed object, or the object now marked for deletion. */
  object: KubeObject;
  /** False when finalizers keep the object until they are removed. */
  deleted: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Where a watch delivers; calls arrive in revision order. */
export interface WatchSink {
  event(type: WatchEventType, object: KubeObject): void;
  /** The initial state, as of `revision`, has been sent as ADDED events. */
  synced(revision: number): void;
  /** The watch cannot continue (410 when history is gone); no calls follow. */
  error(err: unknown): void;
  /** The server ended the watch (its cache re-initialized); the client resumes from its last version. */
  closed(): void;
}

export interface WatchOptions {
  filter: ListFilter;
  /** The client's resourceVersion: the stream starts after it. Absent: after "now". */
  fromRevision?: number;
  /** "Now" must be at least as new as a quorum read (resourceVersion unset) rather than any state. */
  consistent: boolean;
  /** Send the state as ADDED events first (resourceVersion unset or 0, or sendInitialEvents=true). */
  initialEvents: boolean;
}

/**
 * Produces the desired object from the current one (null when it does not exist): patches, apply,
 * subresource writes. `current` is the transform's own deep copy, which it may change and return
 * parts of, except for the entries of metadata.managedFields: those are shared with the stored
 * object, and the transform may replace, add or remove them in its list, never change one in
 * place. The store takes the result over and changes it, and calls again after a conflicting
 * write (or on a newer value than its cache's): return a new object from every call, sharing
 * nothing with earlier results or with what the next call will need.
 */
export type Transform = (current: KubeObject | null) => KubeObject | Promise<KubeObject>;

/**
 * An update that does not depend on the current object (PUT): `replacement` produces the object as
 * sent, whatever is stored, and the store copies nothing for it. The store takes each result over
 * as a Transform's, and may ask again (same rules).
 */
export interface Replacement {
  replacement(): KubeObject | Promise<KubeObject>;
}

/**
 * A transform that copies what it uses (a strategic merge patch): `derive` reads `current`, which
 * may be the watch cache's object shared with every reader, never changes it, and returns an
 * object sharing no mutable value with it; the store makes no copy for it. Otherwise as Transform.
 */
export interface Derivation {
  derive(current: KubeObject | null): KubeObject | Promise<KubeObject>;
}

const nameSuffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
const generatedSuffixLength = 5;
const maxGeneratedNameLength = 63 - generatedSuffixLength;
const generateNameAttempts = 8;
/** How long a read waits for the watch cache to catch up before it checks etcd (upstream: 3 s). */
const cacheWaitMs = 3000;
/** How long a consistent read waits for the cache before it reads etcd instead. */
const consistentReadWaitMs = 250;

export function generateName(base: string): string {
  const prefix = base.length > maxGeneratedNameLength ? base.slice(0, maxGeneratedNameLength) : base;
  let suffix = '';
  for (let i = 0; i < generatedSuffixLength; i++) suffix += nameSuffixAlphabet[randomInt(nameSuffixAlphabet.length)];
  return prefix + suffix;
}

/**
 * An item of a typed list carries no apiVersion and kind (the list says them), as upstream
 * serializes it. A shallow copy, because cached objects are shared with watch events.
 */
function listItem(obj: KubeObject): KubeObject {
  const { apiVersion: _apiVersion, kind: _kind, ...item } = obj;
  return item;
}

/** A write etcd refused as too large (StorageError TooLarge). */
function isTooLarge(err: unknown): boolean {
  return err instanceof StorageError && err.code === 'TooLarge';
}

/**
 * Go's semantic equality (apiequality.Semantic.DeepEqual) on JSON values: like deep equality, but
 * an absent or null value equals an empty list (Go's nil and empty slices are alike). Maps and
 * structs are not told apart in JSON, so an empty object is not equal to an absent one (a nil
 * pointer to a struct is not equal to an empty struct); callers compare values in Go's shape.
 */
export function semanticallyEqual(a: unknown, b: unknown): boolean {
  const isBlankList = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
  if (isBlankList(a) && isBlankList(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => semanticallyEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    for (const k of Object.keys(a)) if (!semanticallyEqual(a[k], b[k])) return false;
    for (const k of Object.keys(b)) if (!Object.hasOwn(a, k) && !semanticallyEqual(undefined, b[k])) return false;
    return true;
  }
  return isDeepStrictEqual(a, b);
}

function hasFinalizers(obj: KubeObject): boolean {
  return (obj.metadata.finalizers?.length ?? 0) > 0;
}

/**
 * The copy a Transform gets (see there): `obj` deep-copied but for its managedFields entries, which
 * are shared with `obj` in a list of the copy's own. The entries are the largest part of a large
 * object (each may own every one of 150,000 labels), and nothing changes one in place: the field
 * manager reads them and writes new ones.
 */
function copyForTransform(obj: KubeObject): KubeObject {
  const entries = obj.metadata.managedFields;
  if (!entries) return structuredClone(obj);
  // The key stays where it is in metadata, so the copy serializes as the original does.
  const copy = structuredClone<KubeObject>({ ...obj, metadata: { ...obj.metadata, managedFields: [] } });
  copy.metadata.managedFields = [...entries];
  return copy;
}

export class GenericStore {
  readonly groupResource: GroupResource;
  private readonly storageResource: string;

  private readonly cache: ResourceCache | undefined;
  private readonly apiVersion: string;

  constructor(
    readonly definition: ResourceDefinition,
    private readonly etcd: Storage,
    private readonly admission: AdmissionChain,
    /** Records field ownership on every write; without it managedFields are left as sent. */
    private readonly fieldManager?: FieldManager,
    /** Serves watches and non-quorum reads; without it everything goes to etcd. */
    private readonly watchCache?: WatchCache,
    /** Objects expire this long after their last write (the kind's timeToLive setting); unset: never. */
    private readonly ttlSeconds?: number,
  ) {
    this.groupResource = { group: definition.group, resource: definition.plural };
    this.storageResource = definition.storage?.resource ?? definition.plural;
    this.cache = watchCache?.resource(this.storageResource);
    this.apiVersion = apiVersionOf(definition);
  }

  private key(namespace: string, name: string): string {
    return this.etcd.key(this.storageResource, this.definition.namespaced ? namespace : undefined, name);
  }

  /** The watch cache's copy of an object, a starting point for compare-and-swap writes. */
  private cached(namespace: string, name: string): StoredValue | undefined {
    return this.cache?.get(this.key(namespace, name));
  }

  /** The stored form of a served object. */
  private toStorage(obj: KubeObject): KubeObject {
    const convert = this.definition.storage?.toStorage;
    return convert ? convert(obj) : obj;
  }

  /** The served form of a stored object, with apiVersion and kind always set. */
  private fromStorage(stored: StoredValue): KubeObject {
    const convert = this.definition.storage?.fromStorage;
    const obj = convert ? convert(stored.object) : stored.object;
    obj.apiVersion = this.apiVersion;
    obj.kind = this.definition.kind;
    obj.metadata.resourceVersion = String(stored.modRevision);
    return obj;
  }

  /**
   * The served form of a value from the watch cache (or a watch), made once per stored revision and
   * shared from then on, never mutated: every watcher of an event and every list of the object
   * gets the same object, so that its encodings are shared (endpoints/serialize.ts). `item` is its
   * list item, made on the first list. It is kept in the value's own slot; a value another store
   * served first (a resource served in two versions) has this store's form kept aside.
   */
  private readonly servedAside = new WeakMap<StoredValue, ServedForm>();

  private served(stored: StoredValue): ServedForm {
    const kept = stored.served;
    if (kept?.owner === this) return kept;
    if (kept === undefined) return (stored.served = { owner: this, object: this.fromStorage(stored) });
    let aside = this.servedAside.get(stored);
    if (!aside) {
      aside = { owner: this, object: this.fromStorage(stored) };
      this.servedAside.set(stored, aside);
    }
    return aside;
  }

  /** Translates storage failures into API errors; the one place that knows both. */
  interpretStorageError(err: unknown, name: string): unknown {
    if (!(err instanceof StorageError)) return err;
    switch (err.code) {
      case 'NotFound':
        return notFound(this.groupResource, name);
      case 'Exists':
        return alreadyExists(this.groupResource, name);
      case 'Conflict':
        return conflict(this.groupResource, name, optimisticLockMessage);
      case 'Compacted':
        return resourceExpired('The resourceVersion for the provided list is too old.');
      case 'FutureRevision':
        return timeout(`Too large resource version: ${err.message}`, 1);
      case 'Timeout':
      case 'Unavailable':
        return timeout(`request did not complete within requested timeout - ${err.message}`, 1);
      case 'TooLarge':
        // Upstream passes etcd's error through as a 500; a write too large for etcd is the
        // client's to fix, so it is a 413 here, whose message keeps etcd's words.
        return entityTooLarge(err.message);
      case 'InvalidRequest':
      case 'Internal':
        return internalError(err.message);
    }
  }

  private async guarded<R>(name: string, work: () => Promise<R>): Promise<R> {
    try {
      return await work();
    } catch (err) {
      throw this.interpretStorageError(err, name);
    }
  }

  /**
   * Reads one object. resourceVersion unset: a quorum read from etcd; `0`: the cache as it is;
   * a version: the cache once it is at least that new.
   */
  async get(namespace: string, name: string, resourceVersion?: string): Promise<KubeObject> {
    if (resourceVersion && this.cache && (await this.cacheReaches(resourceVersion))) {
      const stored = this.cache.get(this.key(namespace, name));
      if (!stored) throw notFound(this.groupResource, name);
      return this.fromStorage(stored);
    }
    return this.guarded(name, async () => {
      const stored = await this.etcd.get(this.key(namespace, name));
      if (!stored) throw notFound(this.groupResource, name);
      return this.fromStorage(stored);
    });
  }

  /**
   * Lists from etcd. A limit pages through a consistent snapshot: the first page reads the newest
   * revision (or the requested one), and every later page reads the revision in the continue token.
   */
  async list(namespace: string, opts: ListOptions): Promise<KubeList> {
    const prefix = this.etcd.collectionPrefix(this.storageResource, this.definition.namespaced && namespace ? namespace : undefined);
    if (this.cache) {
      const fromCache = this.servesListFromCache(opts);
      if (fromCache === 'at-least' && (await this.cacheReaches(opts.resourceVersion ?? '0'))) return this.listFromCache(prefix, opts.filter);
      if (fromCache === 'consistent' && (await this.cacheIsConsistent())) return this.listFromCache(prefix, opts.filter);
    }
    let revision = 0;
    let startKey: string | undefined;
    if (opts.continueToken) {
      const token = decodeContinue(opts.continueToken);
      revision = Math.max(token.revision, 0);
      startKey = prefix + token.start;
    } else if (opts.resourceVersion && opts.resourceVersion !== '0' && (opts.limit || opts.resourceVersionMatch === 'Exact')) {
      revision = Number(opts.resourceVersion);
    }
    const limit = opts.limit ?? 0;
    return this.guarded('', async () => {
      const items: KubeObject[] = [];
      let listRevision = revision;
      let more = false;
      let remaining = 0;
      let nextKey = startKey;
      let lastKey: string | undefined;
      // With selectors a page may need several ranges to fill; without, one range suffices.
      for (;;) {
        let result;
        try {
          result = await this.etcd.range(prefix, {
            ...(listRevision ? { revision: listRevision } : {}),
            ...(nextKey ? { startKey: nextKey } : {}),
            ...(limit ? { limit: limit - items.length } : {}),
          });
        } catch (err) {
          if (err instanceof StorageError && err.code === 'FutureRevision') {
            throw tooLargeResourceVersion(listRevision, await this.etcd.currentRevision());
          }
          if (err instanceof StorageError && err.code === 'Compacted' && startKey !== undefined) {
            throw continueExpired(encodeContinue({ revision: -1, start: startKey.slice(prefix.length) }));
          }
          throw err;
        }
        // A page of a snapshot reports the snapshot's revision, not etcd's current one.
        listRevision ||= result.revision;
        for (const value of result.values) {
          const obj = this.fromStorage(value);
          if (opts.filter.matches(obj)) items.push(listItem(obj));
        }
        lastKey = result.lastKey ?? lastKey;
        more = result.more;
        remaining = result.count - result.values.length;
        if (!limit || !more || items.length >= limit || !lastKey) break;
        nextKey = `${lastKey}\x00`;
      }
      const list: KubeList = {
        apiVersion: apiVersionOf(this.definition),
        kind: `${this.definition.kind}List`,
        metadata: { resourceVersion: String(listRevision) },
        items,
      };
      if (limit && more && lastKey) {
        list.metadata.continue = encodeContinue({ revision: listRevision, start: `${lastKey.slice(prefix.length)}\x00` });
        if (!opts.filter.selective) list.metadata.remainingItemCount = remaining;
      }
      return list;
    });
  }

  /**
   * Which lists the cache may answer (the spec's resource version table): `0` (Any) and a version
   * without a limit or with NotOlderThan (Not older than). Unset (Most Recent), Exact, continue
   * tokens and paged lists at a version go to etcd.
   */
  private servesListFromCache(opts: ListOptions): 'at-least' | 'consistent' | false {
    const rv = opts.resourceVersion;
    if (opts.continueToken || opts.resourceVersionMatch === 'Exact') return false;
    // Most Recent without paging: the cache, once it has caught up with etcd's current revision.
    if (!rv) return opts.limit ? false : 'consistent';
    if (rv === '0' || opts.resourceVersionMatch === 'NotOlderThan') return 'at-least';
    return opts.limit ? false : 'at-least';
  }

  /**
   * A consistent read from the cache (upstream: ConsistentListFromCache): etcd's current revision
   * from a cheap quorum read, then wait until the cache has applied every change up to it. Sound
   * because the cache's one watch covers the whole registry prefix and etcd delivers a prefix's
   * events in revision order. When the cache does not catch up quickly (a write outside the
   * prefix, a lagging watch), the read goes to etcd.
   */
  private async cacheIsConsistent(): Promise<boolean> {
    if (!this.watchCache) return false;
    const current = await this.guarded('', () => this.etcd.currentRevision());
    return this.watchCache.waitFor(current, consistentReadWaitMs);
  }

  /**
   * Waits until the cache is at least at `resourceVersion`. False means: read from etcd instead
   * (the cache could not prove itself fresh, e.g. the version came from a write outside its watch).
   * A version beyond etcd's own revision is a 504 `Too large resource version`.
   */
  private async cacheReaches(resourceVersion: string): Promise<boolean> {
    if (!this.watchCache) return false;
    const wanted = Number(resourceVersion);
    if (await this.watchCache.waitFor(wanted, cacheWaitMs)) return true;
    const current = await this.guarded('', () => this.etcd.currentRevision());
    if (wanted > current) throw tooLargeResourceVersion(wanted, current);
    return false;
  }

  private listFromCache(prefix: string, filter: ListFilter): KubeList {
    const items: KubeObject[] = [];
    for (const value of this.cache?.list(prefix) ?? []) {
      const served = this.served(value);
      if (filter.matches(served.object)) items.push((served.item ??= listItem(served.object)));
    }
    return {
      apiVersion: apiVersionOf(this.definition),
      kind: `${this.definition.kind}List`,
      metadata: { resourceVersion: String(this.watchCache?.revision ?? 0) },
      items,
    };
  }

  /** Fills what the server owns on a new object. */
  private initializeMetadata(obj: KubeObject, namespace: string, ctx: RequestContext): void {
    const meta = obj.metadata;
    if (this.definition.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    meta.uid = randomUUID();
    meta.creationTimestamp = formatTimeOf(ctx.now);
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    delete meta.selfLink;
  }

  private validationError(obj: KubeObject, errors: FieldError[]): never {
    throw invalid({ group: this.definition.group, kind: this.definition.kind }, obj.metadata.name ?? '', errors);
  }

  async create(namespace: string, obj: KubeObject, ctx: RequestContext, opts: WriteOptions): Promise<KubeObject> {
    this.checkNamespace(obj, namespace);
    const generated = !obj.metadata.name && !!obj.metadata.generateName;
    for (let attempt = 1; ; attempt++) {
      // Every attempt of a generated name starts from the object as sent: a create changes it.
      const candidate = generated ? structuredClone(obj) : obj;
      try {
        return await this.createOnce(namespace, candidate, ctx, opts, generated, opts.slice ?? new TimeSlice());
      } catch (err) {
        // A generated name that collides is retried with a fresh suffix, as upstream does.
        if (!generated || attempt >= generateNameAttempts || !isStatusError(err, 'AlreadyExists')) throw err;
      }
    }
  }

  private async createOnce(
    namespace: string,
    sent: KubeObject,
    ctx: RequestContext,
    opts: WriteOptions,
    generated: boolean,
    slice: TimeSlice,
  ): Promise<KubeObject> {
    if (generated) sent.metadata.name = generateName(sent.metadata.generateName ?? '');
    const obj = await this.admitNew(namespace, sent, ctx, opts, slice);
    await slice.boundary();
    const name = obj.metadata.name ?? '';
    if (opts.dryRun) {
      // Reject a dry-run create of an existing object exactly as the real one would be.
      const existing = await this.guarded(name, () => this.etcd.get(this.key(namespace, name)));
      if (existing) throw alreadyExists(this.groupResource, name);
      await this.definition.allocation?.reserve(obj, undefined, true);
      return obj;
    }
    const undo = await this.definition.allocation?.reserve(obj, undefined, false);
    try {
      return await this.guarded(name, async () => this.fromStorage(await this.storeNew(this.key(namespace, name), obj)));
    } catch (err) {
      await undo?.();
      throw err;
    }
  }

  /**
   * Writes a new object. One too large for etcd is written again without its managedFields, which
   * can be large and which the object is whole without (upstream's create handler does the same).
   */
  private async storeNew(key: string, obj: KubeObject): Promise<StoredValue> {
    try {
      return await this.etcd.create(key, this.toStorage(obj), this.ttlSeconds);
    } catch (err) {
      if (!isTooLarge(err) || !obj.metadata.managedFields) throw err;
      delete obj.metadata.managedFields;
      return this.etcd.create(key, this.toStorage(obj), this.ttlSeconds);
    }
  }

  /**
   * Every step of a create but the write: ownership, mutating admission, system metadata,
   * strategy, validation, validating admission. The long steps of a large object are apart (`slice`).
   */
  private async admitNew(namespace: string, sent: KubeObject, ctx: RequestContext, opts: WriteOptions, slice: TimeSlice): Promise<KubeObject> {
    const def = this.definition;
    const shaped = toGoShape(sent, def.schema);
    await slice.boundary();
    const obj = await this.recordOwnership(null, shaped, '', ctx, opts, slice);
    await slice.boundary();
    // Plugins see the request's namespace on the object (upstream's create handler sets it before
    // admitting), and may not move the object to another one.
    if (def.namespaced) obj.metadata.namespace = namespace;
    await this.admission.admit(this.attributes('CREATE', '', namespace, obj.metadata.name ?? '', obj, undefined, ctx, opts));
    this.checkNamespace(obj, namespace);
    await def.strategy.authorizeWrite?.(obj, undefined, ctx);
    await slice.boundary();
    this.initializeMetadata(obj, namespace, ctx);
    def.strategy.prepareForCreate?.(obj, ctx);
    // Kinds that count spec changes start at 1, whatever was sent (upstream's PrepareForCreate).
    if (def.strategy.tracksGeneration) obj.metadata.generation = 1;
    // A strategy that resets a struct (a new object's status) leaves Go's zeros in it, as upstream's does.
    toGoShape(obj, def.schema);
    await slice.boundary();
    const metaErrors = validateObjectMeta(obj.metadata, { namespaced: def.namespaced, nameRule: def.nameRule ?? nameIsDNSSubdomain });
    await slice.boundary();
    const errors = [...metaErrors, ...def.strategy.validate(obj, ctx)];
    if (errors.length) this.validationError(obj, errors);
    await slice.boundary();
    await this.admission.validate(this.attributes('CREATE', '', namespace, obj.metadata.name ?? '', obj, undefined, ctx, opts));
    obj.apiVersion = apiVersionOf(def);
    obj.kind = def.kind;
    return obj;
  }

  /** Ownership of a create, update or patch (an apply's transform has recorded its own). */
  private async recordOwnership(
    live: KubeObject | null,
    updated: KubeObject,
    subresource: string,
    ctx: RequestContext,
    opts: WriteOptions,
    slice: TimeSlice,
  ): Promise<KubeObject> {
    if (!this.fieldManager || opts.apply) return updated;
    return this.fieldManager.update(live, updated, { definition: this.definition, manager: opts.manager, subresource, now: ctx.now, slice });
  }

  /**
   * What admission plugins are told about a write. `object` is the very object the store goes on
   * with (a mutating plugin changes it in place); `oldObject` is the stored one, never changed.
   */
  private attributes(
    operation: Operation,
    subresource: string,
    namespace: string,
    name: string,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    ctx: RequestContext,
    opts: { dryRun: boolean },
  ): AdmissionAttributes {
    return {
      operation,
      definition: this.definition,
      subresource,
      namespace,
      name,
      ...(object ? { object } : {}),
      ...(oldObject ? { oldObject } : {}),
      dryRun: opts.dryRun,
      context: ctx,
    };
  }

  /** The namespace in a body must agree with the one in the path. */
  private checkNamespace(obj: KubeObject, namespace: string): void {
    if (!this.definition.namespaced) return;
    const bodyNamespace = obj.metadata.namespace;
    if (bodyNamespace && bodyNamespace !== namespace) {
      throw namespaceMismatch();
    }
  }

  /**
   * Update, patch and subresource writes: `transform` computes the desired object from the
   * current one inside the compare-and-swap loop, so a patch is re-applied on a lost race; a
   * resourceVersion in the desired object pins the write to it (409 on a lost race instead).
   */
  async update(
    namespace: string,
    name: string,
    subresource: string,
    transform: Transform | Replacement | Derivation,
    ctx: RequestContext,
    opts: WriteOptions,
  ): Promise<UpdateOutcome> {
    const def = this.definition;
    const sub = subresource ? def.subresources?.[subresource] : undefined;
    // What the last run of the decision produced; the loop may run it more than once.
    let decided: { object: KubeObject; created: boolean; wrote: boolean } | null = null;
    // Set for the second attempt of a write too large for etcd: it goes without managedFields.
    let withoutManagedFields = false;
    // What the last decision reserved (ExternalAllocation), undone when it is not the one written.
    let undoReservation: (() => Promise<void>) | undefined;
    let decidedOld: KubeObject | null = null;
    const reserve = async (obj: KubeObject, old: KubeObject | undefined): Promise<void> => {
      const undo = undoReservation;
      undoReservation = undefined;
      await undo?.();
      undoReservation = await def.allocation?.reserve(obj, old, opts.dryRun);
    };
    const slice = opts.slice ?? new TimeSlice();
    // `old` may be the watch cache's object, shared with every reader: never changed here. A
    // Transform gets a deep copy of its own (one pass over the object), a Derivation `old` to
    // read, a Replacement nothing.
    const desiredFrom = async (old: KubeObject | null): Promise<KubeObject> => {
      if ('replacement' in transform) return transform.replacement();
      if ('derive' in transform) return transform.derive(old);
      const copy = old ? copyForTransform(old) : null;
      await slice.boundary();
      return transform(copy);
    };
    // A dry run decides on etcd's value: on the cache's it would decide twice, since "nothing to
    // write" on a cached value is checked again on etcd's (guaranteedUpdate).
    const startingPoint = opts.dryRun ? undefined : this.cached(namespace, name);
    const attempt = (): Promise<UpdateResult> =>
      this.etcd.guaranteedUpdate(
        this.key(namespace, name),
        async (current): Promise<UpdateDecision> => {
          const old = current ? this.fromStorage(current) : null;
          await slice.boundary();
          const transformed = await desiredFrom(old);
          await slice.boundary();
          this.checkNamespace(transformed, namespace);
          if (transformed.metadata.name && transformed.metadata.name !== name) {
            throw badRequest(`the name of the object (${transformed.metadata.name}) does not match the name on the URL (${name})`);
          }
          transformed.metadata.name = name;
          if (!old) {
            if (subresource || !(def.strategy.allowCreateOnUpdate || opts.apply)) throw notFound(this.groupResource, name);
            const created = await this.admitNew(namespace, transformed, ctx, opts, slice);
            if (withoutManagedFields) delete created.metadata.managedFields;
            await reserve(created, undefined);
            decidedOld = null;
            decided = { object: created, created: true, wrote: !opts.dryRun };
            return opts.dryRun ? { action: 'none', object: created } : { action: 'put', object: this.toStorage(created) };
          }
          const shaped = toGoShape(transformed, def.schema);
          await slice.boundary();
          const desired = await this.recordOwnership(old, shaped, subresource, ctx, opts, slice);
          if (withoutManagedFields) delete desired.metadata.managedFields;
          await slice.boundary();
          // Upstream's update handler admits (mutating) as the last step of producing the updated
          // object, before the store checks its resourceVersion and runs the kind's steps.
          await this.admission.admit(this.attributes('UPDATE', subresource, namespace, name, desired, old, ctx, opts));
          this.checkNamespace(desired, namespace);
          if (!sub) await def.strategy.authorizeWrite?.(desired, old, ctx);
          await slice.boundary();
          const sentVersion = desired.metadata.resourceVersion;
          if (sentVersion && sentVersion !== old.metadata.resourceVersion) {
            throw conflict(this.groupResource, name, optimisticLockMessage);
          }
          if (!sentVersion && def.strategy.allowUnconditionalUpdate === false) {
            // Upstream names the resource (not the kind) here and prints the value as Go's %#v of uint64 0.
            throw invalid({ group: def.group, kind: def.plural }, name, [
              { ...invalidField(FieldPath.root('metadata').child('resourceVersion'), 0, 'must be specified for an update'), valueText: '0x0' },
            ]);
          }
          this.carryOverSystemMetadata(desired, old, namespace);
          if (sub) sub.prepareForUpdate(desired, old, ctx);
          else def.strategy.prepareForUpdate?.(desired, old, ctx);
          toGoShape(desired, def.schema);
          this.countSpecChange(desired, old);
          await slice.boundary();
          const kindErrors = sub
            ? sub.validateUpdate(desired, old, ctx)
            : def.strategy.validateUpdate
              ? def.strategy.validateUpdate(desired, old, ctx)
              : def.strategy.validate(desired, ctx);
          await slice.boundary();
          const errors = [...validateObjectMetaUpdate(desired.metadata, old.metadata, FieldPath.root('metadata')), ...kindErrors];
          if (errors.length) this.validationError(desired, errors);
          await slice.boundary();
          await this.admission.validate(this.attributes('UPDATE', subresource, namespace, name, desired, old, ctx, opts));
          await reserve(desired, old);
          decidedOld = old;
          desired.apiVersion = apiVersionOf(def);
          desired.kind = def.kind;
          desired.metadata.resourceVersion = old.metadata.resourceVersion;
          if (this.finalized(desired)) {
            decided = { object: desired, created: false, wrote: false };
            return opts.dryRun ? { action: 'none', object: desired } : { action: 'delete' };
          }
          // A write that changes nothing but managedFields timestamps is no write.
          await ignoreManagedFieldsTimestampsYielding(desired, old, slice);
          await slice.boundary();
          const unchanged = isDeepStrictEqual(desired, old);
          await slice.boundary();
          if (unchanged) {
            // Nothing changed: no write, no new resourceVersion (upstream skips such writes too).
            decided = { object: old, created: false, wrote: false };
            return { action: 'none', object: old };
          }
          decided = { object: desired, created: false, wrote: !opts.dryRun };
          return opts.dryRun ? { action: 'none', object: desired } : { action: 'put', object: this.toStorage(desired) };
        },
        startingPoint,
        this.ttlSeconds,
      );
    let outcome: UpdateResult;
    try {
      outcome = await this.guarded(name, async () => {
        try {
          return await attempt();
        } catch (err) {
          // Upstream's update and patch handlers retry a write too large for etcd once without
          // managedFields (an apply is not retried: its ownership is what it is about).
          if (!isTooLarge(err) || opts.apply) throw err;
          withoutManagedFields = true;
          return attempt();
        }
      });
    } catch (err) {
      await undoReservation?.();
      throw err;
    }
    const result = decided as { object: KubeObject; created: boolean; wrote: boolean } | null;
    if (!result) throw internalError('update produced no object');
    const previous = decidedOld as KubeObject | null;
    if (def.allocation && !opts.dryRun && previous && (result.wrote || outcome.deleted)) {
      await def.allocation.release(outcome.deleted ? undefined : result.object, previous);
    }
    if (result.wrote) result.object.metadata.resourceVersion = String(outcome.revision);
    if (result.created && opts.dryRun) delete result.object.metadata.resourceVersion;
    return { object: result.object, created: result.created };
  }

  /** What a client may not change through an update: upstream's BeforeUpdate rules. */
  private carryOverSystemMetadata(obj: KubeObject, old: KubeObject, namespace: string): void {
    const meta = obj.metadata;
    const oldMeta = old.metadata;
    if (this.definition.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
    else delete meta.generation;
    if (!meta.uid && oldMeta.uid) meta.uid = oldMeta.uid;
    if (oldMeta.creationTimestamp) meta.creationTimestamp = oldMeta.creationTimestamp;
    // A client can neither set nor change a deletion timestamp; validation rejects a new one.
    if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    }
    delete meta.selfLink;
  }

  /**
   * metadata.generation of a kind that counts spec changes moves by one when the spec changed
   * (upstream's PrepareForUpdate of such kinds); carryOverSystemMetadata has set it to the stored
   * one. A subresource that keeps the spec (status) thereby never moves it, nor does a change of
   * metadata or status alone, nor a write that changes nothing.
   */
  private countSpecChange(obj: KubeObject, old: KubeObject): void {
    const strategy = this.definition.strategy;
    if (!strategy.tracksGeneration) return;
    const changed = strategy.specChanged ? strategy.specChanged(obj, old) : !semanticallyEqual(obj['spec'], old['spec']);
    if (changed) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
  }

  /**
   * An object marked for deletion whose last finalizer is gone is removed, unless a graceful
   * deletion's period is still running (upstream's shouldDeleteDuringUpdate).
   */
  private finalized(obj: KubeObject): boolean {
    return (
      !!obj.metadata.deletionTimestamp &&
      (obj.metadata.deletionGracePeriodSeconds ?? 0) === 0 &&
      !hasFinalizers(obj) &&
      !this.definition.strategy.hasPendingFinalizers?.(obj)
    );
  }

  async delete(namespace: string, name: string, ctx: RequestContext, opts: DeleteOptions): Promise<DeleteOutcome> {
    const def = this.definition;
    let outcome: DeleteOutcome | null = null;
    const written = await this.guarded(name, () =>
      this.etcd.guaranteedUpdate(
        this.key(namespace, name),
        async (current): Promise<UpdateDecision> => {
          if (!current) throw notFound(this.groupResource, name);
          const old = this.fromStorage(current);
          this.checkPreconditions(old, name, opts.preconditions);
          // Upstream runs both phases here, on the stored object (rest.AdmissionToValidateObjectDeleteFunc).
          const attributes = this.attributes('DELETE', '', namespace, name, undefined, old, ctx, opts);
          await this.admission.admit(attributes);
          await this.admission.validate(attributes);
          if (old.metadata.deletionTimestamp && def.strategy.hasPendingFinalizers?.(old)) {
            // The kind's own finalizers (a Namespace's spec.finalizers) remain: upstream's REST
            // Delete of such a kind changes nothing until they are gone.
            outcome = { object: old, deleted: false };
            return { action: 'none', object: old };
          }
          // A kind that deletes gracefully (Pod) marks the object for a grace period first.
          const check = def.strategy.checkGracefulDelete?.bind(def.strategy);
          const grace = check ? gracefulDeletion(old, opts.gracePeriodSeconds, check, ctx.now) : ({ kind: 'none' } as const);
          if (grace.kind === 'pending') {
            outcome = { object: old, deleted: false };
            return { action: 'none', object: old };
          }
          if (grace.kind === 'graceful') {
            const finalizers = deletionFinalizers(old.metadata.finalizers ?? [], opts, def.strategy.garbageCollectionPolicy);
            const marked = structuredClone(old);
            const generation = marked.metadata.generation ?? 0;
            if (!old.metadata.deletionTimestamp && generation > 0) marked.metadata.generation = generation + 1;
            if (finalizers.length > 0) marked.metadata.finalizers = finalizers;
            else delete marked.metadata.finalizers;
            marked.metadata.deletionTimestamp = grace.deletionTimestamp;
            marked.metadata.deletionGracePeriodSeconds = grace.period;
            if (grace.period === 0 && finalizers.length === 0) {
              outcome = { object: marked, deleted: true };
              return opts.dryRun ? { action: 'none', object: old } : { action: 'delete' };
            }
            outcome = { object: marked, deleted: false };
            if (opts.dryRun) return { action: 'none', object: marked };
            delete marked.metadata.resourceVersion;
            return { action: 'put', object: this.toStorage(marked) };
          }
          // A kind that prepares its own deletion (Namespace) follows its REST Delete's rules on the
          // first delete, the generic ones afterwards (upstream hands the later deletes to the store).
          const own = !!def.strategy.prepareForDelete && !old.metadata.deletionTimestamp;
          const existing = old.metadata.finalizers ?? [];
          const finalizers = own ? namespaceDeletionFinalizers(existing, opts) : deletionFinalizers(existing, opts, def.strategy.garbageCollectionPolicy);
          // Without finalizers or a strategy that may add them, the object just goes: no copy to mark.
          if (finalizers.length === 0 && !own) {
            outcome = { object: old, deleted: true };
            return opts.dryRun ? { action: 'none', object: old } : { action: 'delete' };
          }
          const marked = structuredClone(old);
          const needsFinalization = own && (def.strategy.prepareForDelete?.(marked, ctx) ?? false);
          if (finalizers.length > 0 || needsFinalization) {
            if (old.metadata.deletionTimestamp && old.metadata.deletionGracePeriodSeconds === 0 && isDeepStrictEqual(finalizers, existing)) {
              // A repeated delete that changes no finalizer writes nothing.
              outcome = { object: old, deleted: false };
              return { action: 'none', object: old };
            }
            if (finalizers.length > 0) marked.metadata.finalizers = finalizers;
            else delete marked.metadata.finalizers;
            outcome = { object: marked, deleted: false };
            // Marking an object for deletion changes what its controllers must do: a counted
            // generation moves (upstream's markAsDeleting). A kind that prepares its own deletion
            // (Namespace) is deleted by its own REST Delete upstream, which leaves generation alone.
            const generation = marked.metadata.generation ?? 0;
            if (!def.strategy.prepareForDelete && !old.metadata.deletionTimestamp && generation > 0) marked.metadata.generation = generation + 1;
            marked.metadata.deletionTimestamp ??= formatTimeOf(ctx.now);
            marked.metadata.deletionGracePeriodSeconds = 0;
            if (opts.dryRun) return { action: 'none', object: marked };
            delete marked.metadata.resourceVersion;
            return { action: 'put', object: this.toStorage(marked) };
          }
          outcome = { object: old, deleted: true };
          return opts.dryRun ? { action: 'none', object: old } : { action: 'delete' };
        },
        this.cached(namespace, name),
        this.ttlSeconds,
      ),
    );
    const done = outcome as DeleteOutcome | null;
    if (!done) throw internalError('delete produced no outcome');
    if (def.allocation && done.deleted && !opts.dryRun) await def.allocation.release(undefined, done.object);
    if (!done.deleted && !opts.dryRun) done.object.metadata.resourceVersion = String(written.revision);
    return done;
  }

  private checkPreconditions(obj: KubeObject, name: string, pre: Preconditions | undefined): void {
    if (!pre) return;
    if (pre.uid && pre.uid !== obj.metadata.uid) {
      throw conflict(this.groupResource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid ?? ''}`);
    }
    if (pre.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
      throw conflict(
        this.groupResource,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion ?? ''}`,
      );
    }
  }

  /** Deletes every selected object; each goes through the same steps as a single delete. */
  async deleteCollection(namespace: string, list: ListOptions, ctx: RequestContext, opts: DeleteOptions): Promise<KubeObject[]> {
    const { items } = await this.list(namespace, list);
    const deleted: KubeObject[] = [];
    for (const item of items) {
      try {
        const { object } = await this.delete(item.metadata.namespace ?? '', item.metadata.name ?? '', ctx, opts);
        deleted.push(object);
      } catch (err) {
        // Another deleter won the race: the object is gone either way.
        if (!isStatusError(err, 'NotFound')) throw err;
      }
    }
    return deleted;
  }

  /**
   * Streams changes to `sink`: the current state first (as ADDED events) unless resuming from a
   * revision, then every change after it, exactly once and in order. An object entering or
   * leaving the filter's selection is delivered as ADDED or DELETED, as upstream does.
   */
  async watch(namespace: string, opts: WatchOptions, sink: WatchSink): Promise<StorageWatch> {
    const prefix = this.etcd.collectionPrefix(this.storageResource, this.definition.namespaced && namespace ? namespace : undefined);
    return (await this.watchFromCache(prefix, opts, sink)) ?? (await this.watchFromEtcd(namespace, prefix, opts, sink));
  }

  /**
   * Serves a watch from the cache when it can prove the stream gap-free: it has caught up with the
   * requested (or, for a consistent start, etcd's current) revision, and a resumed watch's revision
   * is still in its history. Undefined means: watch etcd directly.
   */
  private async watchFromCache(prefix: string, opts: WatchOptions, sink: WatchSink): Promise<StorageWatch | undefined> {
    const cache = this.cache;
    const watchCache = this.watchCache;
    if (!cache || !watchCache) return undefined;
    let after: number;
    if (opts.initialEvents || opts.fromRevision === undefined) {
      // The state (or "now") must be at least the client's version, or a quorum read's.
      const wanted = opts.fromRevision ?? (opts.consistent ? await this.guarded('', () => this.etcd.currentRevision()) : 0);
      if (!(await this.cacheReaches(String(wanted)))) return undefined;
      // From here to subscribe nothing awaits, so no event can slip between state and stream.
      after = watchCache.revision;
      if (opts.initialEvents) {
        for (const value of cache.list(prefix)) {
          const obj = this.served(value).object;
          if (opts.filter.matches(obj)) sink.event('ADDED', obj);
        }
        sink.synced(after);
      }
    } else {
      // Resuming needs no wait: events after the version stream as they come, even a future one.
      if (!cache.canResumeFrom(opts.fromRevision)) return undefined;
      after = opts.fromRevision;
    }
    const subscription = cache.subscribe(prefix, after, {
      onEvent: (event) => this.deliver(event, opts.filter, sink),
      onClose: () => sink.closed(),
    });
    return { cancel: async () => subscription.cancel() };
  }

  private async watchFromEtcd(namespace: string, prefix: string, opts: WatchOptions, sink: WatchSink): Promise<StorageWatch> {
    let start = opts.fromRevision ?? 0;
    if (opts.initialEvents) {
      const list = await this.list(namespace, { filter: opts.filter });
      const listRevision = Number(list.metadata.resourceVersion);
      for (const item of list.items) sink.event('ADDED', { ...item, apiVersion: this.apiVersion, kind: this.definition.kind });
      sink.synced(listRevision);
      start = Math.max(start, listRevision);
    } else if (opts.fromRevision === undefined) {
      start = await this.guarded('', () => this.etcd.currentRevision());
    }
    try {
      return await this.etcd.watch(prefix, start + 1, {
        onEvents: (events) => {
          for (const event of events) this.deliver(event, opts.filter, sink);
        },
        onError: (err) => sink.error(this.interpretWatchError(err, start)),
      });
    } catch (err) {
      throw this.interpretWatchError(err, start);
    }
  }

  /** A watch from a compacted revision is 410 Expired in upstream's words (the oldest version we can serve in parentheses). */
  private interpretWatchError(err: unknown, revision: number): unknown {
    if (err instanceof StorageError && err.code === 'Compacted') {
      const oldest = this.cache ? Math.max(this.cache.oldestResumableRevision(), revision + 1) : revision + 1;
      return resourceExpired(`too old resource version: ${revision} (${oldest})`);
    }
    return this.interpretStorageError(err, '');
  }

  /** One event to one watch; runs once per event per watcher, so what it derives is shared (see `served`). */
  private deliver(event: StorageEvent, filter: ListFilter, sink: WatchSink): void {
    const current = this.served(event.value).object;
    if (event.type === 'delete') {
      if (filter.matches(current)) sink.event('DELETED', current);
      return;
    }
    if (!filter.selective) {
      sink.event(event.previous ? 'MODIFIED' : 'ADDED', current);
      return;
    }
    const matchesNow = filter.matches(current);
    const matchedBefore = event.previous !== null && filter.matches(this.served(event.previous).object);
    if (matchesNow) sink.event(event.previous && matchedBefore ? 'MODIFIED' : 'ADDED', current);
    else if (matchedBefore) sink.event('DELETED', this.leftSelection(event));
  }

  /** Leaving a selection: upstream sends the last state that matched, at the new version; one per event. */
  private readonly leavers = new WeakMap<StorageEvent, KubeObject>();

  private leftSelection(event: StorageEvent): KubeObject {
    let left = this.leavers.get(event);
    if (!left) {
      const last = this.served(event.previous ?? event.value).object;
      left = { ...last, metadata: { ...last.metadata, resourceVersion: String(event.revision) } };
      this.leavers.set(event, left);
    }
    return left;
  }

  /** The Status a DELETE answers with when the kind does not return the object. */
  deletedStatus(obj: KubeObject): Status {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {
        name: obj.metadata.name ?? '',
        ...(this.definition.group ? { group: this.definition.group } : {}),
        kind: this.definition.plural,
        uid: obj.metadata.uid ?? '',
      },
    };
  }
}
