/**
 * Where the watch cache's copy comes from: one listing of everything under the registry root at
 * one revision, then one watch from the revision after it. Each backend provides one (etcd's in
 * storage/etcd/cache-feed.ts, the embedded backend's beside it), so the cache itself knows no
 * backend.
 *
 * Contracts:
 * - `keys.accept` says which keys the cache keeps (keys inside a resource); others are neither
 *   decoded nor returned, but a watch batch's `revision` still covers them, so the cache knows the
 *   newest revision of the whole store.
 * - Values that are not objects are reported to `keys.onBadValue` and skipped: one corrupt key must
 *   not stop the cache.
 * - A change's previous value is taken from `keys.known` when the cache holds it (changes.ts): the
 *   events the cache receives share their objects with it.
 * - Decoding may take turns of the event loop (a large value is parsed in pieces): batches still
 *   arrive in order, and `onCancel` after the last one.
 * - A watch delivers every change after its start once, in order; `onCancel` means it ended for
 *   good (Compacted when the history it needed is gone).
 */
import type { StorageError } from '../etcd/errors.ts';
import type { StoredValue } from '../etcd/store.ts';
import type { StorageEvent } from '../etcd/watch.ts';

/** Which keys the cache keeps, and what it already holds. */
export interface FeedKeys {
  accept: (key: string) => boolean;
  onBadValue: (err: unknown) => void;
  /** The value the cache holds for `key`, if any. */
  known: (key: string) => StoredValue | undefined;
}

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
  list(root: string, keys: FeedKeys): Promise<FeedListing>;
  watch(root: string, fromRevision: number, keys: FeedKeys, handlers: FeedHandlers): { cancel(): Promise<void> };
}
