/**
 * A resource's recent events in the watch cache, kept as upstream's cacher keeps them: by age, not
 * by count. Every event of the last 75 s is kept (upstream's eventFreshDuration: a bookmark
 * interval and a margin, so that a watcher reconnecting within a bookmark interval can resume
 * instead of getting 410), and at least 100 events, at most 102,400 (upstream's lower and upper
 * bounds). A fixed count keeps too little of a busy resource (5,000 nodes renew 500 leases a
 * second: 10,000 events were 20 s) and far too much of a quiet one with large objects (10,000
 * Node status updates are 10 minutes of whole Nodes).
 *
 * Dropping the oldest event is O(1): a head index, the array compacted once the dropped part is
 * most of it.
 *
 * Superseded values are held as text. 75 s of 5,000 nodes' lease renewals are 37,500 events; held
 * as decoded objects (graphs of small objects, with the served form beside each), every major
 * collection of a replica had to trace them all: with 10 s of history its old space was 133 MB,
 * against 167-241 MB with 75 s. (Sharing each version's unchanged parts with the version before,
 * as the cache once did, saved memory only while both were held as objects.) So a put whose key
 * changed again since keeps only its value's stored text (one flat string, already read from the
 * backend, which the collector marks without tracing into), and is decoded again only when a
 * watch resumes from before it. The newest event of each key keeps its object, which is the
 * cache's current one anyway; so does an event whose backend gave no text, and a delete. An
 * event's previous value is the held event before it of the same key when there is one (so it
 * is not held twice), else the value the event came with.
 */
import { slicedParseMinLength } from '../../../shared/codec/json-sliced.ts';
import { decodeStoredObject } from '../stored-value.ts';
import type { StoredValue } from '../etcd/store.ts';
import type { StorageEvent } from '../etcd/watch.ts';

export interface HistoryBounds {
  /** Events younger than this are kept (ms). */
  freshMs: number;
  /** At least this many events are kept, whatever their age. */
  lowerBound: number;
  /** At most this many. */
  upperBound: number;
  /** Milliseconds from any origin; injected by tests. */
  now: () => number;
}

export const upstreamHistoryBounds: HistoryBounds = { freshMs: 75_000, lowerBound: 100, upperBound: 100 * 1024, now: () => performance.now() };

/** One held event: its value as an object, or as text once a later change of its key superseded it. */
class HeldEvent {
  readonly type: StorageEvent['type'];
  readonly key: string;
  readonly revision: number;
  /** The value's revision (a delete's value is the last one, at the deletion's revision). */
  readonly valueRevision: number;
  /** A put's stored text, when its backend gave it and it is small enough to decode in one call. */
  private readonly text: string | undefined;
  /** The value, until superseded when there is text (then the text stands for it). */
  private value: StoredValue | undefined;
  /** The previous value when it is not that of a held event (`previousHeld`). */
  private previousValue: StoredValue | null;

  constructor(
    event: StorageEvent,
    /** The held event of the same key this one follows, when its value is this one's previous. */
    private previousHeld: HeldEvent | undefined,
  ) {
    this.type = event.type;
    this.key = event.key;
    this.revision = event.revision;
    this.valueRevision = event.value.modRevision;
    // A large value stays an object: decoding it again would hold the loop (changes.ts decodes those in slices).
    this.text = event.type === 'put' && event.text !== undefined && event.text.length < slicedParseMinLength ? event.text : undefined;
    this.value = event.value;
    this.previousValue = previousHeld ? null : event.previous;
  }

  /** A later change of the key came: the object goes when its text can stand for it. */
  supersede(): void {
    if (this.text !== undefined) this.value = undefined;
  }

  /** The value, decoded again from its text when superseded (a fresh object: nothing else holds it). */
  currentValue(): StoredValue {
    return this.value ?? decodeStoredObject(this.key, this.text ?? '', this.valueRevision);
  }

  /** The event as it was pushed, its superseded values decoded again. */
  event(): StorageEvent {
    const previous = this.previousHeld ? this.previousHeld.currentValue() : this.previousValue;
    return { type: this.type, key: this.key, value: this.currentValue(), previous, revision: this.revision };
  }

  /**
   * Dropped from history: it is replayed no more, so its own previous goes (the next event of its
   * key may still take this one's value as its previous, and is then the only one holding it).
   */
  dropped(): void {
    this.previousHeld = undefined;
    this.previousValue = null;
  }
}

export class EventHistory {
  private events: (HeldEvent | undefined)[] = [];
  private times: number[] = [];
  private head = 0;
  /** Every event after this revision is held. */
  private start = 0;
  /** The newest held event of each key. */
  private newest = new Map<string, HeldEvent>();

  constructor(private readonly bounds: HistoryBounds = upstreamHistoryBounds) {}

  /** Forgets every event; the history starts after `revision`. */
  reset(revision: number): void {
    this.events = [];
    this.times = [];
    this.head = 0;
    this.start = revision;
    this.newest = new Map();
  }

  /** The revision after which every event is held (what a watch can resume from). */
  get startRevision(): number {
    return this.start;
  }

  /** The newest event's revision, or undefined when none is held. */
  get lastRevision(): number | undefined {
    return this.events.length > this.head ? this.events[this.events.length - 1]?.revision : undefined;
  }

  get length(): number {
    return this.events.length - this.head;
  }

  push(event: StorageEvent): void {
    const now = this.bounds.now();
    const before = this.newest.get(event.key);
    // The held event before it of the same key stands for its previous value when that is the
    // value it carries (the same revision); either way that one is superseded now.
    const follows = before && event.previous !== null && event.previous.modRevision === before.valueRevision ? before : undefined;
    before?.supersede();
    const held = new HeldEvent(event, follows);
    this.newest.set(event.key, held);
    this.events.push(held);
    this.times.push(now);
    const { freshMs, lowerBound, upperBound } = this.bounds;
    while (this.length > upperBound || (this.length > lowerBound && now - (this.times[this.head] ?? now) > freshMs)) {
      const oldest = this.events[this.head];
      this.start = oldest?.revision ?? this.start;
      if (oldest) {
        oldest.dropped();
        if (this.newest.get(oldest.key) === oldest) this.newest.delete(oldest.key);
      }
      this.events[this.head] = undefined;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  /** Calls `visit` with every held event after `revision`, oldest first. */
  forEachAfter(revision: number, visit: (event: StorageEvent) => void): void {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid]?.revision ?? 0) <= revision) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.events.length; i++) {
      const held = this.events[i];
      if (held) visit(held.event());
    }
  }
}
