/**
 * A watch on a key prefix from a revision, straight from etcd: every change after `fromRevision`,
 * in revision order, exactly once. The etcd3 client resumes a broken stream from the last revision
 * it delivered, so reconnects add no gap; a watch that etcd cancels (its start revision was
 * compacted) ends with a StorageError instead of going quiet.
 */
import type { Etcd3, IWatchResponse, Watcher } from 'etcd3';
import { decodeValue, type StoredValue } from './store.ts';
import { classifyEtcdError, StorageError } from './errors.ts';

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
 * The changes of one etcd watch response, in revision order, decoded. Keys `accept` refuses are
 * skipped undecoded; values that are not objects are reported to `onBadValue` and skipped, since
 * one corrupt key must not stop a stream.
 */
export function toStorageEvents(res: IWatchResponse, accept: (key: string) => boolean = () => true, onBadValue: (err: unknown) => void = () => {}): StorageEvent[] {
  const out: StorageEvent[] = [];
  for (const event of res.events) {
    const key = event.kv.key.toString('utf8');
    if (!accept(key)) continue;
    try {
      const decoded = toStorageEvent(event, key);
      if (decoded) out.push(decoded);
    } catch (err) {
      onBadValue(err);
    }
  }
  return out;
}

function toStorageEvent(event: IWatchResponse['events'][number], key: string): StorageEvent | null {
  const revision = Number(event.kv.mod_revision);
  const previous = event.prev_kv && event.prev_kv.value.length ? decodeValue(event.prev_kv) : null;
  if (event.type === 'Delete') {
    if (!previous) return null; // a delete of a value we never saw carries nothing to report
    // A deletion reports the last state at the deletion's revision.
    const last = { object: previous.object, modRevision: revision };
    last.object.metadata.resourceVersion = String(revision);
    return { type: 'delete', key, value: last, previous: last, revision };
  }
  return { type: 'put', key, value: decodeValue(event.kv), previous, revision };
}

/**
 * Starts watching `prefix` for changes after `fromRevision`. Throws StorageError Compacted when
 * that revision is no longer in etcd's history.
 */
export async function watchPrefix(client: Etcd3, prefix: string, fromRevision: number, handlers: StorageWatchHandlers): Promise<StorageWatch> {
  // etcd reports a compacted start revision only as an anonymous cancellation, so ask first.
  try {
    await client.kv.range({ key: Buffer.from(prefix), revision: fromRevision, count_only: true });
  } catch (err) {
    const classified = classifyEtcdError(err, prefix);
    // A revision in the future is fine to watch from: etcd waits for it.
    if (!/future revision/.test(classified.message)) throw classified;
  }
  let ended = false;
  const watcher: Watcher = client.watch().prefix(prefix).startRevision(String(fromRevision)).withPreviousKV().watcher();
  watcher.on('data', (res) => {
    if (ended) return;
    const events = toStorageEvents(res);
    if (events.length) handlers.onEvents(events);
  });
  watcher.on('error', (err) => {
    if (ended) return;
    ended = true;
    const message = err.message.startsWith('Watcher canceled') ? 'mvcc: required revision has been compacted' : err.message;
    handlers.onError(message.includes('compacted') ? new StorageError('Compacted', prefix, message) : classifyEtcdError(err, prefix));
  });
  return {
    async cancel() {
      if (ended) return;
      ended = true;
      try {
        await watcher.cancel();
      } catch {
        // The stream is gone already; nothing to release.
      }
    },
  };
}
