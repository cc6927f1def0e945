/**
 * Where the watch cache's copy comes from: one listing of everything under the registry root at
 * one revision, then one watch from the revision after it, both as stored (undecoded: the cache
 * decodes them, in slices, with what it already holds; see changes.ts). Each backend provides one
 * (etcd's in storage/etcd/cache-feed.ts, the embedded backend's beside it), so the cache itself
 * knows no backend.
 *
 * Contracts:
 * - `accept` says which keys the cache keeps (keys inside a resource); others are neither listed
 *   nor handed over, but a watch batch's `revision` still covers them, so the cache knows the
 *   newest revision of the whole store.
 * - A watch delivers every change after its start once, in order; `onCancel` means it ended for
 *   good (Compacted when the history it needed is gone).
 * - A change's previous value may be left to the cache ('held', changes.ts): it holds every value
 *   the listing and the changes before brought, so that is the one the change replaced.
 */
import type { StoredChange } from '../changes.ts';
import type { StorageError } from '../etcd/errors.ts';
import type { StoredText } from '../stored-value.ts';

export interface FeedListing {
  revision: number;
  texts: StoredText[];
}

export interface FeedHandlers {
  /** Changes in order; `revision` is the newest revision this batch brings the store to. */
  onChanges(changes: StoredChange[], revision: number): void;
  onCancel(err: StorageError): void;
}

export interface CacheFeed {
  list(root: string, accept: (key: string) => boolean): Promise<FeedListing>;
  watch(root: string, fromRevision: number, accept: (key: string) => boolean, handlers: FeedHandlers): { cancel(): Promise<void> };
}
