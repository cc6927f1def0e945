/**
 * The embedded store for one test file (or suite): opened in a temp dir before its tests, closed
 * and removed after them. In-process tests that need real storage but not etcd itself use it, so
 * they run on a machine without etcd. Call at the top level or inside `describe`.
 */
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStore } from '../storage/embedded/store.ts';

/** Registers the before/after hooks; the returned getter is valid inside the tests. */
export function useEmbeddedStore(name: string): () => EmbeddedStore {
  let dir: string | undefined;
  let store: EmbeddedStore | undefined;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), `corral-${name}-`));
    store = new EmbeddedStore(join(dir, 'db'));
  });
  after(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!store) throw new Error('useEmbeddedStore: the store is only there while the tests run');
    return store;
  };
}
