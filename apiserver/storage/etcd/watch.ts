/**
 * Watches on a key prefix from a revision, straight from etcd: every change after the start
 * revision, in revision order, exactly once, across broken streams (etcd restarts, reconnects,
 * another member after a leader change). A watch that etcd cancels (its next revision was
 * compacted) ends with a StorageError instead of going quiet.
 */
import type { Etcd3, IEvent, IWatchResponse, Watcher } from 'etcd3';
import type { StoredValue } from './store.ts';
import { classifyEtcdError, StorageError } from './errors.ts';
import { watchDecoded, type StoredChange } from '../changes.ts';

export interface StorageEvent {
  type: 'put' | 'delete';
  key: string;
  /** The new value; for a delete, the last value with the deletion's revision. */
  value: StoredValue;
  /** The value before this change, when there was one. */
  previous: StoredValue | null;
  revision: number;
}

export interface StorageWatch {
  cancel(): Promise<void>;
}

export interface StorageWatchHandlers {
  onEvents(events: StorageEvent[]): void;
  /** The watch ended for good; no more events follow. */
  onError(err: StorageError): void;
}

/**
 * etcd watch events (one response's, in revision order) as changes to decode (changes.ts). Keys
 * `accept` refuses are left out, undecoded. `previous: 'held'` is for a watch made without previous
 * values (`withPreviousValues: false`): its caller holds them.
 */
export function toStoredChanges(
  events: readonly IEvent[],
  accept: (key: string) => boolean = () => true,
  previous: 'carried' | 'held' = 'carried',
): StoredChange[] {
  const out: StoredChange[] = [];
  for (const event of events) {
    const key = event.kv.key.toString('utf8');
    if (!accept(key)) continue;
    const { prev_kv: prev } = event;
    out.push({
      key,
      revision: Number(event.kv.mod_revision),
      value: event.type === 'Delete' ? null : event.kv.value.toString('utf8'),
      previous: previous === 'held' ? 'held' : prev && prev.value.length ? { text: prev.value.toString('utf8'), modRevision: Number(prev.mod_revision) } : null,
    });
  }
  return out;
}

export interface EtcdWatchHandlers {
  /** The events of one response that follow the last delivered revision; never empty. */
  onEvents(events: IEvent[]): void;
  /**
   * etcd cancelled the watch: Compacted when the next revision is no longer in its history,
   * another StorageError otherwise. Nothing follows.
   */
  onCancel(err: StorageError): void;
}

export interface EtcdWatch {
  /** Every change at or below this revision has been delivered (the start revision − 1 at first). */
  readonly revision: number;
  /** Stops the watch at once (without waiting for etcd); no handler is called afterwards. */
  cancel(): Promise<void>;
}

/**
 * Watches `prefix` for changes from `fromRevision` on, exactly once and in revision order for as
 * long as etcd keeps the history, however often the stream breaks. See `followWatcher`.
 *
 * With `withPreviousValues` (the default) each event carries the value it replaced. A watcher that
 * holds every current value itself (the watch cache) turns it off: for each event and watcher etcd
 * then spares a read of the key at the revision before, and the stream carries half the bytes.
 */
export function watchEtcd(client: Etcd3, prefix: string, fromRevision: number, handlers: EtcdWatchHandlers, withPreviousValues = true): EtcdWatch {
  const builder = client.watch().prefix(prefix).startRevision(String(fromRevision));
  const watcher = (withPreviousValues ? builder.withPreviousKV() : builder).watcher();
  return followWatcher(client, prefix, watcher, fromRevision, handlers);
}

/**
 * Drives an etcd3 Watcher built for `prefix` from `fromRevision` (watchEtcd builds it; tests hand
 * in their own). The etcd3 client re-attaches a broken stream by itself, but from the revision after
 * the last response *header*, which is etcd's current revision rather than the last delivered
 * event's: a created response and every batch of a catch-up carry it, so a stream broken before
 * the catch-up ended would skip events, and a member that is behind would move it backwards.
 * Hence the contract enforced here:
 * - every (re)attach asks for the revision after the last delivered one;
 * - an event at or below the last delivered revision (a re-delivery) is dropped.
 */
export function followWatcher(client: Etcd3, prefix: string, watcher: Watcher, fromRevision: number, handlers: EtcdWatchHandlers): EtcdWatch {
  let revision = fromRevision - 1;
  /** No more events: etcd cancelled the watch, or the caller did. */
  let ended = false;
  let released = false;
  // 'connecting' is emitted right before the create request (this very object) is sent.
  watcher.on('connecting', () => {
    watcher.request.start_revision = String(revision + 1);
  });
  watcher.on('data', (res: IWatchResponse) => {
    if (ended) return;
    const fresh = res.events.filter((e) => Number(e.kv.mod_revision) > revision);
    if (!fresh.length) return;
    for (const e of fresh) revision = Math.max(revision, Number(e.kv.mod_revision));
    handlers.onEvents(fresh);
  });
  watcher.on('error', (err) => {
    if (ended) return;
    ended = true;
    void cancellation(client, prefix, revision + 1, err).then((classified) => {
      if (!released) handlers.onCancel(classified);
    });
  });
  return {
    get revision() {
      return revision;
    },
    // etcd's acknowledgement is not awaited: a partitioned etcd never sends it, and shutdown
    // must not wait for the network to heal.
    async cancel() {
      released = true;
      if (ended) return;
      ended = true;
      // A failure means the stream is gone already: nothing to release.
      watcher.cancel().catch(() => undefined);
    },
  };
}

/**
 * Why etcd cancelled a watch whose next revision is `next`. etcd reports compaction only as an
 * anonymous cancellation (the client drops its compact_revision), so ask etcd whether `next` is
 * still in its history.
 */
async function cancellation(client: Etcd3, prefix: string, next: number, err: Error): Promise<StorageError> {
  const problem = await revisionProblem(client, prefix, next);
  if (problem) return problem;
  return new StorageError('Internal', prefix, err.message);
}

/** A StorageError when `revision` cannot be watched from (compacted, or etcd unreachable); undefined when it can. */
async function revisionProblem(client: Etcd3, prefix: string, revision: number): Promise<StorageError | undefined> {
  try {
    await client.kv.range({ key: Buffer.from(prefix), revision, count_only: true });
    return undefined;
  } catch (err) {
    const classified = classifyEtcdError(err, prefix);
    // A revision in the future is fine to watch from: etcd waits for it.
    return classified.code === 'FutureRevision' ? undefined : classified;
  }
}

/**
 * Starts watching `prefix` for changes from `fromRevision` on, decoded, with watchEtcd's
 * guarantees. Throws StorageError Compacted when that revision is no longer in etcd's history.
 */
export async function watchPrefix(client: Etcd3, prefix: string, fromRevision: number, handlers: StorageWatchHandlers): Promise<StorageWatch> {
  const problem = await revisionProblem(client, prefix, fromRevision);
  if (problem) throw problem;
  return watchDecoded(prefix, handlers, async ({ onChanges, onError }) => {
    const watch = watchEtcd(client, prefix, fromRevision, { onEvents: (events) => onChanges(toStoredChanges(events)), onCancel: onError });
    return { cancel: () => watch.cancel() };
  });
}
