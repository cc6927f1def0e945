/**
 * The embedded backend (issue 13): etcd's semantics (storage.ts) in-process, on LMDB (the `lmdb`
 * package: prebuilt for Node 20 and 24, durable commits, ordered keys, one writer at a time). Its
 * layout is a log, as kine's on SQL:
 *
 *   log      revision → { key, value (JSON text, null for a delete), prev (the key's previous
 *            revision, 0 for none), expiresAt (ms, 0 for none) }
 *   current  key → the revision of its newest record (a delete's too)
 *   history  [key, revision] → true: every record of a key, for reads at a past revision
 *   meta     'revision' (the newest), 'compacted' (reads below it are Compacted)
 *
 * A write is one LMDB write transaction that checks what it depends on (the key's current
 * revision: create-if-absent and compare-and-swap) and appends the next revision; it is
 * acknowledged once LMDB committed it to disk. Watches are fed from the log in revision order
 * after each commit, so a watcher sees every change after its start exactly once.
 *
 * Not yet: the watch cache, compactor and Event leases of the API server still speak to etcd;
 * wiring this backend in, its compaction in small steps and its restart figures are the rest of
 * issue 13.
 */
import { open, type Database, type RootDatabase } from 'lmdb';
import type { KubeObject } from '../../../shared/api/types.ts';
import { compactedError, futureRevisionError, StorageError } from '../etcd/errors.ts';
import type { RangeOptions, RangeResult, StoredValue, UpdateDecision, UpdateResult } from '../etcd/store.ts';
import type { StorageEvent, StorageWatch, StorageWatchHandlers } from '../etcd/watch.ts';
import type { Storage } from '../storage.ts';
import { decodeStoredObject, encodeStoredObject } from '../stored-value.ts';

interface LogRecord {
  key: string;
  value: string | null;
  prev: number;
  expiresAt: number;
}

/** How often expired objects are looked for (etcd checks leases every 500 ms). */
const expirySweepMs = 500;

interface Watcher {
  prefix: string;
  handlers: StorageWatchHandlers;
  /** Every record at or below this revision has been handed over. */
  delivered: number;
  active: boolean;
}

export class EmbeddedStore implements Storage {
  private readonly root: RootDatabase;
  private readonly log: Database<LogRecord, number>;
  private readonly current: Database<number, string>;
  private readonly history: Database<boolean, [string, number]>;
  private readonly meta: Database<number, string>;
  private readonly watchers = new Set<Watcher>();
  /** Every record at or below this revision has been given to the watchers. */
  private notified: number;
  private notifying = false;
  private closed = false;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    path: string,
    readonly prefix = '/registry',
  ) {
    this.root = open({ path, maxDbs: 8, compression: false });
    this.log = this.root.openDB<LogRecord, number>({ name: 'log', encoding: 'msgpack' });
    this.current = this.root.openDB<number, string>({ name: 'current', encoding: 'msgpack' });
    this.history = this.root.openDB<boolean, [string, number]>({ name: 'history', encoding: 'msgpack' });
    this.meta = this.root.openDB<number, string>({ name: 'meta', encoding: 'msgpack' });
    this.notified = this.revisionNow();
    this.sweeper = setInterval(() => void this.expire().catch(() => undefined), expirySweepMs);
    this.sweeper.unref();
  }

  key(resource: string, namespace: string | undefined, name: string): string {
    return namespace ? `${this.prefix}/${resource}/${namespace}/${name}` : `${this.prefix}/${resource}/${name}`;
  }

  collectionPrefix(resource: string, namespace?: string): string {
    return namespace ? `${this.prefix}/${resource}/${namespace}/` : `${this.prefix}/${resource}/`;
  }

  private revisionNow(): number {
    return this.meta.get('revision') ?? 1;
  }

  private compactedRevision(): number {
    return this.meta.get('compacted') ?? 0;
  }

  async currentRevision(): Promise<number> {
    return this.revisionNow();
  }

  /** The revision below which history is gone (0: never compacted). */
  compactedTo(): number {
    return this.compactedRevision();
  }

  /** The revision a read at `revision` (0 or unset: now) sees; throws for compacted or future ones. */
  private readRevision(key: string, revision: number | undefined): number {
    const now = this.revisionNow();
    if (!revision) return now;
    if (revision < this.compactedRevision()) throw compactedError(key);
    if (revision > now) throw futureRevisionError(key);
    return revision;
  }

  /** The newest record of `key` at or below `revision`, with its revision; undefined when none. */
  private recordAt(key: string, revision: number): { revision: number; record: LogRecord } | undefined {
    const newest = this.current.get(key);
    let at = newest !== undefined && newest <= revision ? newest : undefined;
    if (at === undefined && newest !== undefined) {
      for (const {
        key: [, r],
      } of this.history.getRange({ start: [key, revision], end: [key, 0], reverse: true, limit: 1 }))
        at = r;
    }
    if (at === undefined) return undefined;
    const record = this.log.get(at);
    return record ? { revision: at, record } : undefined;
  }

  private live(key: string, revision: number): StoredValue | null {
    const found = this.recordAt(key, revision);
    return found?.record.value != null ? decodeStoredObject(key, found.record.value, found.revision) : null;
  }

  async get(key: string, revision?: number): Promise<StoredValue | null> {
    return this.live(key, this.readRevision(key, revision));
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    const at = this.readRevision(prefix, opts.revision);
    const start = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
    const end = `${prefix}\uffff`;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const values: StoredValue[] = [];
    let count = 0;
    let lastKey: string | undefined;
    for (const { key } of this.current.getRange({ start, end })) {
      if (!key.startsWith(prefix)) continue;
      const value = this.live(key, at);
      if (!value) continue;
      count++;
      if (values.length < limit) {
        values.push(value);
        lastKey = key;
      }
    }
    return { values, revision: this.revisionNow(), more: count > values.length, count, lastKey };
  }

  /**
   * Every live object under `prefix` with its key, at one revision (the watch cache's listing):
   * read in one synchronous pass, which LMDB serves from one read snapshot. Keys `accept` refuses
   * are skipped; values that do not decode are reported and skipped.
   */
  snapshot(
    prefix: string,
    accept: (key: string) => boolean,
    onBadValue: (err: unknown) => void,
  ): { revision: number; entries: { key: string; value: StoredValue }[] } {
    const revision = this.revisionNow();
    const entries: { key: string; value: StoredValue }[] = [];
    for (const { key, value: at } of this.current.getRange({ start: prefix, end: `${prefix}\uffff` })) {
      if (!key.startsWith(prefix) || !accept(key)) continue;
      const record = this.log.get(at);
      if (record?.value == null) continue;
      try {
        entries.push({ key, value: decodeStoredObject(key, record.value, at) });
      } catch (err) {
        onBadValue(err);
      }
    }
    return { revision, entries };
  }

  /**
   * One write transaction: `check` sees the key's current revision (0 when absent or deleted) and
   * may refuse by returning false; then the record is appended. Resolves with the new revision once
   * durable, or undefined when refused.
   */
  private async write(key: string, value: string | null, expiresAt: number, check: (currentRevision: number) => boolean): Promise<number | undefined> {
    const revision = await this.root.transaction(() => {
      const newest = this.current.get(key) ?? 0;
      const liveRevision = newest && this.log.get(newest)?.value != null ? newest : 0;
      if (!check(liveRevision)) return undefined;
      const next = this.revisionNow() + 1;
      this.log.putSync(next, { key, value, prev: liveRevision, expiresAt });
      this.history.putSync([key, next], true);
      this.current.putSync(key, next);
      this.meta.putSync('revision', next);
      return next;
    });
    if (revision !== undefined) this.notify();
    return revision;
  }

  async create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredValue> {
    const expiresAt = ttlSeconds ? Date.now() + ttlSeconds * 1000 : 0;
    const revision = await this.write(key, encodeStoredObject(obj), expiresAt, (live) => live === 0);
    if (revision === undefined) throw new StorageError('Exists', key, `key ${key} already exists`);
    obj.metadata.resourceVersion = String(revision);
    return { object: obj, modRevision: revision };
  }

  async guaranteedUpdate(
    key: string,
    decide: (current: StoredValue | null) => UpdateDecision | Promise<UpdateDecision>,
    _cached?: StoredValue,
    ttlSeconds?: number,
  ): Promise<UpdateResult> {
    for (;;) {
      const current = this.live(key, this.revisionNow());
      const decision = await decide(current);
      const seen = current?.modRevision ?? 0;
      if (decision.action === 'none') return { object: decision.object, revision: seen, created: false, deleted: false };
      if (decision.action === 'delete') {
        if (!current) return { object: null, revision: this.revisionNow(), created: false, deleted: false };
        const revision = await this.write(key, null, 0, (live) => live === seen);
        if (revision === undefined) continue;
        return { object: current.object, revision, created: false, deleted: true };
      }
      const expiresAt = ttlSeconds ? Date.now() + ttlSeconds * 1000 : 0;
      const revision = await this.write(key, encodeStoredObject(decision.object), expiresAt, (live) => live === seen);
      if (revision === undefined) continue;
      decision.object.metadata.resourceVersion = String(revision);
      return { object: decision.object, revision, created: current === null, deleted: false };
    }
  }

  /** Drops what no read at or above `revision` can see: superseded records and old deletions. */
  async compact(revision: number): Promise<void> {
    if (revision <= this.compactedRevision()) throw compactedError('');
    if (revision > this.revisionNow()) throw futureRevisionError('');
    await this.root.transaction(() => {
      // What to drop is decided first: the records are not changed under the iteration.
      const drops: { key: string; revision: number; tombstone: boolean }[] = [];
      let previous: { key: string; revision: number } | undefined;
      for (const {
        key: [key, r],
      } of this.history.getRange({})) {
        if (r > revision) continue;
        // `previous` is superseded by a newer record of its key that a read at `revision` sees.
        if (previous?.key === key) drops.push({ ...previous, tombstone: false });
        previous = { key, revision: r };
        // A deletion that is the key's newest record: no read at or after `revision` needs it.
        if (this.log.get(r)?.value === null && this.current.get(key) === r) {
          drops.push({ key, revision: r, tombstone: true });
          previous = undefined;
        }
      }
      for (const drop of drops) {
        this.drop(drop.key, drop.revision);
        if (drop.tombstone) this.current.removeSync(drop.key);
      }
      this.meta.putSync('compacted', revision);
    });
  }

  private drop(key: string, revision: number): void {
    this.history.removeSync([key, revision]);
    this.log.removeSync(revision);
  }

  async watch(prefix: string, fromRevision: number, handlers: StorageWatchHandlers): Promise<StorageWatch> {
    if (fromRevision < this.compactedRevision()) throw compactedError(prefix);
    const watcher: Watcher = { prefix, handlers, delivered: Math.max(fromRevision - 1, 0), active: true };
    // The replay up to what the watchers were given, then live with them: no gap, no repeat.
    const replay = this.events(watcher, this.notified);
    this.watchers.add(watcher);
    if (replay.length) setImmediate(() => watcher.active && !this.closed && handlers.onEvents(replay));
    return {
      cancel: async () => {
        watcher.active = false;
        this.watchers.delete(watcher);
      },
    };
  }

  /** The watcher's events after its `delivered` revision up to `until`, marking them delivered. */
  private events(watcher: Watcher, until: number): StorageEvent[] {
    const out: StorageEvent[] = [];
    for (const { key: revision, value: record } of this.log.getRange({ start: watcher.delivered + 1, end: until + 1 })) {
      if (!record.key.startsWith(watcher.prefix)) continue;
      const previous = record.prev ? this.log.get(record.prev) : undefined;
      const previousValue = previous?.value != null ? decodeStoredObject(record.key, previous.value, record.prev) : null;
      if (record.value != null)
        out.push({ type: 'put', key: record.key, value: decodeStoredObject(record.key, record.value, revision), previous: previousValue, revision });
      else if (previous?.value != null) {
        out.push({ type: 'delete', key: record.key, value: decodeStoredObject(record.key, previous.value, revision), previous: previousValue, revision });
      }
    }
    watcher.delivered = until;
    return out;
  }

  /** Hands the committed records after `notified` to every watcher, in revision order. */
  private notify(): void {
    if (this.notifying) return;
    this.notifying = true;
    setImmediate(() => {
      this.notifying = false;
      if (this.closed) return;
      const until = this.revisionNow();
      if (until <= this.notified) return;
      for (const watcher of this.watchers) {
        const events = this.events(watcher, until);
        if (events.length && watcher.active) watcher.handlers.onEvents(events);
      }
      this.notified = until;
    });
  }

  /** Deletes the objects whose TTL ran out (as etcd's lease expiry: a delete at a new revision). */
  private async expire(): Promise<void> {
    const now = Date.now();
    // Found first, deleted after: no read snapshot stays open across the writes.
    const expired: { key: string; revision: number }[] = [];
    for (const { key, value: revision } of this.current.getRange({})) {
      const record = this.log.get(revision);
      if (record && record.value !== null && record.expiresAt && record.expiresAt <= now) expired.push({ key, revision });
    }
    for (const { key, revision } of expired) {
      if (this.closed) return;
      await this.write(key, null, 0, (live) => live === revision);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const watcher of this.watchers) watcher.active = false;
    this.watchers.clear();
    await this.root.close();
  }
}
