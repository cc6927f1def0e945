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
 */
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

export class EventHistory {
  private events: (StorageEvent | undefined)[] = [];
  private times: number[] = [];
  private head = 0;
  /** Every event after this revision is held. */
  private start = 0;

  constructor(private readonly bounds: HistoryBounds = upstreamHistoryBounds) {}

  /** Forgets every event; the history starts after `revision`. */
  reset(revision: number): void {
    this.events = [];
    this.times = [];
    this.head = 0;
    this.start = revision;
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
    this.events.push(event);
    this.times.push(now);
    const { freshMs, lowerBound, upperBound } = this.bounds;
    while (this.length > upperBound || (this.length > lowerBound && now - (this.times[this.head] ?? now) > freshMs)) {
      this.start = this.events[this.head]?.revision ?? this.start;
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
      const event = this.events[i];
      if (event) visit(event);
    }
  }
}
