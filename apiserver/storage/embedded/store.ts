/**
 * The embedded backend (issue 13): etcd's semantics (storage.ts) in-process, on LMDB (the `lmdb`
 * package: prebuilt for Node 20 and 24, durable commits, ordered keys, one writer at a time). Its
 * layout is a log, as kine's on SQL:
 *
 *   log      revision → { key, value (JSON text, null for a delete), prev (the key's previous
 *            live revision, 0 for none), expiresAt (ms, 0 for none) }
 *   current  key → the revision of its newest record (a delete's too)
 *   history  [key, revision] → true: every record of a key, for reads at a past revision
 *   expiry   [expiresAt, key] → revision: the records with a TTL, by when they expire, so that
 *            the sweep reads what is due and nothing else (an entry whose key was written again
 *            since is stale, and dropped when due)
 *   meta     'revision' (the newest), 'compacted' (reads below it are Compacted),
 *            'compactedThrough' (the log is compacted up to here: see compact), 'liveBytes' (the
 *            keys and values of the live objects), 'layout' (2: the above is complete)
 *
 * A write is one LMDB write transaction that checks what it depends on (the key's current
 * revision: create-if-absent and compare-and-swap) and appends the next revision; it is
 * acknowledged once LMDB committed it to disk. Watches are fed from the log in revision order
 * after each commit, so a watcher sees every change after its start exactly once. Compaction
 * works through the log in small transactions (compactionStep), so that a write never waits long
 * behind it. LMDB never shrinks its file, so after a compaction that left it mostly free pages
 * the store copies itself into a new file while it runs (shrink, generations.ts).
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { KubeObject } from '../../../shared/api/types.ts';
import { compactedError, etcdRequestTooLargeMessage, futureRevisionError, StorageError } from '../etcd/errors.ts';
import type { RangeOptions, RangeResult, StoredValue, UpdateDecision, UpdateResult } from '../etcd/store.ts';
import type { StorageWatch, StorageWatchHandlers } from '../etcd/watch.ts';
import { watchDecoded, type ChangeWatchHandlers, type StoredChange } from '../changes.ts';
import { timed } from '../request-timing.ts';
import type { Storage, StorageRequestObserver } from '../storage.ts';
import { decodeStoredTextsYielding, encodeStoredObjectYielding, type StoredText } from '../stored-value.ts';
import { currentGeneration, fsyncPath, generationDataFile, generationDir, removeGeneration, removeOtherGenerations, switchGeneration } from './generations.ts';

interface LogRecord {
  key: string;
  value: string | null;
  prev: number;
  expiresAt: number;
}

/**
 * etcd's default --max-request-bytes (1.5 MiB). The embedded store refuses what etcd would, with
 * etcd's words, so that a client sees the same 413 on either backend and its data always fits an
 * etcd. A write counts its key and value, as etcd's request does (less a few bytes of framing).
 */
export const maxWriteBytes = 1.5 * 1024 * 1024;

/**
 * The longest key the store holds: LMDB's largest key (1978 bytes at 4 KiB pages) less room for the
 * revision in `history`'s [key, revision] keys. etcd has no such limit of its own, so a longer key
 * (an object name of nearly 2,000 bytes, which few kinds allow) is refused as too large when
 * written, and found nowhere when read: no such key can be stored.
 */
export const maxKeyBytes = 1900;

const storable = (key: string): boolean => Buffer.byteLength(key) <= maxKeyBytes;

/** How often expired objects are looked for (etcd checks leases every 500 ms). */
const expirySweepMs = 500;

/**
 * The bounds of one compaction transaction: log records looked at, and milliseconds. A write
 * arriving meanwhile waits for the transaction, so its size bounds that wait.
 */
const compactionStep = { records: 200, ms: 5 };

/**
 * When the store copies itself into a smaller file (shrink): the file is larger than `floorBytes`
 * (below it a copy gains little) and more than twice the live data, and the copy, which holds only
 * the pages in use, takes at least a tenth off it. `force` copies whatever the sizes (tests).
 */
export interface ShrinkPolicy {
  floorBytes: number;
  force?: boolean;
}

export const defaultShrinkPolicy: ShrinkPolicy = { floorBytes: 64 * 1024 * 1024 };

/**
 * The records a shrink copies into the new file per transaction while writes go on; once fewer
 * than this are left, writes wait while it copies the rest and switches (its pause).
 */
const shrinkCatchUpRecords = 256;

/** What one shrink did. */
export interface ShrinkStats {
  fromBytes: number;
  toBytes: number;
  /** How long writes waited for the switch to the new file (ms). */
  pauseMs: number;
}

/** The databases of one LMDB environment: the layout above. */
interface Environment {
  root: RootDatabase;
  log: Database<LogRecord, number>;
  current: Database<number, string>;
  history: Database<boolean, [string, number]>;
  expiry: Database<number, [number, string]>;
  meta: Database<number, string>;
}

/**
 * Puts `record` in the log at `revision` with its index entries: the one place the layout is
 * written, by a write and by a shrink's copy of the records after its snapshot.
 */
function appendRecord(environment: Environment, revision: number, record: LogRecord): void {
  environment.log.putSync(revision, record);
  environment.history.putSync([record.key, revision], true);
  environment.current.putSync(record.key, revision);
  if (record.expiresAt) environment.expiry.putSync([record.expiresAt, record.key], revision);
}

/** The refusal of a read or write once the store is closing. */
function closedError(key: string): StorageError {
  return new StorageError('Unavailable', key, 'the embedded store is closed');
}

function openEnvironment(path: string): Environment {
  // 16 KiB pages (LMDB's default is 4 KiB): an object of a few KiB then fits in a leaf page
  // beside others, where at 4 KiB it would take an overflow page of its own, half of it empty.
  // Only a new store takes the size; an existing one keeps its own.
  const root = open({ path, maxDbs: 8, compression: false, pageSize: 16384 });
  return {
    root,
    log: root.openDB<LogRecord, number>({ name: 'log', encoding: 'msgpack' }),
    current: root.openDB<number, string>({ name: 'current', encoding: 'msgpack' }),
    history: root.openDB<boolean, [string, number]>({ name: 'history', encoding: 'msgpack' }),
    expiry: root.openDB<number, [number, string]>({ name: 'expiry', encoding: 'msgpack' }),
    meta: root.openDB<number, string>({ name: 'meta', encoding: 'msgpack' }),
  };
}

/** The layout version whose indexes (expiry) and counters (liveBytes) are complete. */
const currentLayout = 2;

/** What a record adds to the live data: its key and value (a delete adds nothing). */
const liveBytesOf = (key: string, value: string | null | undefined): number => (value == null ? 0 : Buffer.byteLength(key) + Buffer.byteLength(value));

/** What one compaction did, for its caller's figures (the bench). */
export interface CompactionStats {
  /** Records dropped from the log. */
  dropped: number;
  /** Write transactions it took. */
  steps: number;
  /** The longest of them (ms, their synchronous part). */
  longestStepMs: number;
  /** The copy into a smaller file that followed it, when it was due (the store's ShrinkPolicy). */
  shrunk?: ShrinkStats;
}

interface Watcher {
  prefix: string;
  handlers: ChangeWatchHandlers;
  /** Every record at or below this revision has been handed over. */
  delivered: number;
  active: boolean;
}

/**
 * The least key above every key that starts with `prefix`, in LMDB's order of string keys (their
 * UTF-8 bytes): etcd's prefix range end, the prefix with its last byte incremented. Store prefixes
 * end in an ASCII character (`/`), whose successor is one character; `prefix + '\uffff'` would miss
 * U+FFFF itself and every character beyond the BMP (4-byte UTF-8 sequences sort above it).
 */
export function prefixRangeEnd(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last < 0x7f) return prefix.slice(0, -1) + String.fromCharCode(last + 1);
  throw new Error(`a key prefix must end in an ASCII character: ${JSON.stringify(prefix)}`);
}

export class EmbeddedStore implements Storage {
  /** Told about every get, list, create, update and delete; unset, timing costs nothing. */
  observer: StorageRequestObserver | undefined;
  /** The current generation's environment: another one after a shrink. Read it through `db`. */
  private environment: Environment;
  private generation: number;
  private readonly watchers = new Set<Watcher>();
  /** The compaction or shrink running, if any: they run one after another. */
  private compaction: Promise<unknown> = Promise.resolve();
  /** Set while a shrink switches files: writes wait for it (write). */
  private switching: Promise<void> | undefined;
  /** Writes handed to LMDB and not yet committed, and who waits for there to be none. */
  private writesInFlight = 0;
  private drained: (() => void) | undefined;
  /** Every record at or below this revision has been given to the watchers. */
  private notified: number;
  private notifying = false;
  private closed = false;
  /**
   * Set as the environment starts closing, once nothing is left to wait for: from then on nothing
   * may read it, since LMDB would read memory it freed (corrupting the heap rather than failing),
   * so `db` refuses with the store's Unavailable error instead.
   */
  private released = false;
  private closing: Promise<void> | undefined;
  private readonly sweeper: NodeJS.Timeout;
  /** The expiry sweep running, if any (close waits for it). */
  private sweeping: Promise<void> | undefined;

  constructor(
    readonly path: string,
    readonly prefix = '/registry',
    /** When a compaction is followed by a shrink. */
    private readonly shrinkPolicy = defaultShrinkPolicy,
  ) {
    this.generation = currentGeneration(path);
    removeOtherGenerations(path, this.generation);
    this.environment = openEnvironment(generationDir(path, this.generation));
    if (this.db.meta.get('layout') !== currentLayout) this.completeLayout();
    this.notified = this.revisionNow();
    this.sweeper = setInterval(() => {
      this.sweeping ??= this.expire()
        .catch(() => undefined)
        .finally(() => (this.sweeping = undefined));
    }, expirySweepMs);
    this.sweeper.unref();
  }

  /** The current environment's databases: every read and write of LMDB goes through here. */
  private get db(): Environment {
    if (this.released) throw closedError('');
    return this.environment;
  }

  key(resource: string, namespace: string | undefined, name: string): string {
    return namespace ? `${this.prefix}/${resource}/${namespace}/${name}` : `${this.prefix}/${resource}/${name}`;
  }

  collectionPrefix(resource: string, namespace?: string): string {
    return namespace ? `${this.prefix}/${resource}/${namespace}/` : `${this.prefix}/${resource}/`;
  }

  private revisionNow(): number {
    return this.db.meta.get('revision') ?? 1;
  }

  private compactedRevision(): number {
    return this.db.meta.get('compacted') ?? 0;
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
    if (!storable(key)) return undefined;
    const newest = this.db.current.get(key);
    let at = newest !== undefined && newest <= revision ? newest : undefined;
    if (at === undefined && newest !== undefined) {
      for (const {
        key: [, r],
      } of this.db.history.getRange({ start: [key, revision], end: [key, 0], reverse: true, limit: 1 }))
        at = r;
    }
    if (at === undefined) return undefined;
    const record = this.db.log.get(at);
    return record ? { revision: at, record } : undefined;
  }

  /** The text of `key`'s live value at `revision`; null when it had none. */
  private liveText(key: string, revision: number): StoredText | null {
    const found = this.recordAt(key, revision);
    return found?.record.value != null ? { key, text: found.record.value, modRevision: found.revision } : null;
  }

  /** `key`'s live value at `revision`, decoded without holding the loop long (decodeStoredTextsYielding). */
  private async live(key: string, revision: number): Promise<StoredValue | null> {
    const text = this.liveText(key, revision);
    return text ? ((await decodeStoredTextsYielding([text]))[0]?.value ?? null) : null;
  }

  /**
   * The bytes of the pages the data takes now: what a copy of the file would take. Pages freed
   * by compaction are reused by later writes, so the file (sizeBytes) is this at its highest.
   */
  bytesInUse(): number {
    type PageStats = { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
    let bytes = 0;
    for (const db of [this.db.root, this.db.log, this.db.current, this.db.history, this.db.expiry, this.db.meta]) {
      const stats = db.getStats() as PageStats;
      bytes += (stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages) * stats.pageSize;
    }
    return bytes;
  }

  /**
   * Copies the store into a new file holding only the pages in use, when `policy` says the copy is
   * due, and moves over to it, while reads and writes go on: LMDB reuses the pages compaction
   * frees but never shrinks its file, so a store that once held much more (a burst of writes, the
   * history between two compactions) would keep that size. Runs after compactions (compact) and at
   * start-up; one at a time with them.
   *
   * LMDB's compacting copy is made from one read snapshot off the event loop; the records written
   * since are copied after it in small transactions, and once few are left, writes wait while
   * the rest is copied and the new generation becomes current (generations.ts): every write
   * acknowledged before the switch is in the new file on disk, and every write after it goes there.
   * Reads read the old file until the switch, in the same turn of the loop as it.
   */
  shrink(policy = this.shrinkPolicy): Promise<ShrinkStats | undefined> {
    const run = this.compaction.then(() => this.shrinkNow(policy));
    this.compaction = run.catch(() => undefined);
    return run;
  }

  private shrinkDue(policy: ShrinkPolicy): boolean {
    if (policy.force) return true;
    const file = this.sizeBytes();
    return file > policy.floorBytes && file > 2 * this.liveBytes() && this.bytesInUse() < 0.9 * file;
  }

  private async shrinkNow(policy: ShrinkPolicy): Promise<ShrinkStats | undefined> {
    if (this.closed || !this.shrinkDue(policy)) return undefined;
    const fromBytes = this.sizeBytes();
    const next = this.generation + 1;
    const nextDir = generationDir(this.path, next);
    rmSync(nextDir, { recursive: true, force: true });
    mkdirSync(nextDir);
    try {
      await this.db.root.backup(nextDir, true);
      fsyncPath(generationDataFile(this.path, next), 'r+');
    } catch (err) {
      await removeGeneration(this.path, next);
      throw err;
    }
    const target = openEnvironment(nextDir);
    const previous = { root: this.db.root, generation: this.generation };
    let switched: 'no' | 'yes' | 'not durably' = 'no';
    let pauseMs = 0;
    try {
      // Commits off the event loop, as writes do; writes go on meanwhile.
      while (!this.closed && this.revisionNow() - (target.meta.get('revision') ?? 0) > shrinkCatchUpRecords)
        await target.root.transaction(() => this.copyRecords(target, shrinkCatchUpRecords));
      if (this.closed) return undefined;
      const started = performance.now();
      let release!: () => void;
      this.switching = new Promise((resolve) => (release = resolve));
      try {
        await this.writesCommitted();
        await target.root.transaction(() => this.copyRecords(target, Infinity));
        await target.root.flushed;
        switched = switchGeneration(this.path, next);
        this.environment = target;
        this.generation = next;
      } finally {
        this.switching = undefined;
        release();
        pauseMs = performance.now() - started;
      }
    } finally {
      if (switched === 'no') {
        await target.root.close();
        await removeGeneration(this.path, next);
      }
    }
    await previous.root.close();
    // Until the switch is on disk, a crash of the machine could bring the previous one back: it
    // stays until the next start removes whichever is not current.
    if (switched === 'yes') await removeGeneration(this.path, previous.generation);
    return { fromBytes, toBytes: this.sizeBytes(), pauseMs };
  }

  /**
   * Copies the records after the ones `target` has, at most `limit` of them (appendRecord, as write does): the log
   * record and its indexes. With no limit, the counters too (the copy is then the store).
   */
  private copyRecords(target: Environment, limit: number): void {
    let copied = 0;
    let through = target.meta.get('revision') ?? 0;
    for (const { key: revision, value: record } of this.db.log.getRange({ start: through + 1 })) {
      if (copied++ === limit) break;
      appendRecord(target, revision, record);
      through = revision;
    }
    if (limit !== Infinity) target.meta.putSync('revision', through);
    // Only what differs: each page a write touches in the copy is a new page of its file.
    else for (const { key, value } of this.db.meta.getRange({})) if (target.meta.get(key) !== value) target.meta.putSync(key, value);
  }

  /** Resolves once no write is between LMDB and its commit. */
  private async writesCommitted(): Promise<void> {
    while (this.writesInFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
  }

  isOpen(): boolean {
    return !this.closed;
  }

  /** The bytes the store's file takes on disk (apiserver_storage_size_bytes): LMDB reuses freed pages; only a shrink makes it smaller. */
  sizeBytes(): number {
    return statSync(generationDataFile(this.path, this.generation)).size;
  }

  get(key: string, revision?: number): Promise<StoredValue | null> {
    return timed(this.observer, 'get', key, () => this.live(key, this.readRevision(key, revision)));
  }

  range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    return timed(this.observer, 'list', prefix, async () => {
      const { texts, ...result } = this.rangeTexts(prefix, opts);
      return { ...result, values: (await decodeStoredTextsYielding(texts)).map((entry) => entry.value) };
    });
  }

  /** What `range` answers, with the values' texts read in one pass and not yet decoded. */
  private rangeTexts(prefix: string, opts: RangeOptions): Omit<RangeResult, 'values'> & { texts: StoredText[] } {
    const at = this.readRevision(prefix, opts.revision);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const texts: StoredText[] = [];
    let count = 0;
    let lastKey: string | undefined;
    if (!storable(prefix)) return { texts, revision: this.revisionNow(), more: false, count, lastKey };
    const startKey = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
    // A start key too long to be a key (a continue token's) starts at a prefix of it: the keys
    // before it are skipped below.
    const start = storable(startKey) ? startKey : startKey.slice(0, maxKeyBytes / 4);
    const startBytes = Buffer.from(startKey);
    const end = prefixRangeEnd(prefix);
    for (const { key } of this.db.current.getRange({ start, end })) {
      if (!key.startsWith(prefix)) continue;
      if (start !== startKey && Buffer.compare(Buffer.from(key), startBytes) < 0) continue;
      const text = this.liveText(key, at);
      if (!text) continue;
      count++;
      if (texts.length < limit) {
        texts.push(text);
        lastKey = key;
      }
    }
    return { texts, revision: this.revisionNow(), more: count > texts.length, count, lastKey };
  }

  /**
   * Every live object under `prefix` at one revision, as stored texts (the watch cache's listing,
   * which decodes them): read in one synchronous pass, which LMDB serves from one read snapshot.
   * Keys `accept` refuses are skipped.
   */
  snapshot(prefix: string, accept: (key: string) => boolean): { revision: number; texts: StoredText[] } {
    const revision = this.revisionNow();
    const texts: StoredText[] = [];
    for (const { key, value: at } of this.db.current.getRange({ start: prefix, end: prefixRangeEnd(prefix) })) {
      if (!key.startsWith(prefix) || !accept(key)) continue;
      const record = this.db.log.get(at);
      if (record?.value != null) texts.push({ key, text: record.value, modRevision: at });
    }
    return { revision, texts };
  }

  /**
   * The live records under `prefix` after `afterKey` (from the first when unset), in key order, at
   * most `limit`: each key with its stored text, undecoded, and when it expires (ms since the
   * epoch, 0 for never). What `corral migrate` copies, a page per call, each one synchronous pass.
   */
  liveRecords(prefix: string, afterKey: string | undefined, limit: number): { key: string; value: string; expiresAt: number }[] {
    const out: { key: string; value: string; expiresAt: number }[] = [];
    for (const { key, value: at } of this.db.current.getRange({ start: afterKey ?? prefix, end: prefixRangeEnd(prefix) })) {
      if (out.length === limit) break;
      if (key === afterKey || !key.startsWith(prefix)) continue;
      const record = this.db.log.get(at);
      if (record?.value != null) out.push({ key, value: record.value, expiresAt: record.expiresAt });
    }
    return out;
  }

  /**
   * One write transaction: `check` sees the key's current revision (0 when absent or deleted) and
   * may refuse by returning false; then the record is appended. Resolves with the new revision once
   * durable, or undefined when refused.
   */
  private async write(key: string, value: string | null, expiresAt: number, check: (currentRevision: number) => boolean): Promise<number | undefined> {
    if (value !== null && Buffer.byteLength(key) + Buffer.byteLength(value) > maxWriteBytes)
      throw new StorageError('TooLarge', key, etcdRequestTooLargeMessage);
    if (!storable(key))
      throw new StorageError('TooLarge', key, `the key is too long for the embedded store: ${Buffer.byteLength(key)} bytes, at most ${maxKeyBytes}`);
    // While a shrink switches files, a write waits, and then goes to the new one.
    while (this.switching) await this.switching;
    // A write LMDB is handed as its environment closes fails its commit in LMDB's own promises.
    if (this.closed) throw closedError(key);
    this.writesInFlight++;
    const root = this.db.root;
    let revision: number | undefined;
    try {
      revision = await root.transaction(() => {
        const newest = this.db.current.get(key) ?? 0;
        const previous = newest ? this.db.log.get(newest) : undefined;
        const liveRevision = previous?.value != null ? newest : 0;
        if (!check(liveRevision)) return undefined;
        const next = this.revisionNow() + 1;
        appendRecord(this.db, next, { key, value, prev: liveRevision, expiresAt });
        this.db.meta.putSync('revision', next);
        this.db.meta.putSync('liveBytes', this.liveBytes() + liveBytesOf(key, value) - liveBytesOf(key, previous?.value));
        return next;
      });
      // LMDB (overlappingSync) resolves a transaction once committed, and flushes it to disk
      // after: a write is acknowledged once flushed.
      await root.flushed;
    } finally {
      if (--this.writesInFlight === 0) this.drained?.();
    }
    if (revision !== undefined) this.notify();
    return revision;
  }

  async create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredValue> {
    const expiresAt = ttlSeconds ? Date.now() + ttlSeconds * 1000 : 0;
    const value = await encodeStoredObjectYielding(obj);
    const revision = await timed(this.observer, 'create', key, () => this.write(key, value, expiresAt, (live) => live === 0));
    if (revision === undefined) throw new StorageError('Exists', key, `key ${key} already exists`);
    obj.metadata.resourceVersion = String(revision);
    return { object: obj, modRevision: revision };
  }

  async guaranteedUpdate(
    key: string,
    decide: (current: StoredValue | null) => UpdateDecision | Promise<UpdateDecision>,
    cached?: StoredValue,
    ttlSeconds?: number,
  ): Promise<UpdateResult> {
    // The caller's copy when it is the key's newest record (a live one, then): no decoding, as etcd's store
    // tries it first and lets the write's check catch a change since.
    let first = cached !== undefined && this.db.current.get(key) === cached.modRevision ? cached : undefined;
    for (;;) {
      const current = first ?? (await this.live(key, this.revisionNow()));
      first = undefined;
      const decision = await decide(current);
      const seen = current?.modRevision ?? 0;
      if (decision.action === 'none') return { object: decision.object, revision: seen, created: false, deleted: false };
      if (decision.action === 'delete') {
        if (!current) return { object: null, revision: this.revisionNow(), created: false, deleted: false };
        const revision = await timed(this.observer, 'delete', key, () => this.write(key, null, 0, (live) => live === seen));
        if (revision === undefined) continue;
        return { object: current.object, revision, created: false, deleted: true };
      }
      const expiresAt = ttlSeconds ? Date.now() + ttlSeconds * 1000 : 0;
      const value = await encodeStoredObjectYielding(decision.object);
      const revision = await timed(this.observer, 'update', key, () => this.write(key, value, expiresAt, (live) => live === seen));
      if (revision === undefined) continue;
      decision.object.metadata.resourceVersion = String(revision);
      return { object: decision.object, revision, created: current === null, deleted: false };
    }
  }

  /**
   * Drops what no read at or above `revision` can see: every record superseded by a newer one at
   * or below `revision`, and deletions that are their key's newest record. Reads below `revision`
   * are refused from the start, as etcd refuses them once it accepted a compaction; the records
   * then go in steps. Each step is one short write transaction over the log after where the last
   * one stopped (`compactedThrough`), so the work is the history written since the previous
   * compaction, never the whole store; a compaction cut short (a crash, a close) is finished by
   * the next one.
   */
  compact(revision: number): Promise<CompactionStats> {
    const run = this.compaction.then(async () => {
      const stats = await this.compactTo(revision);
      const shrunk = await this.shrinkNow(this.shrinkPolicy);
      return shrunk ? { ...stats, shrunk } : stats;
    });
    this.compaction = run.catch(() => undefined);
    return run;
  }

  private async compactTo(revision: number): Promise<CompactionStats> {
    if (revision <= this.compactedRevision()) throw compactedError('');
    if (revision > this.revisionNow()) throw futureRevisionError('');
    await this.db.root.transaction(() => this.db.meta.putSync('compacted', revision));
    const stats: CompactionStats = { dropped: 0, steps: 0, longestStepMs: 0 };
    for (;;) {
      if (this.closed) return stats;
      const started = performance.now();
      let stepMs = 0;
      const done = await this.db.root.transaction(() => {
        const finished = this.compactStep(revision, stats);
        stepMs = performance.now() - started;
        return finished;
      });
      stats.steps++;
      stats.longestStepMs = Math.max(stats.longestStepMs, stepMs);
      if (done) return stats;
      // Writes queued meanwhile commit before the next step: a timer, not setImmediate, lets
      // their transactions in first.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  /**
   * One step, inside a write transaction: the log records after `compactedThrough`, up to
   * `revision`, within compactionStep's bounds. Each record supersedes its key's record before it
   * (the live one it replaced, `prev`, or for a create the deletion before it), which goes; a
   * deletion that is still its key's newest record goes too. True when it reached `revision`.
   */
  private compactStep(revision: number, stats: CompactionStats): boolean {
    const started = performance.now();
    const from = (this.db.meta.get('compactedThrough') ?? 0) + 1;
    const records: { revision: number; record: LogRecord }[] = [];
    // Whether `records` reaches `revision`: the range ran out before the step's bounds did.
    let reachesEnd = true;
    for (const { key, value } of this.db.log.getRange({ start: from, end: revision + 1 })) {
      if (records.length === compactionStep.records || performance.now() - started > compactionStep.ms / 2) {
        reachesEnd = false;
        break;
      }
      records.push({ revision: key, record: value });
    }
    let through = from - 1;
    for (const { revision: r, record } of records) {
      const before = record.prev || this.recordBefore(record.key, r);
      if (before && this.drop(record.key, before)) stats.dropped++;
      if (record.value === null && this.db.current.get(record.key) === r) {
        this.db.current.removeSync(record.key);
        if (this.drop(record.key, r)) stats.dropped++;
      }
      through = r;
      if (performance.now() - started > compactionStep.ms) break;
    }
    const done = reachesEnd && through === (records.at(-1)?.revision ?? through);
    this.db.meta.putSync('compactedThrough', done ? revision : through);
    return done;
  }

  /** The revision of `key`'s record just before `revision`, or 0. */
  private recordBefore(key: string, revision: number): number {
    for (const {
      key: [k, r],
    } of this.db.history.getRange({ start: [key, revision - 1], end: [key, 0], reverse: true, limit: 1 }))
      if (k === key) return r;
    return 0;
  }

  /** Removes one record; false when it was gone already. */
  private drop(key: string, revision: number): boolean {
    const had = this.db.history.removeSync([key, revision]);
    this.db.log.removeSync(revision);
    return had;
  }

  /** The changes under `prefix` from `fromRevision` on, decoded (changes.ts). */
  watch(prefix: string, fromRevision: number, handlers: StorageWatchHandlers): Promise<StorageWatch> {
    return watchDecoded(prefix, handlers, (changeHandlers) => this.watchChanges(prefix, fromRevision, changeHandlers));
  }

  /** The changes under `prefix` from `fromRevision` on, each once and in order, as stored: for a caller that decodes them itself. */
  async watchChanges(prefix: string, fromRevision: number, handlers: ChangeWatchHandlers): Promise<StorageWatch> {
    if (fromRevision < this.compactedRevision()) throw compactedError(prefix);
    const watcher: Watcher = { prefix, handlers, delivered: Math.max(fromRevision - 1, 0), active: true };
    // The replay up to what the watchers were given, then live with them: no gap, no repeat.
    const replay = this.changes(watcher, this.notified);
    this.watchers.add(watcher);
    if (replay.length) setImmediate(() => watcher.active && !this.closed && handlers.onChanges(replay));
    return {
      cancel: async () => {
        watcher.active = false;
        this.watchers.delete(watcher);
      },
    };
  }

  /** The watcher's changes after its `delivered` revision up to `until`, marking them delivered. */
  private changes(watcher: Watcher, until: number): StoredChange[] {
    const out: StoredChange[] = [];
    for (const { key: revision, value: record } of this.db.log.getRange({ start: watcher.delivered + 1, end: until + 1 })) {
      if (!record.key.startsWith(watcher.prefix)) continue;
      const previous = record.prev ? this.db.log.get(record.prev)?.value : undefined;
      out.push({
        key: record.key,
        revision,
        value: record.value,
        previous: previous != null ? { text: previous, modRevision: record.prev } : null,
      });
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
        const changes = this.changes(watcher, until);
        if (changes.length && watcher.active) watcher.handlers.onChanges(changes);
      }
      this.notified = until;
    });
  }

  /**
   * Deletes the objects whose TTL ran out (as etcd's lease expiry: a delete at a new revision),
   * reading only the due entries of the expiry index. An entry whose key was written since (its
   * revision is no longer the key's) is stale: dropped without a write.
   */
  private async expire(): Promise<void> {
    // Found first, deleted after: no read snapshot stays open across the writes.
    const due: { at: number; key: string; revision: number }[] = [];
    for (const {
      key: [at, key],
      value: revision,
    } of this.db.expiry.getRange({ end: [Date.now() + 1] }))
      due.push({ at, key, revision });
    for (const { at, key, revision } of due) {
      if (this.closed) return;
      await this.write(key, null, 0, (live) => live === revision);
      if (this.closed) return;
      await this.db.expiry.remove([at, key]);
    }
  }

  /** The bytes of the live objects' keys and values. */
  liveBytes(): number {
    return this.db.meta.get('liveBytes') ?? 0;
  }

  /**
   * Brings a store written by an earlier layout up to this one, once: the expiry index and the
   * live byte count, from the current records; and the compaction cursor, which an earlier
   * compaction (one transaction) left at the compacted revision.
   */
  private completeLayout(): void {
    this.db.root.transactionSync(() => {
      let live = 0;
      for (const { key, value: revision } of this.db.current.getRange({})) {
        const record = this.db.log.get(revision);
        if (record?.value == null) continue;
        live += liveBytesOf(key, record.value);
        if (record.expiresAt) this.db.expiry.putSync([record.expiresAt, key], revision);
      }
      this.db.meta.putSync('liveBytes', live);
      this.db.meta.putSync('compactedThrough', this.db.meta.get('compactedThrough') ?? this.compactedRevision());
      this.db.meta.putSync('layout', currentLayout);
    });
  }

  /** Stops the store: what runs finishes or stops at its next step, then the environment closes; reads and writes after it are refused. */
  close(): Promise<void> {
    return (this.closing ??= this.closeNow());
  }

  private async closeNow(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const watcher of this.watchers) watcher.active = false;
    this.watchers.clear();
    // A compaction stops at its next step, a shrink before its switch and a sweep before its next
    // write, and writes handed to LMDB commit; LMDB's copy must end before its environment closes.
    await Promise.all([this.compaction, this.sweeping, this.writesCommitted()]);
    const { root } = this.db;
    this.released = true;
    await root.close();
  }
}
