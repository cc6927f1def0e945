/**
 * The embedded store's file shrinking at start-up (shrinkFile): a file mostly of pages that
 * compaction freed is replaced by a compacting copy holding exactly the same store (objects,
 * revisions, what comes next), and a file close to its live data is left alone.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KubeObject } from '../../../shared/api/types.ts';
import { EmbeddedStore } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'corral-embedded-shrink-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const configMap = (name: string, v: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data: { v },
});
const payload = 'x'.repeat(4096);

describe('shrinking the embedded store’s file', () => {
  it('copies a file mostly of freed pages into one holding the same store, and then leaves it alone', async () => {
    const path = join(dir, 'db');
    let store = new EmbeddedStore(path);
    // 800 objects of 4 KiB, then all but 50 deleted and the history compacted away.
    for (let i = 0; i < 800; i++) await store.create(store.key('configmaps', 'ns', `cm-${i}`), configMap(`cm-${i}`, payload));
    for (let i = 50; i < 800; i++) await store.guaranteedUpdate(store.key('configmaps', 'ns', `cm-${i}`), () => ({ action: 'delete' }));
    const kept = (await store.range(store.collectionPrefix('configmaps', 'ns'))).values.map((v) => [v.object.metadata.name, v.modRevision]);
    assert.equal(kept.length, 50);
    await store.compact(await store.currentRevision());
    const revision = await store.currentRevision();
    const live = store.liveBytes();
    const before = store.sizeBytes();
    const inUse = store.bytesInUse();
    assert.ok(before > 2 * live, `file ${before} for ${live} live bytes`);
    await store.close();

    store = new EmbeddedStore(path);
    try {
      const shrunk = await store.shrinkFile(0);
      assert.ok(shrunk, 'the file was copied');
      assert.equal(shrunk.fromBytes, before);
      assert.equal(shrunk.toBytes, store.sizeBytes());
      // The copy holds the pages in use and nothing else (their first and last page aside).
      assert.ok(shrunk.toBytes <= inUse + 2 * 16384, `file ${shrunk.toBytes} after the copy for ${inUse} bytes of pages in use`);
      assert.ok(shrunk.toBytes < before / 2, `file ${shrunk.toBytes} after the copy, ${before} before`);
      assert.equal(await store.shrinkFile(0), undefined, 'a file that a copy would not make much smaller is left alone');
      // The same store: every object at its revision, the same current revision, writes continue after it.
      assert.equal(await store.currentRevision(), revision);
      assert.equal(store.liveBytes(), live);
      const listed = await store.range(store.collectionPrefix('configmaps', 'ns'));
      assert.deepEqual(
        listed.values.map((v) => [v.object.metadata.name, v.modRevision]),
        kept,
      );
      const next = await store.create(store.key('configmaps', 'ns', 'after'), configMap('after', '1'));
      assert.equal(next.modRevision, revision + 1);
    } finally {
      await store.close();
    }
    store = new EmbeddedStore(path);
    try {
      assert.equal((await store.get(store.key('configmaps', 'ns', 'after')))?.modRevision, revision + 1, 'the copy is the store after a restart');
    } finally {
      await store.close();
    }
  });
});
