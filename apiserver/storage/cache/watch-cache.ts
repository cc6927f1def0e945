/**
 * The watch cache: one etcd watch per replica over the whole registry prefix feeds, per stored
 * resource, an in-memory copy of every object and a bounded history of recent events. Watches,
 * `resourceVersion=0` reads and NotOlderThan reads are served from it.
 *
 * Why one watch over the prefix rather than one per resource: etcd 3.4's progress notifications
 * are unreliable (etcd#15220, #17507), so a per-resource watch cannot learn that the cluster moved
 * on while its resource did not change, and a reader asking for "not older than N" with N from
 * another resource would wait forever. Watching the whole prefix, every resource's cache knows the
 * revision of the last write to any resource. Writes outside the prefix stay invisible; readers that
 * time out waiting fall back to etcd (see `waitFor`).
 *
 * Contracts:
 * - `revision` is the newest revision such that every change at or below it has been applied.
 * - A subscriber receives, in order and exactly once, every event after the revision it
 *   subscribed at; replay from history and subscription happen in one synchronous step.
 * - When the etcd watch breaks for good, the cache re-lists and closes its subscribers, which then
 *   resume from their last revision (served from history, etcd, or answered 410).
 */
import type { Etcd3, IWatchResponse, Watcher } from 'etcd3';
import { decodeValue, prefixEnd, type StoredValue } from '../etcd/store.ts';
import { toStorageEvents, type StorageEvent } from '../etcd/watch.ts';

export type CacheEvent = StorageEvent;

export interface Subscriber {
  /** Called with each event after the subscription revision, in order. */
  onEvent(event: CacheEvent): void;
  /** The cache can no longer continue this subscription (re-list, overflow); nothing follows. */
  onClose(reason: string): void;
}

export interface Subscription {
  cancel(): void;
}

/** Maximum events kept per resource for watches that resume from a recent revision. */
const defaultHistoryCapacity = 10_000;

/** One stored resource's objects (sorted by key, as etcd ranges are) and recent events. */
export class ResourceCache {
  private readonly objects = new Map<string, StoredValue>();
  private sortedKeys: string[] = [];
  private keysDirty = false;
  private readonly history: CacheEvent[] = [];
  /** Events after this revision are all in `history`. */
  private historyStart = 0;
  private readonly subscribers = new Set<{ keyPrefix: string; subscriber: Subscriber }>();

  constructor(
    readonly prefix: string,
    private readonly historyCapacity = defaultHistoryCapacity,
  ) {}

  reset(values: StoredValue[], keys: string[], revision: number): void {
    this.objects.clear();
    values.forEach((v, i) => this.objects.set(keys[i] ?? '', v));
    this.sortedKeys = [...keys];
    this.keysDirty = true;
    this.history.length = 0;
    this.historyStart = revision;
    for (const s of this.subscribers) s.subscriber.onClose('the watch cache was re-initialized');
    this.subscribers.clear();
  }

  apply(event: CacheEvent): void {
    if (event.type === 'delete') {
      if (this.objects.delete(event.key)) this.keysDirty = true;
    } else {
      if (!this.objects.has(event.key)) this.keysDirty = true;
      this.objects.set(event.key, event.value);
    }
    this.history.push(event);
    if (this.history.length > this.historyCapacity) {
      const dropped = this.history.shift();
      if (dropped) this.historyStart = dropped.revision;
    }
    for (const s of this.subscribers) if (event.key.startsWith(s.keyPrefix)) s.subscriber.onEvent(event);
  }

  get(key: string): StoredValue | undefined {
    return this.objects.get(key);
  }

  /** Values under `keyPrefix` in key order. */
  list(keyPrefix: string): StoredValue[] {
    if (this.keysDirty) {
      this.sortedKeys = [...this.objects.keys()].sort();
      this.keysDirty = false;
    }
    const out: StoredValue[] = [];
    let i = lowerBound(this.sortedKeys, keyPrefix);
    for (; i < this.sortedKeys.length; i++) {
      const key = this.sortedKeys[i] ?? '';
      if (!key.startsWith(keyPrefix)) break;
      const value = this.objects.get(key);
      if (value) out.push(value);
    }
    return out;
  }

  get size(): number {
    return this.objects.size;
  }

  /** True when every event after `revision` is still in history. */
  canResumeFrom(revision: number): boolean {
    return revision >= this.historyStart;
  }

  /** The oldest resourceVersion a watch can resume from (upstream's figure in "too old resource version"). */
  oldestResumableRevision(): number {
    return this.historyStart;
  }

  /**
   * Replays history after `revision` to the subscriber, then subscribes it to live events; the
   * caller must have checked canResumeFrom(revision).
   */
  subscribe(keyPrefix: string, afterRevision: number, subscriber: Subscriber): Subscription {
    const start = upperBoundByRevision(this.history, afterRevision);
    for (let i = start; i < this.history.length; i++) {
      const event = this.history[i];
      if (event && event.key.startsWith(keyPrefix)) subscriber.onEvent(event);
    }
    // Live events at or below the subscription's revision (it may lie ahead of the cache) are skipped.
    const entry = { keyPrefix, subscriber: { onEvent: (e: CacheEvent) => e.revision > afterRevision && subscriber.onEvent(e), onClose: subscriber.onClose } };
    this.subscribers.add(entry);
    return { cancel: () => void this.subscribers.delete(entry) };
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }
}

function lowerBound(sorted: string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] ?? '') < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index of the first event with a revision greater than `revision`. */
function upperBoundByRevision(events: CacheEvent[], revision: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((events[mid]?.revision ?? 0) <= revision) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Waiter {
  revision: number;
  resolve(reached: boolean): void;
  timer: NodeJS.Timeout;
}

/** The replica-wide cache: one etcd watch, one ResourceCache per stored resource. */
export class WatchCache {
  private readonly resources = new Map<string, ResourceCache>();
  private watcher: Watcher | undefined;
  private waiters: Waiter[] = [];
  private stopped = false;
  private ready: Promise<void> | undefined;
  /** Every change at or below this revision has been applied. */
  revision = 0;
  /** The revision of the last full list; resources without objects then have history from here. */
  private listedAt = 0;

  constructor(
    private readonly client: Etcd3,
    /** The registry prefix, e.g. `/registry`. */
    private readonly prefix: string,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** The cache of a stored resource (its key prefix is `<prefix>/<resource>/`). */
  resource(resource: string): ResourceCache {
    let cache = this.resources.get(resource);
    if (!cache) {
      cache = new ResourceCache(`${this.prefix}/${resource}/`);
      // A resource first seen after the initial list was empty then: its history starts there.
      cache.reset([], [], this.listedAt);
      this.resources.set(resource, cache);
    }
    return cache;
  }

  /** Lists everything and starts the watch; resolves once the cache holds a consistent state. */
  start(): Promise<void> {
    this.ready ??= this.initialize();
    return this.ready;
  }

  private async initialize(): Promise<void> {
    const root = `${this.prefix}/`;
    const res = await this.client.kv.range({ key: Buffer.from(root), range_end: prefixEnd(root) });
    const revision = Number(res.header.revision);
    this.listedAt = revision;
    const byResource = new Map<string, { values: StoredValue[]; keys: string[] }>();
    for (const kv of res.kvs) {
      const key = kv.key.toString('utf8');
      const resource = this.resourceOf(key);
      if (!resource) continue;
      let value: StoredValue;
      try {
        value = decodeValue(kv);
      } catch (err) {
        this.onError(err);
        continue;
      }
      const entry = byResource.get(resource) ?? { values: [], keys: [] };
      entry.values.push(value);
      entry.keys.push(key);
      byResource.set(resource, entry);
    }
    for (const [name, cache] of this.resources) {
      const entry = byResource.get(name);
      cache.reset(entry?.values ?? [], entry?.keys ?? [], revision);
    }
    for (const [name, entry] of byResource) {
      if (!this.resources.has(name)) this.resource(name).reset(entry.values, entry.keys, revision);
    }
    this.revision = revision;
    this.releaseWaiters();
    this.watch(revision + 1);
  }

  /** `<prefix>/<resource>/...` → resource; undefined for keys outside any resource. */
  private resourceOf(key: string): string | undefined {
    const rest = key.slice(this.prefix.length + 1);
    const slash = rest.indexOf('/');
    return slash > 0 ? rest.slice(0, slash) : undefined;
  }

  private watch(fromRevision: number): void {
    const root = `${this.prefix}/`;
    const watcher = this.client.watch().prefix(root).startRevision(String(fromRevision)).withPreviousKV().watcher();
    this.watcher = watcher;
    watcher.on('data', (res: IWatchResponse) => this.applyResponse(res));
    watcher.on('error', (err) => {
      if (this.stopped || this.watcher !== watcher) return;
      // The stream cannot resume (its revision was compacted, or etcd cancelled it): start over.
      this.onError(err);
      this.ready = this.initialize().catch((e: unknown) => {
        this.onError(e);
        this.ready = undefined;
        setTimeout(() => void (this.stopped ? undefined : this.start()), 1000);
      });
    });
  }

  private applyResponse(res: IWatchResponse): void {
    let last = this.revision;
    for (const event of res.events) last = Math.max(last, Number(event.kv.mod_revision));
    const accept = (key: string): boolean => this.resourceOf(key) !== undefined;
    for (const event of toStorageEvents(res, accept, this.onError)) {
      const resource = this.resourceOf(event.key);
      if (resource) this.resource(resource).apply(event);
    }
    if (last > this.revision) {
      this.revision = last;
      this.releaseWaiters();
    }
  }

  private releaseWaiters(): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (this.revision >= w.revision) {
        clearTimeout(w.timer);
        w.resolve(true);
      } else {
        still.push(w);
      }
    }
    this.waiters = still;
  }

  /** Resolves true once the cache reached `revision`, false after `timeoutMs` without it. */
  async waitFor(revision: number, timeoutMs: number): Promise<boolean> {
    await this.start();
    if (this.revision >= revision) return true;
    return new Promise((resolve) => {
      const waiter: Waiter = {
        revision,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
    this.waiters = [];
    await this.watcher?.cancel().catch(() => {});
  }
}
