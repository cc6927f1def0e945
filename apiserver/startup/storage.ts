/**
 * Start-up step "storage": the etcd client, the store over it, the watch cache (the replica's
 * in-memory copy of etcd, fed by one watch) and the coordinated compactor.
 */
import type { Logger } from 'pino';
import type { ApiServerConfig } from '../config.ts';
import { WatchCache } from '../storage/cache/watch-cache.ts';
import { etcdCacheFeed } from '../storage/etcd/cache-feed.ts';
import { Compactor } from '../storage/etcd/compactor.ts';
import { connectEtcd, EtcdStore } from '../storage/etcd/store.ts';

export interface Storage {
  etcd: EtcdStore;
  watchCache: WatchCache;
  /** Lists etcd into the cache, starts its watch and the compactor. */
  start(): Promise<void>;
  /** Stops the watch and the compactor and closes the client. */
  stop(): Promise<void>;
}

/** Builds storage without touching the network: nothing is read until start(). */
export function openStorage(config: ApiServerConfig, logger: Logger): Storage {
  const client = connectEtcd({ endpoints: config.etcdServers, requestTimeoutMs: config.etcdRequestTimeoutMs });
  const etcd = new EtcdStore(client, config.etcdPrefix);
  const watchCache = new WatchCache(etcdCacheFeed(client), config.etcdPrefix, (err) => logger.warn({ err }, 'watch cache re-initializing'));
  const compactor = new Compactor(client, `${config.etcdPrefix}/compact_rev_key`, {
    intervalMs: config.etcdCompactionIntervalMs,
    onCompacted: (revision) => logger.info({ revision }, 'compacted etcd history'),
    onError: (err) => logger.warn({ err }, 'etcd compaction failed'),
  });
  return {
    etcd,
    watchCache,
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
