/**
 * Start-up step "storage": the backend and what the API server keeps of it, the watch cache (the
 * replica's in-memory copy, fed by one watch) and the compactor.
 *
 * - etcd (`--etcd-servers`): the client, the store over it, and the compactor coordinated between
 *   replicas through etcd.
 * - embedded (no `--etcd-servers`): LMDB in `<data-dir>/db`, owned by this one process (a second
 *   API server on the same data dir stops at once: replicas need etcd), compacted locally.
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { ApiServerConfig } from '../config.ts';
import type { ApiServerMetrics } from '../server/metrics.ts';
import { WatchCache } from '../storage/cache/watch-cache.ts';
import { embeddedCacheFeed } from '../storage/embedded/cache-feed.ts';
import { EmbeddedCompactor } from '../storage/embedded/compactor.ts';
import { lockEmbeddedStore } from '../storage/embedded/lock.ts';
import { EmbeddedStore } from '../storage/embedded/store.ts';
import { etcdCacheFeed } from '../storage/etcd/cache-feed.ts';
import { Compactor } from '../storage/etcd/compactor.ts';
import { connectEtcd, EtcdStore } from '../storage/etcd/store.ts';
import type { Storage } from '../storage/storage.ts';

export interface OpenedStorage {
  backend: 'etcd' | 'embedded';
  storage: Storage;
  /**
   * Reports the backend in the metrics: etcd's calls in etcd_request_duration_seconds; the embedded
   * store's in corral_embedded_storage_request_duration_seconds, and its file in
   * apiserver_storage_size_bytes. `typeOf` names the group resource of a key (the `type` label).
   */
  instrument(metrics: ApiServerMetrics, typeOf: (key: string) => string): void;
  watchCache: WatchCache;
  /** Reads the backend's revision: the health check and ComponentStatus. */
  probe(): Promise<void>;
  /** Lists the backend into the cache, starts its watch and the compactor. */
  start(): Promise<void>;
  /** Stops the watch and the compactor and closes the backend. */
  stop(): Promise<void>;
}

function openEtcd(config: ApiServerConfig, logger: Logger): OpenedStorage {
  const client = connectEtcd({ endpoints: config.etcdServers, requestTimeoutMs: config.etcdRequestTimeoutMs });
  const etcd = new EtcdStore(client, config.etcdPrefix);
  const watchCache = new WatchCache(etcdCacheFeed(client), config.etcdPrefix, (err) => logger.warn({ err }, 'watch cache re-initializing'));
  const compactor = new Compactor(client, `${config.etcdPrefix}/compact_rev_key`, {
    intervalMs: config.etcdCompactionIntervalMs,
    onCompacted: (revision) => logger.info({ revision }, 'compacted etcd history'),
    onError: (err) => logger.warn({ err }, 'etcd compaction failed'),
  });
  return {
    backend: 'etcd',
    storage: etcd,
    instrument(metrics, typeOf) {
      etcd.observer = (operation, key, seconds, failed) => metrics.etcdRequest(operation, typeOf(key), seconds, failed);
    },
    watchCache,
    probe: async () => void (await etcd.currentRevision()),
    async start() {
      await watchCache.start();
      compactor.start();
    },
    async stop() {
      await compactor.stop();
      await watchCache.stop();
      client.close();
    },
  };
}

interface SharedStore {
  store: EmbeddedStore;
  users: number;
  release: () => void;
  /** The first start's preparation of the store (shrinkFile), which later starts wait for. */
  prepared?: Promise<void>;
}

/**
 * The embedded stores this process has open, by directory. API servers in one process (in-process
 * tests) on one data dir share its store, as replicas share an etcd: each one's watch cache sees
 * the others' writes, which two stores on one LMDB file would not deliver.
 */
const openStores = new Map<string, SharedStore>();

/** The store in `dir`, locked for this process (a second process stops: replicas need etcd); `close` lets it go. */
function acquireEmbeddedStore(dir: string, prefix: string): { store: EmbeddedStore; prepare: (logger: Logger) => Promise<void>; close: () => Promise<void> } {
  let shared = openStores.get(dir);
  if (shared && shared.store.prefix !== prefix) throw new Error(`the embedded store in ${dir} is open with the prefix ${shared.store.prefix}, not ${prefix}`);
  if (!shared) {
    const release = lockEmbeddedStore(dir);
    try {
      shared = { store: new EmbeddedStore(dir, prefix), users: 0, release };
    } catch (err) {
      release();
      throw err;
    }
    openStores.set(dir, shared);
  }
  const entry = shared;
  entry.users++;
  let closed = false;
  return {
    store: entry.store,
    prepare: (logger) =>
      (entry.prepared ??= entry.store.shrink().then((shrunk) => {
        if (shrunk) logger.info(shrunk, 'copied the embedded store into a smaller file');
      })),
    close: async () => {
      if (closed) return;
      closed = true;
      if (--entry.users > 0) return;
      openStores.delete(dir);
      await entry.store.close();
      entry.release();
    },
  };
}

function openEmbedded(config: ApiServerConfig, logger: Logger): OpenedStorage {
  const { store, prepare, close } = acquireEmbeddedStore(resolve(config.dataDir, 'db'), config.etcdPrefix);
  const watchCache = new WatchCache(embeddedCacheFeed(store), config.etcdPrefix, (err) => logger.warn({ err }, 'watch cache re-initializing'));
  const compactor = new EmbeddedCompactor(
    store,
    config.etcdCompactionIntervalMs,
    (revision, { shrunk }) => {
      logger.info({ revision }, 'compacted the embedded store');
      if (shrunk) logger.info(shrunk, 'copied the embedded store into a smaller file');
    },
    (err) => logger.warn({ err }, 'compacting the embedded store failed'),
  );
  return {
    backend: 'embedded',
    storage: store,
    instrument(metrics, typeOf) {
      store.observer = (operation, key, seconds) => metrics.embeddedStorageRequest(operation, typeOf(key), seconds);
      // A scrape after the store closed has no size to report, rather than an error.
      metrics.setStorageSizeSource(() => (store.isOpen() ? { cluster: 'embedded', bytes: store.sizeBytes() } : undefined));
    },
    watchCache,
    probe: async () => void (await store.currentRevision()),
    async start() {
      await prepare(logger);
      await watchCache.start();
      compactor.start();
    },
    async stop() {
      compactor.stop();
      await watchCache.stop();
      await close();
    },
  };
}

/** Opens the backend the flags name, without reading anything yet (etcd) or locking it for this process (embedded). */
export function openStorage(config: ApiServerConfig, logger: Logger): OpenedStorage {
  return config.etcdServers.length ? openEtcd(config, logger) : openEmbedded(config, logger);
}
