/**
 * Watches on a key prefix from a revision, straight from etcd: every change after the start
 * revision, in revision order, exactly once, across broken streams (etcd restarts, reconnects,
 * another member after a leader change). A watch that etcd cancels (its next revision was
 * compacted) ends with a StorageError instead of going quiet.
 *
 * Each watch is one gRPC stream of its own (kv-client.ts `stream`, messages in watch-messages.ts),
 * opened with etcd's require-leader metadata, as kube-apiserver's watches are: a member that lost
 * its leader ends the stream (after three election timeouts) instead of leaving the watch quiet
 * behind a partition, and refuses a new one, so the watch moves on to a member that has one.
 */
import { ClientClosedError } from 'etcd3';
import { prefixEnd, type EtcdClient, type StoredValue } from './store.ts';
import { classifyEtcdError, compactedError, StorageError } from './errors.ts';
import { decodeWatchResponse, encodeWatchCreate, type WatchResponse } from './watch-messages.ts';
import type { GrpcStream } from './kv-client.ts';
import { watchDecoded, type StoredChange } from '../changes.ts';

export interface StorageEvent {
  type: 'put' | 'delete';
  key: string;
  /** The new value; for a delete, the last value with the deletion's revision. */
  value: StoredValue;
  /** The value before this change, when there was one. */
  previous: StoredValue | null;
  revision: number;
  /**
   * A put's value as stored text, when the backend read it as text: the watch cache's history
   * keeps this instead of the object once a later change of the key supersedes it.
   */
  text?: string;
}

export interface StorageWatch {
  cancel(): Promise<void>;
}

export interface StorageWatchHandlers {
  onEvents(events: StorageEvent[]): void;
  /** The watch ended for good; no more events follow. */
  onError(err: StorageError): void;
}

export interface EtcdWatchHandlers {
  /**
   * The changes of one response that follow the last delivered revision, in order; never empty.
   * Without previous values (`withPreviousValues` false) each change's `previous` is null.
   */
  onChanges(changes: StoredChange[]): void;
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

/** The gRPC method of etcd's watches. */
const watchPath = '/etcdserverpb.Watch/Watch';

/** etcd's require-leader metadata (rpctypes.MetadataRequireLeaderKey, MetadataHasLeader). */
const requireLeader = { hasleader: 'true' };

/** The first wait before a broken stream is opened again, doubled after each failure up to `maxRetryDelayMs`. */
const firstRetryDelayMs = 100;
const maxRetryDelayMs = 2_000;

/**
 * Watches `prefix` for changes from `fromRevision` on, exactly once and in revision order for as
 * long as etcd keeps the history, however often the stream breaks:
 * - every stream (the first, and each after a break, on the next member) asks for the revision
 *   after the last delivered one;
 * - a change at or below the last delivered revision (a member behind the last one, a re-delivery)
 *   is dropped;
 * - a broken stream is opened again after 100 ms, doubling to 2 s, back to 100 ms once one is
 *   established.
 *
 * With `withPreviousValues` (the default) each change carries the value it replaced. A watcher that
 * holds every current value itself (the watch cache) turns it off: for each event and watcher etcd
 * then spares a read of the key at the revision before, and the stream carries half the bytes.
 */
export function watchEtcd(client: EtcdClient, prefix: string, fromRevision: number, handlers: EtcdWatchHandlers, withPreviousValues = true): EtcdWatch {
  const follower = new WatchFollower(fromRevision, handlers);
  let stream: GrpcStream | undefined;
  let retry: NodeJS.Timeout | undefined;
  let retryDelayMs = firstRetryDelayMs;
  const open = (): void => {
    retry = undefined;
    if (follower.ended) return;
    const create = encodeWatchCreate({
      key: Buffer.from(prefix),
      rangeEnd: prefixEnd(prefix),
      startRevision: follower.revision + 1,
      prevKv: withPreviousValues,
    });
    stream = client.kvCalls.stream(watchPath, create, requireLeader, {
      onMessage: (message) => {
        let res: WatchResponse;
        try {
          res = decodeWatchResponse(message);
        } catch (err) {
          // Bytes that are no WatchResponse: start over on a fresh stream, as after a broken one.
          stream?.close();
          broken(err);
          return;
        }
        if (res.created) retryDelayMs = firstRetryDelayMs;
        if (res.canceled) {
          stream?.close();
          void cancellation(client, prefix, follower.revision + 1, res).then((err) => follower.cancel(err));
          return;
        }
        follower.deliver(res.changes);
      },
      onEnd: broken,
    });
  };
  const broken = (err: unknown): void => {
    if (follower.ended || retry) return;
    // The client was closed under the watch (its owner is shutting down): nothing to resume on.
    if (err instanceof ClientClosedError) {
      follower.cancel(new StorageError('Unavailable', prefix, err.message));
      return;
    }
    retry = setTimeout(open, retryDelayMs);
    retryDelayMs = Math.min(maxRetryDelayMs, retryDelayMs * 2);
  };
  open();
  return {
    get revision() {
      return follower.revision;
    },
    // etcd's acknowledgement is not awaited: a partitioned etcd never sends it, and shutdown
    // must not wait for the network to heal.
    async cancel() {
      follower.release();
      clearTimeout(retry);
      stream?.close();
    },
  };
}

/**
 * A watch's bookkeeping, apart from its streams: the last delivered revision, the changes that
 * follow it, and the end, reported once and never after the watch was released.
 */
export class WatchFollower {
  /** Every change at or below this revision has been delivered. */
  revision: number;
  /** No more changes: etcd cancelled the watch, or its owner released it. */
  ended = false;
  private released = false;

  constructor(
    fromRevision: number,
    private readonly handlers: EtcdWatchHandlers,
  ) {
    this.revision = fromRevision - 1;
  }

  /** Hands on the changes after the last delivered revision (in place: the rest are dropped). */
  deliver(changes: StoredChange[]): void {
    if (this.ended) return;
    let fresh = 0;
    for (const change of changes) {
      if (change.revision > this.revision) {
        changes[fresh++] = change;
        this.revision = change.revision;
      }
    }
    if (!fresh) return;
    changes.length = fresh;
    this.handlers.onChanges(changes);
  }

  /** etcd ended the watch for good. */
  cancel(err: StorageError): void {
    if (this.released) return;
    this.ended = true;
    this.handlers.onCancel(err);
  }

  /** Its owner let it go: nothing more is reported. */
  release(): void {
    this.released = true;
    this.ended = true;
  }
}

/**
 * Why etcd cancelled a watch whose next revision is `next`: Compacted when it said so (its
 * compact_revision) or when `next` is no longer in its history; its own reason otherwise.
 */
async function cancellation(client: EtcdClient, prefix: string, next: number, res: WatchResponse): Promise<StorageError> {
  if (res.compactRevision > 0) return compactedError(prefix);
  const problem = await revisionProblem(client, prefix, next);
  if (problem) return problem;
  return new StorageError('Internal', prefix, res.cancelReason || 'etcd cancelled the watch');
}

/** A StorageError when `revision` cannot be watched from (compacted, or etcd unreachable); undefined when it can. */
async function revisionProblem(client: EtcdClient, prefix: string, revision: number): Promise<StorageError | undefined> {
  try {
    await client.kvCalls.range({ key: Buffer.from(prefix), revision, countOnly: true });
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
export async function watchPrefix(client: EtcdClient, prefix: string, fromRevision: number, handlers: StorageWatchHandlers): Promise<StorageWatch> {
  const problem = await revisionProblem(client, prefix, fromRevision);
  if (problem) throw problem;
  return watchDecoded(prefix, handlers, async ({ onChanges, onError }) => {
    const watch = watchEtcd(client, prefix, fromRevision, { onChanges, onCancel: onError });
    return { cancel: () => watch.cancel() };
  });
}
