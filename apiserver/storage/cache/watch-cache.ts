/**
 * The watch cache: one watch per replica over the whole registry prefix feeds, per stored
 * resource, an in-memory copy of every object and a bounded history of recent events. Watches,
 * `resourceVersion=0` reads and NotOlderThan reads are served from it. The listing and the watch
 * come from the storage backend's feed (feed.ts): etcd's, or the embedded backend's.
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
 *   subscribed at; replay from history and subscription happen in one synchronous step. Events
 *   reach many subscribers over several turns of the event loop (`dispatch`), still in order.
 * - A broken etcd stream (reconnect, etcd restart, another member after a leader change) resumes
 *   after `revision` (watchEtcd): subscribers see neither a gap nor a duplicate and stay subscribed.
 * - When etcd cancels the watch (the revision after `revision` was compacted while the cache was
 *   cut off), the cache re-lists and closes its subscribers, as upstream's cacher terminates its
 *   watchers: they resume from their last revision, which the fresh history cannot serve, so the
 *   store watches etcd from it (compacted: 410 Expired, the client re-lists).
 */
import type { StoredValue } from '../etcd/store.ts';
import type { StorageEvent } from '../etcd/watch.ts';
import { EventHistory, upstreamHistoryBounds, type HistoryBounds } from './event-history.ts';
import type { CacheFeed } from './feed.ts';
import { ChangeDecoder } from '../changes.ts';
import { decodeStoredTextsYielding } from '../stored-value.ts';

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

interface SubscriberEntry {
  keyPrefix: string;
  /** The revision of the last event it has (at first its subscription's): only later ones follow. */
  delivered: number;
  subscriber: Subscriber;
  /** False once cancelled or closed: nothing more is delivered. */
  active: boolean;
}

/** Subscribers served in one turn of the event loop while events are dispatched (see `dispatch`). */
const defaultDispatchSlice = 200;

/** One stored resource's objects (sorted by key, as etcd ranges are) and recent events. */
export class ResourceCache {
  private readonly objects = new Map<string, StoredValue>();
  private sortedKeys: string[] = [];
  private keysDirty = false;
  private readonly history: EventHistory;
  private readonly subscribers = new Set<SubscriberEntry>();
  /** Applied events not yet dispatched, oldest first. */
  private undispatched: CacheEvent[] = [];
  private dispatching = false;
  private changeCount = 0;

  constructor(
    readonly prefix: string,
    /** How much history is kept (event-history.ts); tests narrow it. */
    historyBounds: Partial<HistoryBounds> = {},
    private readonly dispatchSlice = defaultDispatchSlice,
  ) {
    this.history = new EventHistory({ ...upstreamHistoryBounds, ...historyBounds });
  }

  reset(values: StoredValue[], keys: string[], revision: number): void {
    this.changeCount++;
    this.objects.clear();
    values.forEach((v, i) => this.objects.set(keys[i] ?? '', v));
    this.sortedKeys = [...keys];
    this.keysDirty = true;
    this.history.reset(revision);
    this.undispatched = [];
    for (const s of this.subscribers) {
      s.active = false;
      s.subscriber.onClose('the watch cache was re-initialized');
    }
    this.subscribers.clear();
  }

  apply(event: CacheEvent): void {
    this.changeCount++;
    if (event.type === 'delete') {
      if (this.objects.delete(event.key)) this.keysDirty = true;
    } else {
      if (!this.objects.has(event.key)) this.keysDirty = true;
      this.objects.set(event.key, event.value);
    }
    this.history.push(event);
    this.undispatched.push(event);
    if (!this.dispatching) this.dispatch();
  }

  /**
   * Delivers the undispatched events to the subscribers of the moment, `dispatchSlice` of them at
   * once and the rest in later turns of the event loop: the first watchers' frames go on the wire
   * while later ones are written, other requests are served in between, and a watcher that missed
   * turns gets its events back to back (written together). Events applied meanwhile wait for the
   * next round, so each subscriber still sees every event in order; `delivered` keeps it to once,
   * also for a subscriber that joined meanwhile and had them from history.
   */
  private dispatch(): void {
    this.dispatching = true;
    const events = this.undispatched;
    this.undispatched = [];
    const entries = [...this.subscribers];
    let next = 0;
    const step = (): void => {
      const end = Math.min(entries.length, next + this.dispatchSlice);
      for (; next < end; next++) {
        const entry = entries[next]!;
        // Once per event per watcher: no allocation, the cheap tests first.
        for (const event of events) {
          if (!entry.active) break;
          if (event.revision > entry.delivered && event.key.startsWith(entry.keyPrefix)) {
            entry.delivered = event.revision;
            this.deliver(entry, event);
          }
        }
      }
      if (next < entries.length) setImmediate(step);
      else if (this.undispatched.length) this.dispatch();
      else this.dispatching = false;
    };
    step();
  }

  /** One subscriber's failure (an object it cannot encode) ends that subscription, not the dispatch. */
  private deliver(entry: SubscriberEntry, event: CacheEvent): void {
    try {
      entry.subscriber.onEvent(event);
    } catch (err) {
      entry.active = false;
      this.subscribers.delete(entry);
      entry.subscriber.onClose(`event at revision ${event.revision}: ${err instanceof Error ? err.message : String(err)}`);
    }
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

  /**
   * Grows with every change of the objects (an applied event, a reset): readers that derive an
   * index from them rebuild it when this moved, without subscribing.
   */
  get changes(): number {
    return this.changeCount;
  }

  get size(): number {
    return this.objects.size;
  }

  /** True when every event after `revision` is still in history. */
  canResumeFrom(revision: number): boolean {
    return revision >= this.history.startRevision;
  }

  /** The oldest resourceVersion a watch can resume from (upstream's figure in "too old resource version"). */
  oldestResumableRevision(): number {
    return this.history.startRevision;
  }

  /**
   * Replays history after `revision` to the subscriber, then subscribes it to live events; the
   * caller must have checked canResumeFrom(revision).
   */
  subscribe(keyPrefix: string, afterRevision: number, subscriber: Subscriber): Subscription {
    this.history.forEachAfter(afterRevision, (event) => {
      if (event.key.startsWith(keyPrefix)) subscriber.onEvent(event);
    });
    // Events at or below the subscription's revision (it may lie ahead of the cache), and those
    // just replayed (some may not be dispatched yet), are not delivered again.
    const delivered = Math.max(afterRevision, this.history.lastRevision ?? 0);
    const entry: SubscriberEntry = { keyPrefix, delivered, subscriber, active: true };
    this.subscribers.add(entry);
    return {
      cancel: () => {
        entry.active = false;
        this.subscribers.delete(entry);
      },
    };
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

interface Waiter {
  revision: number;
  resolve(reached: boolean): void;
  timer: NodeJS.Timeout;
}

/** The replica-wide cache: one etcd watch, one ResourceCache per stored resource. */
export class WatchCache {
  private readonly resources = new Map<string, ResourceCache>();
  private feedWatch: { cancel(): Promise<void> } | undefined;
  private waiters: Waiter[] = [];
  private stopped = false;
  private ready: Promise<void> | undefined;
  /** Every change at or below this revision has been applied. */
  revision = 0;
  /** The revision of the last full list; resources without objects then have history from here. */
  private listedAt = 0;

  constructor(
    /** The backend's listing and watch (etcd's: storage/etcd/cache-feed.ts). */
    private readonly feed: CacheFeed,
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

  /** Lists the whole prefix into fresh caches (closing their subscribers), then watches after the list. */
  private async initialize(): Promise<void> {
    const listing = await this.feed.list(`${this.prefix}/`, this.accept);
    const { revision } = listing;
    const entries = await decodeStoredTextsYielding(listing.texts, this.onError);
    this.listedAt = revision;
    const byResource = new Map<string, { values: StoredValue[]; keys: string[] }>();
    for (const { key, value } of entries) {
      const resource = this.resourceOf(key);
      if (!resource) continue;
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

  /** Keys inside a resource: the ones the cache keeps. */
  private readonly accept = (key: string): boolean => this.resourceOf(key) !== undefined;

  /** The value the cache holds for `key`: a change's previous value, most of the time (changes.ts). */
  private readonly known = (key: string): StoredValue | undefined => {
    const resource = this.resourceOf(key);
    return resource === undefined ? undefined : this.resources.get(resource)?.get(key);
  };

  /** `<prefix>/<resource>/...` → resource; undefined for keys outside any resource. */
  private resourceOf(key: string): string | undefined {
    const rest = key.slice(this.prefix.length + 1);
    const slash = rest.indexOf('/');
    return slash > 0 ? rest.slice(0, slash) : undefined;
  }

  /**
   * Follows the feed from `fromRevision`: its changes decoded in order, each batch in a time slice
   * of its own, with the values the cache holds as previous values (changes.ts).
   */
  private watch(fromRevision: number): void {
    const decoder = new ChangeDecoder({ known: this.known, onBadValue: this.onError }, this.onError);
    // Set before the feed can report anything, so that its end is recognised as this watch's.
    const feed: { watch?: { cancel(): Promise<void> } } = {};
    const watch = {
      cancel: async (): Promise<void> => {
        decoder.stop();
        await feed.watch?.cancel();
      },
    };
    this.feedWatch = watch;
    feed.watch = this.feed.watch(`${this.prefix}/`, fromRevision, this.accept, {
      onChanges: (changes, revision) => decoder.push(changes, (events) => this.applyEvents(events, revision)),
      onCancel: (err) =>
        decoder.after(() => {
          if (this.stopped || this.feedWatch !== watch) return;
          // The history after `revision` is gone (or the backend refuses the watch): start over from a list.
          this.onError(err);
          this.ready = this.initialize().catch((e: unknown) => {
            this.onError(e);
            this.ready = undefined;
            setTimeout(() => void (this.stopped ? undefined : this.start()), 1000);
          });
        }),
    });
  }

  /** One batch of the feed, all after `revision` (the feed drops re-deliveries); `last` is the revision it brings the store to. */
  private applyEvents(events: StorageEvent[], last: number): void {
    for (const event of events) {
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
    await this.feedWatch?.cancel();
  }
}
