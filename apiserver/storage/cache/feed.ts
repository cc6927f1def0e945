/**
 * Where the watch cache's copy comes from: one listing of everything under the registry root at
 * one revision, then one watch from the revision after it. Each backend provides one (etcd's in
 * storage/etcd/cache-feed.ts, the embedded backend's beside it), so the cache itself knows no
 * backend.
 *
 * Contracts:
 * - `accept` says which keys the cache keeps (keys inside a resource); others are neither decoded
 *   nor returned, but a watch batch's `revision` still covers them, so the cache knows the newest
 *   revision of the whole store.
 * - Values that are not objects are reported to `onBadValue` and skipped: one corrupt key must not
 *   stop the cache.
 * - A watch delivers every change after its start once, in order; `onCancel` means it ended for
 *   good (Compacted when the history it needed is gone).
 */
import type { StorageError } from '../etcd/errors.ts';
import type { StoredValue } from '../etcd/store.ts';
import type { StorageEvent } from '../etcd/watch.ts';

export interface FeedListing {
  revision: number;
  entries: { key: string; value: StoredValue }[];
}

export interface FeedHandlers {
  /** Changes in order; `revision` is the newest revision this batch brings the store to. */
  onEvents(events: StorageEvent[], revision: number): void;
  onCancel(err: StorageError): void;
}

export interface CacheFeed {
  list(root: string, accept: (key: string) => boolean, onBadValue: (err: unknown) => void): Promise<FeedListing>;
  watch(
    root: string,
    fromRevision: number,
    accept: (key: string) => boolean,
    onBadValue: (err: unknown) => void,
    handlers: FeedHandlers,
  ): { cancel(): Promise<void> };
}
