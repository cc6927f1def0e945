/**
 * An in-memory Storage with etcd's semantics, for in-process tests of the generic store and the
 * verb handlers (no etcd process, milliseconds a test):
 * - one revision counter for the whole key space (1 when empty, as etcd's), moved by every write;
 *   each key keeps its versions, so that a range or get at an older revision sees that revision;
 * - create only when the key is absent, updates and deletes as compare-and-swap on the mod revision;
 * - ranges in byte order of the keys, from a start key, with a limit, `more` and `count` as etcd's;
 * - watches from a revision: the history after it first, then every change, exactly once, in
 *   order, delivered asynchronously (a later turn of the event loop, as from the network);
 * - `compact(revision)`: reads and watches below it are StorageError Compacted, reads above the
 *   current revision FutureRevision, with the messages the real store classifies.
 *
 * Not modelled: leases (a TTL is accepted and ignored), a watch cancelled by compaction while it
 * lags behind (deliveries here never lag), size limits, and the watch cache (it needs an etcd
 * client). Values are kept as JSON and decoded on every read, so that nothing a caller changes
 * reaches storage, as with etcd. `guaranteedUpdate` starts from the cached value it may be given
 * when that is the key's live revision, as the real stores do.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import { compactedError, futureRevisionError, StorageError } from '../storage/etcd/errors.ts';
import type { RangeOptions, RangeResult, StoredValue, UpdateDecision, UpdateResult } from '../storage/etcd/store.ts';
import type { StorageEvent, StorageWatch, StorageWatchHandlers } from '../storage/etcd/watch.ts';
import type { Storage } from '../storage/storage.ts';
import { decodeStoredObject, encodeStoredObject } from '../storage/stored-value.ts';

/** One version of a key: its JSON, or null where the key was deleted. */
interface Version {
  modRevision: number;
  json: string | null;
}

/** One write, as the watch history keeps it. */
interface Change {
  key: string;
  revision: number;
  json: string | null;
  previous: Version | undefined;
}

interface Watcher {
  prefix: string;
  handlers: StorageWatchHandlers;
  pending: Change[];
  scheduled: boolean;
  active: boolean;
}

// etcd's own words, which the real store's error classification looks for.

/** Byte order of UTF-8 keys, as etcd sorts them. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export class MemoryEtcd implements Storage {
  private revision = 1;
  private compactedRevision = 0;
  private readonly versions = new Map<string, Version[]>();
  /** Every write after the compacted revision, oldest first. */
  private readonly history: Change[] = [];
  private readonly watchers = new Set<Watcher>();
  /** Thrown by the next write instead of doing it (failNextWrite). */
  private fault: StorageError | undefined;

  constructor(readonly prefix = '/registry') {}

  key(resource: string, namespace: string | undefined, name: string): string {
    return this.collectionPrefix(resource, namespace) + name;
  }

  collectionPrefix(resource: string, namespace?: string): string {
    return [this.prefix, resource, ...(namespace ? [namespace] : []), ''].join('/');
  }

  /** The next write (create, put or delete) fails with `err`, as one etcd refused or failed. */
  failNextWrite(err: StorageError): void {
    this.fault = err;
  }

  /**
   * Drops the history below `revision` (default: the current one), as etcd's compaction: older
   * revisions can no longer be read or watched from.
   */
  compact(revision = this.revision): void {
    if (revision <= this.compactedRevision) throw compactedError('');
    if (revision > this.revision) throw futureRevisionError('');
    this.compactedRevision = revision;
    for (const [key, versions] of this.versions) {
      // The newest version at or below the compaction revision is still what reads there see.
      let keep = versions.findLastIndex((v) => v.modRevision <= revision);
      if (keep >= 0 && versions[keep]?.json === null) keep++;
      versions.splice(0, Math.max(keep, 0));
      if (!versions.length) this.versions.delete(key);
    }
    const dropped = this.history.findIndex((c) => c.revision >= revision);
    this.history.splice(0, dropped < 0 ? this.history.length : dropped);
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async get(key: string, revision?: number): Promise<StoredValue | null> {
    const at = this.readRevision(key, revision);
    const version = this.versionAt(key, at);
    return version?.json ? decodeStoredObject(key, version.json, version.modRevision) : null;
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    const at = this.readRevision(prefix, opts.revision);
    const start = opts.startKey ?? prefix;
    const live: StoredValue[] = [];
    const keys: string[] = [];
    for (const key of [...this.versions.keys()].sort(byteOrder)) {
      if (!key.startsWith(prefix) || byteOrder(key, start) < 0) continue;
      const version = this.versionAt(key, at);
      if (!version?.json) continue;
      live.push(decodeStoredObject(key, version.json, version.modRevision));
      keys.push(key);
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : live.length;
    return {
      values: live.slice(0, limit),
      // etcd's header revision: the current one, whatever revision was read.
      revision: this.revision,
      more: live.length > limit,
      count: live.length,
      lastKey: keys.slice(0, limit).at(-1),
    };
  }

  async create(key: string, obj: KubeObject, _ttlSeconds?: number): Promise<StoredValue> {
    this.takeFault(key);
    if (this.liveRevision(key)) throw new StorageError('Exists', key, `key ${key} already exists`);
    const modRevision = this.write(key, encodeStoredObject(obj));
    obj.metadata.resourceVersion = String(modRevision);
    return { object: obj, modRevision };
  }

  async guaranteedUpdate(
    key: string,
    decide: (current: StoredValue | null) => UpdateDecision | Promise<UpdateDecision>,
    cached?: StoredValue,
    _ttlSeconds?: number,
  ): Promise<UpdateResult> {
    let first = cached !== undefined && this.liveRevision(key) === cached.modRevision ? cached : undefined;
    for (;;) {
      const current = first ?? (await this.get(key));
      first = undefined;
      const decision = await decide(current);
      const seen = current?.modRevision ?? 0;
      if (decision.action === 'none') return { object: decision.object, revision: seen, created: false, deleted: false };
      this.takeFault(key);
      // The compare of the transaction: someone else wrote since `decide` saw the value.
      if (this.liveRevision(key) !== seen) continue;
      if (decision.action === 'delete') {
        const revision = this.write(key, null);
        return { object: current?.object ?? null, revision, created: false, deleted: true };
      }
      const revision = this.write(key, encodeStoredObject(decision.object));
      decision.object.metadata.resourceVersion = String(revision);
      return { object: decision.object, revision, created: current === null, deleted: false };
    }
  }

  async watch(prefix: string, fromRevision: number, handlers: StorageWatchHandlers): Promise<StorageWatch> {
    if (fromRevision < this.compactedRevision) throw compactedError(prefix);
    const watcher: Watcher = {
      prefix,
      handlers,
      pending: this.history.filter((c) => c.revision >= fromRevision && c.key.startsWith(prefix)),
      scheduled: false,
      active: true,
    };
    this.watchers.add(watcher);
    this.schedule(watcher);
    return {
      cancel: async () => {
        watcher.active = false;
        this.watchers.delete(watcher);
      },
    };
  }

  /** Watches still open (not cancelled). */
  get openWatches(): number {
    return this.watchers.size;
  }

  private takeFault(key: string): void {
    const fault = this.fault;
    if (!fault) return;
    this.fault = undefined;
    throw fault.key ? fault : new StorageError(fault.code, key, fault.message);
  }

  /** The revision a read is at: the current one when unset or 0; etcd's errors outside the history. */
  private readRevision(key: string, revision: number | undefined): number {
    if (!revision) return this.revision;
    if (revision < this.compactedRevision) throw compactedError(key);
    if (revision > this.revision) throw futureRevisionError(key);
    return revision;
  }

  private versionAt(key: string, revision: number): Version | undefined {
    return this.versions.get(key)?.findLast((v) => v.modRevision <= revision);
  }

  /** The key's mod revision now; 0 when absent (etcd's ModRevision of a missing key). */
  private liveRevision(key: string): number {
    const last = this.versions.get(key)?.at(-1);
    return last?.json ? last.modRevision : 0;
  }

  /** One write at the next revision (`json` null: a delete), told to every watch of its key. */
  private write(key: string, json: string | null): number {
    const revision = ++this.revision;
    const versions = this.versions.get(key) ?? [];
    const last = versions.at(-1);
    const previous = last?.json ? last : undefined;
    versions.push({ modRevision: revision, json });
    this.versions.set(key, versions);
    const change: Change = { key, revision, json, previous };
    this.history.push(change);
    for (const watcher of this.watchers) {
      if (!key.startsWith(watcher.prefix)) continue;
      watcher.pending.push(change);
      this.schedule(watcher);
    }
    return revision;
  }

  private schedule(watcher: Watcher): void {
    if (watcher.scheduled || !watcher.pending.length) return;
    watcher.scheduled = true;
    setImmediate(() => {
      watcher.scheduled = false;
      const changes = watcher.pending.splice(0);
      if (watcher.active) watcher.handlers.onEvents(changes.map(toEvent));
    });
  }
}

/** A change as a watch reports it: a delete carries the last value, at the deletion's revision. */
function toEvent(change: Change): StorageEvent {
  const previous = change.previous?.json ? decodeStoredObject(change.key, change.previous.json, change.previous.modRevision) : null;
  if (change.json === null) {
    // Only a live key is deleted (write's callers see to it), so a delete has a previous value.
    if (!change.previous?.json) throw new Error(`the delete of ${change.key} has no previous value`);
    const last = decodeStoredObject(change.key, change.previous.json, change.revision);
    return { type: 'delete', key: change.key, value: last, previous: last, revision: change.revision };
  }
  return { type: 'put', key: change.key, value: decodeStoredObject(change.key, change.json, change.revision), previous, revision: change.revision };
}
