/**
 * The embedded store (`<data-dir>/db`) as either end of a migration. Both ends take the store's
 * lock (embedded/lock.ts) for as long as the copy runs: a data dir an API server owns is refused,
 * and no API server can start on it halfway through.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { embeddedStoreExists } from '../embedded/generations.ts';
import { lockEmbeddedStore } from '../embedded/lock.ts';
import { EmbeddedStore } from '../embedded/store.ts';
import type { MigrationSource, MigrationTarget } from './endpoint.ts';

/** Where a data dir keeps its embedded store, as the API server opens it (startup/storage.ts). */
export function embeddedStoreDir(dataDir: string): string {
  return resolve(dataDir, 'db');
}

/** The store in `dir`, locked for this process; `release` unlocks it once the store is closed. */
function openLocked(dir: string, prefix: string): { store: EmbeddedStore; release: () => void } {
  let release: () => void;
  try {
    release = lockEmbeddedStore(dir);
  } catch (err) {
    throw new Error(`cannot migrate while another process has the store: stop it first (${err instanceof Error ? err.message : String(err)})`);
  }
  try {
    return { store: new EmbeddedStore(dir, prefix), release };
  } catch (err) {
    release();
    throw err;
  }
}

export function openEmbeddedSource(dataDir: string, prefix: string): MigrationSource {
  const dir = embeddedStoreDir(dataDir);
  if (!embeddedStoreExists(dir)) {
    const earlier = existsSync(join(resolve(dataDir), 'etcd'))
      ? `; ${resolve(dataDir, 'etcd')} is the etcd of an earlier corral: run etcd on its data (--data-dir ${resolve(dataDir, 'etcd', 'data')}) and copy from it with --from-etcd-servers`
      : '';
    throw new Error(`there is no embedded store in ${resolve(dataDir)} (no ${join(dir, 'data.mdb')})${earlier}`);
  }
  const { store, release } = openLocked(dir, prefix);
  return {
    describe: `the embedded store in ${dir}`,
    exclusive: true,
    revision: () => store.currentRevision(),
    async *pages(root, size) {
      // The lock keeps every writer out but the store's own expiry, whose deletions are of keys
      // the copy drops anyway: reading at the newest revision page after page is consistent.
      let after: string | undefined;
      for (;;) {
        const page = store.liveRecords(root, after, size);
        if (page.length) yield page;
        if (page.length < size) return;
        after = page.at(-1)?.key;
      }
    },
    async close() {
      await store.close();
      release();
    },
  };
}

export function openEmbeddedTarget(dataDir: string, prefix: string): MigrationTarget {
  const dir = embeddedStoreDir(dataDir);
  const { store, release } = openLocked(dir, prefix);
  return {
    describe: `the embedded store in ${dir}`,
    storage: store,
    keyCount: async (root) => (await store.range(root, { limit: 1 })).count,
    async compact(revision) {
      if (revision > store.compactedTo()) await store.compact(revision);
    },
    async close() {
      await store.close();
      release();
    },
  };
}
