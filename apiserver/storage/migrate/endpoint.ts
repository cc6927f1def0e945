/**
 * The two ends of a migration (`corral migrate`): a source read page by page, each key with its
 * stored text and expiry, and a target written through the Storage interface, as the API server
 * writes it. embedded.ts and etcd.ts open each end on their backend.
 */
import type { Storage } from '../storage.ts';

/** One key of the source: the object's stored text (storage/stored-value.ts) and when it expires. */
export interface SourceEntry {
  key: string;
  value: string;
  /** Milliseconds since the epoch at which the key expires at the latest (an Event's TTL); 0 for never. */
  expiresAt: number;
}

export interface MigrationSource {
  /** What it is, for messages: `the embedded store in /x/db`, `etcd http://…`. */
  readonly describe: string;
  /**
   * Whether nothing else can write to it while it is open (the embedded store's lock). etcd cannot
   * be locked: a copy from it checks afterwards whether its revision moved.
   */
  readonly exclusive: boolean;
  /** Its current revision (etcd's header revision). */
  revision(): Promise<number>;
  /**
   * The keys under `root`, in key order, `size` a page, all read at `revision` (an exclusive
   * source reads its newest: nothing but its own expiry changes it meanwhile).
   */
  pages(root: string, size: number, revision: number): AsyncIterable<SourceEntry[]>;
  close(): Promise<void>;
}

export interface MigrationTarget {
  readonly describe: string;
  /** Where the objects are written: create, or with --force guaranteedUpdate. */
  readonly storage: Storage;
  /** The keys under `root` now, whatever their values. */
  keyCount(root: string): Promise<number>;
  /** Drops the history below `revision` (nothing when it is compacted there already). */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}
