/**
 * What the generic store needs from storage: revisioned keys with etcd's semantics. EtcdStore is
 * the production implementation; testing/memory-etcd.ts is an in-memory one for in-process tests.
 *
 * Contracts every implementation keeps (they are etcd's):
 * - one revision counter for the whole key space, moved by one on every successful write; an
 *   object's resourceVersion is its key's mod revision; a range reports the current revision
 *   (etcd's header revision), whatever revision it read at;
 * - create succeeds only when the key is absent (StorageError Exists otherwise);
 * - guaranteedUpdate writes with a compare-and-swap on the mod revision it decided on, and decides
 *   again on the fresh value after a lost race;
 * - reading or watching below the compacted revision is StorageError Compacted, reading above the
 *   current one FutureRevision;
 * - a watch delivers every change after its start revision exactly once, in revision order.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import type { RangeOptions, RangeResult, StoredValue, UpdateDecision, UpdateResult } from './etcd/store.ts';
import type { StorageWatch, StorageWatchHandlers } from './etcd/watch.ts';

/**
 * What one request of a backend did, for its latency metric (etcd_request_duration_seconds, or
 * the embedded store's corral_embedded_storage_request_duration_seconds): the operation, the key
 * it was for, how long it took and whether it failed.
 */
export type StorageRequestObserver = (operation: 'get' | 'list' | 'create' | 'update' | 'delete', key: string, seconds: number, failed: boolean) => void;

export interface Storage {
  /** The key of one object: `<prefix>/<resource>/<namespace>/<name>`, without the namespace when unset. */
  key(resource: string, namespace: string | undefined, name: string): string;
  /** The key prefix of a collection: every object of a resource, or of one namespace. */
  collectionPrefix(resource: string, namespace?: string): string;
  /** Stores a new object (its resourceVersion set on return); Exists when the key is taken. */
  create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredValue>;
  /** The value of `key` now (or at `revision`); null when absent. */
  get(key: string, revision?: number): Promise<StoredValue | null>;
  /** The keys under `prefix`, in key order, from `startKey`, at most `limit`, at `revision`. */
  range(prefix: string, opts?: RangeOptions): Promise<RangeResult>;
  /** Compare-and-swap loop on `key`: see EtcdStore.guaranteedUpdate. */
  guaranteedUpdate(
    key: string,
    decide: (current: StoredValue | null) => UpdateDecision | Promise<UpdateDecision>,
    cached?: StoredValue,
    ttlSeconds?: number,
  ): Promise<UpdateResult>;
  /** The current revision of the whole key space. */
  currentRevision(): Promise<number>;
  /**
   * Every change under `prefix` from `fromRevision` on; throws StorageError Compacted when that
   * revision is no longer in the history.
   */
  watch(prefix: string, fromRevision: number, handlers: StorageWatchHandlers): Promise<StorageWatch>;
}
