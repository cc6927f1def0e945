/**
 * Start-up step "storage": the backend and what the API server keeps of it, the watch cache (the
 * replica's in-memory copy, fed by one watch) and the compactor.
 *
 * - etcd (`--etcd-servers`): the client, the store over it, and the compactor coordinated between
 *   replicas through etcd.
 * - embedded (no `--etcd-servers`): LMDB in `<data-dir>/db`, owned by this one process (a second
 *   API server on the same data dir stops at once: replicas need etcd), compacted locally.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ApiServerConfig } from '../config.ts';
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
  /** Set for etcd: its calls are timed for etcd_request_duration_seconds. */
  etcd: EtcdStore | undefined;
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
    etcd,
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

function openEmbedded(config: ApiServerConfig, logger: Logger): OpenedStorage {
  const dir = join(config.dataDir, 'db');
  const release = lockEmbeddedStore(dir);
  let store: EmbeddedStore;
  try {
    store = new EmbeddedStore(dir, config.etcdPrefix);
  } catch (err) {
    release();
    throw err;
  }
  const watchCache = new WatchCache(embeddedCacheFeed(store), config.etcdPrefix, (err) => logger.warn({ err }, 'watch cache re-initializing'));
  const compactor = new EmbeddedCompactor(
    store,
    config.etcdCompactionIntervalMs,
    (revision) => logger.info({ revision }, 'compacted the embedded store'),
    (err) => logger.warn({ err }, 'compacting the embedded store failed'),
  );
  return {
    backend: 'embedded',
    storage: store,
    etcd: undefined,
    watchCache,
    probe: async () => void (await store.currentRevision()),
    async start() {
      await watchCache.start();
      compactor.start();
    },
    async stop() {
      compactor.stop();
      await watchCache.stop();
      await store.close();
      release();
    },
  };
}

/** Opens the backend the flags name, without reading anything yet (etcd) or locking it for this process (embedded). */
export function openStorage(config: ApiServerConfig, logger: Logger): OpenedStorage {
  return config.etcdServers.length ? openEtcd(config, logger) : openEmbedded(config, logger);
}
