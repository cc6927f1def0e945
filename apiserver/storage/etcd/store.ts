/**
 * Objects in etcd, one key per object: `<prefix>/<resource>/<namespace>/<name>` (cluster-scoped
 * kinds have no namespace segment), value = the object as JSON without metadata.resourceVersion.
 * An object's resourceVersion is its key's mod revision; a list's is the range's header revision.
 *
 * Contracts: create is a single txn guarded by ModRevision(key) = 0; updates and deletes are
 * compare-and-swap on the mod revision the caller last saw (guaranteedUpdate retries on a lost
 * race with the fresh value the failed txn returned, so each retry costs one round trip).
 * A write is sent again only when it never left (isUndelivered): once sent, a failure leaves its
 * outcome unknown and is the caller's (a 504). Reads are repeated on any Unavailable (readRetry).
 */
import { handleWhen, retry, type IBackoff } from 'cockatiel';
import { Etcd3, isRecoverableError, type IOptions } from 'etcd3';
import type { KubeObject } from '../../../shared/api/types.ts';
import { classifyEtcdError, StorageError } from './errors.ts';
import { EtcdKvClient } from './kv-client.ts';
import type { RangeResponse, TxnResponse } from './kv-messages.ts';
import { LeaseManager } from './leases.ts';
import { memberPolicy, undeliveredRetry } from './policies.ts';
import { watchPrefix, type StorageWatch, type StorageWatchHandlers } from './watch.ts';
import { timed } from '../request-timing.ts';
import type { Storage, StorageRequestObserver } from '../storage.ts';
import { decodeStoredTextsYielding, encodeStoredObjectYielding, type StoredText } from '../stored-value.ts';

export interface EtcdOptions {
  endpoints: string[];
  /** Deadline of one unary call to etcd, so that a dead leader cannot hang a request. */
  requestTimeoutMs?: number;
}

/** The HTTP/2 window, per stream and per connection, of the connections to etcd (see connectEtcd). */
const etcdFlowControlWindowBytes = 16 * 1024 * 1024;

/**
 * An etcd client: the etcd3 library's (leases, compaction, the migration tool), with the store's
 * reads, writes and watches (KV Range and Txn, Watch) on a lean client of their own (kv-client.ts,
 * watch.ts); closing it closes both.
 */
export class EtcdClient extends Etcd3 {
  constructor(
    options: IOptions,
    /** The store's KV calls and watch streams. */
    readonly kvCalls: EtcdKvClient,
  ) {
    super(options);
  }

  override close(): void {
    this.kvCalls.close();
    super.close();
  }
}

/** gRPC's message limits, for both clients: lists of thousands of 2 KiB objects exceed gRPC's 4 MiB default. */
const maxReceiveBytes = 512 * 1024 * 1024;
const maxSendBytes = 16 * 1024 * 1024;

export function connectEtcd(opts: EtcdOptions): EtcdClient {
  const timeoutMs = opts.requestTimeoutMs ?? 10_000;
  const kvCalls = new EtcdKvClient({
    endpoints: opts.endpoints,
    requestTimeoutMs: timeoutMs,
    windowBytes: etcdFlowControlWindowBytes,
    maxSendBytes,
    maxReceiveBytes,
  });
  return new EtcdClient(
    {
      hosts: opts.endpoints,
      grpcOptions: {
        'grpc.max_receive_message_length': maxReceiveBytes,
        'grpc.max_send_message_length': maxSendBytes,
        // The same windows as the store's own connections (kv-client.ts), where a watch busy with
        // events (every Lease renewal) shares one HTTP/2 connection with the calls: with HTTP/2's
        // 64 KiB windows it fills the connection's window whenever this process pauses to read it,
        // and the answers to calls then wait behind it. etcd's Go client (kube-apiserver's) grows
        // its windows to 16 MiB as it measures the connection; grpc-js takes them as fixed sizes.
        'grpc-node.flow_control_window': etcdFlowControlWindowBytes,
      },
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeoutMs }),
      dialTimeout: 5_000,
      faultHandling: {
        // policies.ts; etcd3's default lets a broken watch wait up to 30 s.
        host: memberPolicy,
        global: undeliveredRetry,
        watchBackoff: watchBackoff(50),
      },
    },
    kvCalls,
  );
}

/**
 * Delays between attempts to re-establish a broken watch made through etcd3's own watch API (tools
 * and tests; the store's watches back off in watch.ts, alike), doubling to at most 2 s. etcd3 asks
 * the backoff it is given for its next step before the first wait, so 50 ms makes 100 ms first.
 */
function watchBackoff(delayMs: number): IBackoff<unknown> {
  return { duration: delayMs, next: () => watchBackoff(Math.min(delayMs * 2, 2_000)) };
}

export interface StoredValue {
  object: KubeObject;
  modRevision: number;
  /**
   * The served form of this value, kept with it by the registry store that serves it first
   * (registry/store.ts `served`); storage never reads or sets it. A slot rather than a WeakMap
   * entry: the watch cache holds 75 s of values, and a WeakMap entry for each is an ephemeron that
   * every major GC marks in its pause.
   */
  served?: ServedForm;
}

/** A stored value as one registry store serves it. */
export interface ServedForm {
  /** The store it was made by and for. */
  readonly owner: object;
  /** The served object, never mutated. */
  readonly object: KubeObject;
  /** Its list item, made on the first list. */
  item?: KubeObject;
}

export interface RangeOptions {
  /** Read at this revision (0 or unset: newest). */
  revision?: number;
  /** Start at this key instead of the prefix start (continue tokens). */
  startKey?: string;
  limit?: number;
}

export interface RangeResult {
  values: StoredValue[];
  /** The revision the range was read at. */
  revision: number;
  /** More keys follow the last returned one. */
  more: boolean;
  /** Keys in the range from the start key at that revision, returned ones included. */
  count: number;
  lastKey: string | undefined;
}

const encoder = new TextEncoder();

/** The stored objects of `kvs`, decoded without holding the loop long; a value that is not an object (foreign or corrupt data) is a StorageError. */
async function decodeValues(kvs: readonly StoredText[]): Promise<StoredValue[]> {
  return (await decodeStoredTextsYielding(kvs)).map((entry) => entry.value);
}

/** The first key after every key starting with `prefix` (etcd's range_end for a prefix). */
export function prefixEnd(prefix: string): Buffer {
  const bytes = Buffer.from(encoder.encode(prefix));
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i]! < 0xff) {
      const end = bytes.subarray(0, i + 1);
      end[i] = bytes[i]! + 1;
      return Buffer.from(end);
    }
  }
  return Buffer.from([0]);
}

/** What a guaranteedUpdate callback decides for the current value. */
export type UpdateDecision = { action: 'put'; object: KubeObject } | { action: 'delete' } | { action: 'none'; object: KubeObject | null };

export interface UpdateResult {
  object: KubeObject | null;
  /** The revision of the write (or of the read, when nothing was written). */
  revision: number;
  created: boolean;
  deleted: boolean;
}

/** What an etcd call of the store did, for metrics: etcd_request_duration_seconds{operation,type}. */
export type EtcdRequestObserver = StorageRequestObserver;

/**
 * A read that failed recoverably (etcd unreachable, a connection reset, a leader change) is
 * repeated, on whichever host the client picks next, up to twice: reading again changes nothing.
 * Request faults are not recoverable (shieldRequestFaults).
 */
const readRetry = retry(handleWhen(isRecoverableError), { maxAttempts: 2 });

export class EtcdStore implements Storage {
  /** Told about every get, list, create, update and delete call; unset, timing costs nothing. */
  observer: EtcdRequestObserver | undefined;

  /** Leases of expiring objects (created on the first one). */
  private leaseManager: LeaseManager | undefined;

  constructor(
    readonly client: EtcdClient,
    readonly prefix: string,
  ) {}

  /** The lease a write attaches to: none without a TTL. */
  private async leaseFor(ttlSeconds: number | undefined, key: string): Promise<{ lease?: string }> {
    if (!ttlSeconds) return {};
    this.leaseManager ??= new LeaseManager(this.client);
    try {
      return { lease: await this.leaseManager.leaseFor(ttlSeconds) };
    } catch (err) {
      throw classifyEtcdError(err, key);
    }
  }

  private timed<T>(operation: Parameters<EtcdRequestObserver>[0], key: string, call: () => Promise<T>): Promise<T> {
    return timed(this.observer, operation, key, call);
  }

  key(resource: string, namespace: string | undefined, name: string): string {
    return namespace ? `${this.prefix}/${resource}/${namespace}/${name}` : `${this.prefix}/${resource}/${name}`;
  }

  /** The key prefix of a collection: every object of a resource, or of one namespace. */
  collectionPrefix(resource: string, namespace?: string): string {
    return namespace ? `${this.prefix}/${resource}/${namespace}/` : `${this.prefix}/${resource}/`;
  }

  /**
   * Stores a new object; StorageError Exists when the key is taken. Returns the object with its
   * resourceVersion. With `ttlSeconds` etcd deletes it that long (or up to a minute more) from now.
   */
  async create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredValue> {
    const k = Buffer.from(key);
    const lease = await this.leaseFor(ttlSeconds, key);
    const value = await encodeStoredObjectYielding(obj);
    let res: TxnResponse;
    try {
      res = await this.timed('create', key, () =>
        this.client.kvCalls.txn({
          compare: [{ key: k, modRevision: 0 }],
          success: [{ put: { key: k, value, ...lease } }],
        }),
      );
    } catch (err) {
      throw classifyEtcdError(err, key);
    }
    if (!res.succeeded) throw new StorageError('Exists', key, `key ${key} already exists`);
    const modRevision = res.revision;
    obj.metadata.resourceVersion = String(modRevision);
    return { object: obj, modRevision };
  }

  async get(key: string, revision?: number): Promise<StoredValue | null> {
    let res: RangeResponse;
    try {
      res = await this.timed('get', key, () =>
        readRetry.execute(() => this.client.kvCalls.range({ key: Buffer.from(key), ...(revision ? { revision } : {}) })),
      );
    } catch (err) {
      throw classifyEtcdError(err, key);
    }
    const [value] = await decodeValues(res.kvs.slice(0, 1));
    return value ?? null;
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    let res: RangeResponse;
    try {
      res = await this.timed('list', prefix, () =>
        readRetry.execute(() =>
          this.client.kvCalls.range({
            key: Buffer.from(opts.startKey ?? prefix),
            rangeEnd: prefixEnd(prefix),
            ...(opts.revision ? { revision: opts.revision } : {}),
            ...(opts.limit ? { limit: opts.limit } : {}),
          }),
        ),
      );
    } catch (err) {
      throw classifyEtcdError(err, prefix);
    }
    const values = await decodeValues(res.kvs);
    return { values, revision: res.revision, more: res.more, count: res.count, lastKey: res.kvs[res.kvs.length - 1]?.key };
  }

  /**
   * Reads the current value, asks `decide` what to do with it and writes that with a
   * compare-and-swap on the mod revision it saw; on a lost race, decides again on the fresh value.
   * `decide` may throw to abort (a StatusError passes through untouched).
   */
  async guaranteedUpdate(
    key: string,
    decide: (current: StoredValue | null) => UpdateDecision | Promise<UpdateDecision>,
    /**
     * A recent value (from the watch cache) to start from instead of reading etcd: if it is stale
     * the compare fails and the loop continues with the fresh value the txn returns, so it saves a
     * round trip whenever it is current and costs nothing otherwise.
     */
    cached?: StoredValue,
    /** Every put restarts the object's time to live (as create's). */
    ttlSeconds?: number,
  ): Promise<UpdateResult> {
    const k = Buffer.from(key);
    let current = cached ?? (await this.get(key));
    let fromCache = cached !== undefined;
    for (;;) {
      let decision: UpdateDecision;
      try {
        decision = await decide(current);
      } catch (err) {
        // A cached value may lag the client (a 409 on a resourceVersion it already saw, a 404 for
        // an object just created): decide again on etcd's value before answering.
        if (!fromCache) throw err;
        fromCache = false;
        current = await this.get(key);
        continue;
      }
      // A "nothing to do" on a cached value must hold for the current one too.
      if (decision.action === 'none' && fromCache) {
        fromCache = false;
        current = await this.get(key);
        continue;
      }
      fromCache = false;
      if (decision.action === 'none') {
        return { object: decision.object, revision: current?.modRevision ?? 0, created: false, deleted: false };
      }
      const expected = current?.modRevision ?? 0;
      const operation =
        decision.action === 'put'
          ? { put: { key: k, value: await encodeStoredObjectYielding(decision.object), ...(await this.leaseFor(ttlSeconds, key)) } }
          : { deleteRange: { key: k } };
      let res: TxnResponse;
      try {
        res = await this.timed(decision.action === 'put' ? 'update' : 'delete', key, () =>
          this.client.kvCalls.txn({
            compare: [{ key: k, modRevision: expected }],
            success: [operation],
            failure: [{ range: { key: k } }],
          }),
        );
      } catch (err) {
        throw classifyEtcdError(err, key);
      }
      if (res.succeeded) {
        const revision = res.revision;
        if (decision.action === 'delete') return { object: current?.object ?? null, revision, created: false, deleted: true };
        decision.object.metadata.resourceVersion = String(revision);
        return { object: decision.object, revision, created: current === null, deleted: false };
      }
      const answer = res.responses[0];
      const [fresh] = await decodeValues(answer && 'range' in answer ? answer.range.kvs.slice(0, 1) : []);
      current = fresh ?? null;
    }
  }

  /** See watchPrefix (watch.ts). */
  watch(prefix: string, fromRevision: number, handlers: StorageWatchHandlers): Promise<StorageWatch> {
    return watchPrefix(this.client, prefix, fromRevision, handlers);
  }

  /** The cluster's current revision (a cheap range on one key). */
  async currentRevision(): Promise<number> {
    try {
      const res = await readRetry.execute(() => this.client.kvCalls.range({ key: Buffer.from(`${this.prefix}/`), countOnly: true }));
      return res.revision;
    } catch (err) {
      throw classifyEtcdError(err, this.prefix);
    }
  }
}
