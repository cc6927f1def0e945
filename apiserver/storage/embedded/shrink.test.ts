/**
 * The embedded store copying itself into a smaller file (shrink): a file mostly of pages that
 * compaction freed is replaced by a compacting copy holding exactly the same store (objects,
 * revisions, what comes next), and a file close to its live data is left alone; at start-up, after
 * a compaction, and while writes, reads and watches go on, none of which notices it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KubeObject } from '../../../shared/api/types.ts';
import type { StoredChange } from '../changes.ts';
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
      const shrunk = await store.shrink({ floorBytes: 0 });
      assert.ok(shrunk, 'the file was copied');
      assert.equal(shrunk.fromBytes, before);
      assert.equal(shrunk.toBytes, store.sizeBytes());
      // The copy holds the pages in use and nothing else (their first and last page aside).
      assert.ok(shrunk.toBytes <= inUse + 2 * 16384, `file ${shrunk.toBytes} after the copy for ${inUse} bytes of pages in use`);
      assert.ok(shrunk.toBytes < before / 2, `file ${shrunk.toBytes} after the copy, ${before} before`);
      // The copy is the next generation; the first one's files are gone.
      assert.deepEqual(
        readdirSync(path).filter((name) => name.endsWith('.mdb') || name.startsWith('gen-')),
        ['gen-1'],
      );
      assert.equal(await store.shrink({ floorBytes: 0 }), undefined, 'a file that a copy would not make much smaller is left alone');
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

  it('follows a compaction that left the file mostly free pages', async () => {
    const store = new EmbeddedStore(join(dir, 'compacted'), '/registry', { floorBytes: 0 });
    try {
      for (let i = 0; i < 400; i++) await store.create(store.key('configmaps', 'ns', `cm-${i}`), configMap(`cm-${i}`, payload));
      const first = await store.compact(await store.currentRevision());
      assert.equal(first.shrunk, undefined, 'a file of live data only is left alone');
      for (let i = 20; i < 400; i++) await store.guaranteedUpdate(store.key('configmaps', 'ns', `cm-${i}`), () => ({ action: 'delete' }));
      const before = store.sizeBytes();
      const { shrunk } = await store.compact(await store.currentRevision());
      assert.ok(shrunk, 'the compaction was followed by a copy');
      assert.ok(shrunk.fromBytes >= before, 'the size after the compaction');
      assert.ok(shrunk.toBytes < before / 2 && shrunk.toBytes === store.sizeBytes(), `file ${shrunk.toBytes} after the copy, ${before} before`);
      assert.equal((await store.range(store.collectionPrefix('configmaps', 'ns'))).count, 20);
    } finally {
      await store.close();
    }
  });

  it('goes on serving writes, reads and watches while it copies itself, and misses none of them', async () => {
    const path = join(dir, 'online');
    let store = new EmbeddedStore(path);
    const prefix = store.collectionPrefix('configmaps', 'ns');
    const from = (await store.currentRevision()) + 1;
    const seen: StoredChange[] = [];
    const watch = await store.watchChanges(prefix, from, { onChanges: (changes) => seen.push(...changes), onError: (err) => assert.fail(err) });
    // Creates and updates one after another, in 8 lanes, while the store copies itself three
    // times; each acknowledged write is read back at once, from whichever file is current.
    const acknowledged = new Map<string, number>();
    let writing = true;
    const lane = async (n: number): Promise<void> => {
      for (let i = 0; writing; i++) {
        const key = store.key('configmaps', 'ns', `lane-${n}-${i % 50}`);
        const { revision } = await store.guaranteedUpdate(key, () => ({ action: 'put', object: configMap(`lane-${n}-${i % 50}`, `${i} ${payload}`) }));
        acknowledged.set(key, revision);
        assert.equal((await store.get(key))?.modRevision, revision, 'read back after its write');
      }
    };
    const lanes = Promise.all(Array.from({ length: 8 }, (_, n) => lane(n)));
    const shrinks = [];
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      shrinks.push(await store.shrink({ floorBytes: 0, force: true }));
    }
    writing = false;
    await lanes;
    assert.deepEqual(
      shrinks.map((shrunk) => shrunk !== undefined),
      [true, true, true],
    );
    assert.ok(
      existsSync(join(path, 'gen-3')) && !existsSync(join(path, 'gen-2')) && !existsSync(join(path, 'data.mdb')),
      'on the third generation, the others removed',
    );
    const last = await store.currentRevision();
    assert.ok(last - from > 300, `${last - from} writes during the copies`);
    await waitFor(() => seen.at(-1)?.revision === last);
    await watch.cancel();
    // The watch saw every revision once, in order, across the switches.
    assert.deepEqual(
      seen.map((change) => change.revision),
      Array.from({ length: last - from + 1 }, (_, i) => from + i),
    );
    for (const [key, revision] of acknowledged) assert.equal((await store.get(key))?.modRevision, revision, key);
    await store.close();

    store = new EmbeddedStore(path);
    try {
      assert.equal(await store.currentRevision(), last, 'a restart opens the current generation');
      for (const [key, revision] of acknowledged) assert.equal((await store.get(key))?.modRevision, revision, key);
      const next = await store.create(store.key('configmaps', 'ns', 'after'), configMap('after', '1'));
      assert.equal(next.modRevision, last + 1);
    } finally {
      await store.close();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 500) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
