/**
 * Changes as a backend reads them (a key's new and previous values as stored text), decoded into
 * the StorageEvents that watchers and the watch cache receive. One decoder for every backend.
 *
 * Why this is not one JSON.parse per value: a stored value may be as large as etcd's 1.5 MiB, and
 * one JSON.parse of that many labels holds the event loop for 60–80 ms, twice per change (the value
 * and the previous one), on every replica, for a write whose request was itself served in slices.
 * So decoding is written as steps (large values parsed in pieces), and a change's previous value is
 * taken from its caller when it already holds it (`known`: the watch cache has every current
 * value), which spares the second parse and keeps one object for the two events instead of two.
 * `ChangeDecoder` runs each batch in a time slice of its own and hands the batches over in order.
 */
import type { Steps } from '../../shared/apply/steps.ts';
import { TimeSlice } from '../../shared/apply/time-slice.ts';
import { StorageError } from './etcd/errors.ts';
import type { StoredValue } from './etcd/store.ts';
import type { StorageEvent, StorageWatch, StorageWatchHandlers } from './etcd/watch.ts';
import { atRevision, decodeStoredObjectSteps } from './stored-value.ts';

/** One change to one key, undecoded. */
export interface StoredChange {
  key: string;
  /** The revision of the change. */
  revision: number;
  /** The new value's stored text; null for a delete. */
  value: string | null;
  /**
   * The value the change replaced, with the revision it was written at; null when there was none;
   * 'held' when the feed does not carry it because its caller holds every current value of the
   * keys it watches (`ChangeDecoding.known`, kept up to date by every earlier change).
   */
  previous: { text: string; modRevision: number } | null | 'held';
}

/** What a watch of a store's changes is told: its changes in order, undecoded; or its end (nothing follows). */
export interface ChangeWatchHandlers {
  onChanges: (changes: StoredChange[]) => void;
  onError: (err: StorageError) => void;
}

export interface ChangeDecoding {
  /** The decoded value the caller holds for `key`, if any: taken as a change's previous value when its revision is that one. */
  known?: (key: string) => StoredValue | undefined;
  /** A value that is not an object (foreign or corrupt data): its change is skipped, so one bad key never stops a stream. */
  onBadValue?: (err: unknown) => void;
}

/**
 * The events of `changes`, in order. A delete carries the last value under the deletion's revision
 * (as etcd's watch reports it) and is dropped when there was no value to report.
 */
export function* decodeChangesSteps(changes: readonly StoredChange[], decoding: ChangeDecoding = {}): Steps<StorageEvent[]> {
  const out: StorageEvent[] = [];
  // Values decoded in this batch (null: deleted in it): a key changed twice in one batch has its
  // first change as the second's previous, and a key deleted in it has none, whatever the caller
  // still holds (the batch reaches the caller once decoded).
  const decoded = new Map<string, StoredValue | null>();
  const heldValue = (key: string): StoredValue | null | undefined => (decoded.has(key) ? decoded.get(key) : decoding.known?.(key));
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    const { key, revision } = change;
    try {
      let previous: StoredValue | null = null;
      if (change.previous === 'held') {
        previous = heldValue(key) ?? null;
      } else if (change.previous) {
        const { text, modRevision } = change.previous;
        const held = heldValue(key);
        previous = held?.modRevision === modRevision ? held : yield* decodeStoredObjectSteps(key, text, modRevision);
      }
      if (change.value === null) {
        decoded.set(key, null);
        if (previous) out.push({ type: 'delete', key, value: atRevision(previous, revision), previous, revision });
        continue;
      }
      const value = yield* decodeStoredObjectSteps(key, change.value, revision);
      decoded.set(key, value);
      out.push({ type: 'put', key, value, previous, revision, text: change.value });
    } catch (err) {
      decoding.onBadValue?.(err);
    }
  }
  return out;
}

/**
 * Decodes batches of changes one after another and hands each batch's events to `deliver` in the
 * order the batches came. A batch is decoded once every earlier one was delivered (so `known` sees
 * their values), in a time slice of its own: a batch of small values is delivered at once, as it
 * would be without slicing; one holding a large value lets the loop run between pieces, and later
 * batches wait for it. After `stop` nothing more is delivered.
 */
export class ChangeDecoder {
  private queue: { changes: readonly StoredChange[]; then: (events: StorageEvent[]) => void }[] = [];
  private running = false;
  private stopped = false;

  constructor(
    private readonly decoding: ChangeDecoding,
    /** A failure of decoding as a whole, or of a `deliver`: reported, and the batches behind it go on. */
    private readonly onFailure: (err: unknown) => void,
  ) {}

  /** Queues `changes`; `deliver` receives their events (possibly none) once decoded. */
  push(changes: readonly StoredChange[], deliver: (events: StorageEvent[]) => void): void {
    if (this.stopped) return;
    this.queue.push({ changes, then: deliver });
    if (!this.running) this.drain();
  }

  /** Runs `then` once every batch queued so far was delivered (an end of stream after its last events). */
  after(then: () => void): void {
    this.push([], then);
  }

  stop(): void {
    this.stopped = true;
    this.queue = [];
  }

  private drain(): void {
    this.running = true;
    while (!this.stopped) {
      const batch = this.queue.shift();
      if (!batch) break;
      const steps = decodeChangesSteps(batch.changes, this.decoding);
      const slice = new TimeSlice();
      const first = steps.next();
      if (first.done) {
        this.handOver(batch.then, first.value);
        continue;
      }
      // A large value: the rest of this batch, and every batch behind it, in turns of the loop.
      void slice.run(steps).then(
        (events) => {
          if (!this.stopped) this.handOver(batch.then, events);
          this.drain();
        },
        (err: unknown) => {
          this.onFailure(err);
          this.drain();
        },
      );
      return;
    }
    this.running = false;
  }

  private handOver(deliver: (events: StorageEvent[]) => void, events: StorageEvent[]): void {
    try {
      deliver(events);
    } catch (err) {
      this.onFailure(err);
    }
  }
}

/**
 * A store's watch of decoded events over its watch of changes (`watchChanges`): decoded in order by
 * a ChangeDecoder, the end after the last events. A watcher that fails to take its events ends, as
 * one the store cancelled would.
 */
export async function watchDecoded(
  prefix: string,
  handlers: StorageWatchHandlers,
  watchChanges: (handlers: ChangeWatchHandlers) => Promise<StorageWatch>,
): Promise<StorageWatch> {
  // Set once watchChanges answers; a failure before that (a synchronous first batch) ends the delivery alone.
  const started: { watch?: StorageWatch } = {};
  const decoder = new ChangeDecoder({}, (err) => {
    decoder.stop();
    void started.watch?.cancel();
    handlers.onError(new StorageError('Internal', prefix, `delivering a change: ${err instanceof Error ? err.message : String(err)}`));
  });
  const watch = await watchChanges({
    onChanges: (changes) =>
      decoder.push(changes, (events) => {
        if (events.length) handlers.onEvents(events);
      }),
    onError: (err) => decoder.after(() => handlers.onError(err)),
  });
  started.watch = watch;
  return {
    cancel: () => {
      decoder.stop();
      return watch.cancel();
    },
  };
}
