/** The watch cache over the embedded backend: its listing at start, then every change, in order. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { WatchCache, type CacheEvent } from '../cache/watch-cache.ts';
import { assertWritesSharePrevious, threeWrites } from '../cache/feed-checks.ts';
import { embeddedCacheFeed } from './cache-feed.ts';
import { EmbeddedStore } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'corral-embedded-cache-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the watch cache over the embedded backend', () => {
  it('lists what is stored, then follows every write', async () => {
    const store = new EmbeddedStore(join(dir, 'db'));
    const cm = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { v } });
    const a = await store.create(store.key('configmaps', 'ns', 'a'), cm('a', '1'));
    const cache = new WatchCache(embeddedCacheFeed(store), '/registry');
    try {
      await cache.start();
      const configMaps = cache.resource('configmaps');
      assert.equal(configMaps.get(store.key('configmaps', 'ns', 'a'))?.modRevision, a.modRevision);
      assert.equal(cache.revision, a.modRevision);

      const seen: CacheEvent[] = [];
      configMaps.subscribe(configMaps.prefix, cache.revision, { onEvent: (e) => seen.push(e), onClose: () => undefined });
      const b = await store.create(store.key('configmaps', 'ns', 'b'), cm('b', '1'));
      await store.guaranteedUpdate(store.key('configmaps', 'ns', 'a'), () => ({ action: 'delete' }));
      const last = await store.create(store.key('secrets', 'ns', 's'), { metadata: { name: 's', namespace: 'ns' } });
      assert.equal(await cache.waitFor(last.modRevision, 5000), true, 'the cache reaches the newest revision');
      assert.deepEqual(
        seen.map((e) => [e.type, e.key.slice(configMaps.prefix.length), e.revision]),
        [
          ['put', 'ns/b', b.modRevision],
          ['delete', 'ns/a', b.modRevision + 1],
        ],
      );
      assert.equal(configMaps.size, 1);
      assert.equal(cache.resource('secrets').size, 1);
    } finally {
      await cache.stop();
      await store.close();
    }
  });

  it("gives an update the object it holds as the previous value, and a large value's event in write order", async () => {
    const store = new EmbeddedStore(join(dir, 'shared-previous'));
    const cache = new WatchCache(embeddedCacheFeed(store), '/registry');
    const key = store.key('configmaps', 'ns', 'a');
    const cm = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data });
    try {
      await cache.start();
      const configMaps = cache.resource('configmaps');
      const seen: CacheEvent[] = [];
      configMaps.subscribe(configMaps.prefix, cache.revision, { onEvent: (e) => void seen.push(e), onClose: () => undefined });
      // Each write once the cache has the one before: its previous value can only be the cache's.
      for (const data of threeWrites()) {
        const written = await store.guaranteedUpdate(key, () => ({ action: 'put', object: cm(data) }));
        assert.equal(await cache.waitFor(written.revision, 5000), true);
      }
      assertWritesSharePrevious(seen);
    } finally {
      await cache.stop();
      await store.close();
    }
  });

  it('replays an update superseded since from its stored text, and the newest as the object the cache holds', async () => {
    const store = new EmbeddedStore(join(dir, 'superseded'));
    const cache = new WatchCache(embeddedCacheFeed(store), '/registry');
    const key = store.key('configmaps', 'ns', 'a');
    const cm = (v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', labels: { tier: 'x' } }, data: { v } });
    try {
      await cache.start();
      const configMaps = cache.resource('configmaps');
      const from = cache.revision;
      const seen: CacheEvent[] = [];
      configMaps.subscribe(configMaps.prefix, from, { onEvent: (e) => void seen.push(e), onClose: () => undefined });
      for (const v of ['1', '2']) {
        const written = await store.guaranteedUpdate(key, () => ({ action: 'put', object: cm(v) }));
        assert.equal(await cache.waitFor(written.revision, 5000), true);
      }
      const replayed: CacheEvent[] = [];
      configMaps.subscribe(configMaps.prefix, from, { onEvent: (e) => void replayed.push(e), onClose: () => undefined });
      const [first, second] = replayed;
      assert.deepEqual(first?.value.object, seen[0]?.value.object);
      assert.notEqual(first?.value, seen[0]?.value, 'the superseded version is decoded again from its text');
      assert.equal(second?.value, configMaps.get(key), 'the newest version is the object the cache holds');
      assert.deepEqual(second?.previous?.object, seen[0]?.value.object);
      assert.equal(second?.value.object.metadata.resourceVersion, String(second?.revision));
    } finally {
      await cache.stop();
      await store.close();
    }
  });
});
