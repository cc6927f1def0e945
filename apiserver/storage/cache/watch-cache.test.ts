import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnlessEtcd } from '../../../shared/etcd/availability.ts';
import { useProxiedEtcd } from '../../testing/etcd.ts';
import { waitFor } from '../../testing/wait-for.ts';
import { ResourceCache, WatchCache, type CacheEvent } from './watch-cache.ts';
import { etcdCacheFeed } from '../etcd/cache-feed.ts';
import { assertWritesSharePrevious, threeWrites } from './feed-checks.ts';
import { prefixEnd, type StoredValue } from '../etcd/store.ts';

const prefix = '/registry/configmaps/';

function value(name: string, revision: number): StoredValue {
  return { object: { metadata: { name, namespace: 'ns', resourceVersion: String(revision) } }, modRevision: revision };
}

function put(name: string, revision: number, ns = 'ns'): CacheEvent {
  return { type: 'put', key: `${prefix}${ns}/${name}`, value: value(name, revision), previous: null, revision };
}

function del(name: string, revision: number): CacheEvent {
  const last = value(name, revision);
  return { type: 'delete', key: `${prefix}ns/${name}`, value: last, previous: last, revision };
}

describe('ResourceCache', () => {
  it('keeps objects in key order and forgets deleted ones', () => {
    const cache = new ResourceCache(prefix);
    cache.reset([], [], 1);
    cache.apply(put('b', 2));
    cache.apply(put('a', 3));
    cache.apply(put('c', 4, 'other'));
    cache.apply(del('b', 5));
    assert.deepEqual(
      cache.list(prefix).map((v) => v.object.metadata.name),
      ['a', 'c'],
    );
    assert.deepEqual(
      cache.list(`${prefix}ns/`).map((v) => v.object.metadata.name),
      ['a'],
    );
    assert.equal(cache.get(`${prefix}ns/b`), undefined);
  });

  it('replays history after a revision, then streams, each event once and in order', () => {
    const cache = new ResourceCache(prefix);
    cache.reset([], [], 1);
    for (let r = 2; r <= 6; r++) cache.apply(put(`o${r}`, r));
    const seen: number[] = [];
    const sub = cache.subscribe(prefix, 3, { onEvent: (e) => seen.push(e.revision), onClose: () => {} });
    cache.apply(put('late', 7));
    sub.cancel();
    cache.apply(put('after-cancel', 8));
    assert.deepEqual(seen, [4, 5, 6, 7]);
  });

  it('filters by key prefix (namespace)', () => {
    const cache = new ResourceCache(prefix);
    cache.reset([], [], 1);
    const seen: string[] = [];
    cache.subscribe(`${prefix}ns/`, 1, { onEvent: (e) => seen.push(String(e.value.object.metadata.name)), onClose: () => {} });
    cache.apply(put('in', 2));
    cache.apply(put('out', 3, 'other'));
    assert.deepEqual(seen, ['in']);
  });

  it('knows which revisions it can resume from once history is trimmed', () => {
    const cache = new ResourceCache(prefix, { upperBound: 3 });
    cache.reset([], [], 10);
    assert.equal(cache.canResumeFrom(10), true);
    assert.equal(cache.canResumeFrom(9), false);
    for (let r = 11; r <= 15; r++) cache.apply(put(`o${r}`, r));
    // History holds 13..15: resuming after 12 replays all of them, after 11 would miss 12.
    assert.equal(cache.canResumeFrom(12), true);
    assert.equal(cache.canResumeFrom(11), false);
  });

  it('closes subscribers when it is re-initialized', () => {
    const cache = new ResourceCache(prefix);
    cache.reset([], [], 1);
    let closed = '';
    cache.subscribe(prefix, 1, { onEvent: () => {}, onClose: (reason) => (closed = reason) });
    cache.reset([], [], 20);
    assert.match(closed, /re-initialized/);
    assert.equal(cache.subscriberCount, 0);
  });

  describe('dispatching to more subscribers than one turn serves', () => {
    /** Lets the event loop take `n` turns (a timer could fire before the turns a dispatch is waiting for). */
    async function turns(n: number): Promise<void> {
      for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
    }

    /** A cache that serves 2 subscribers per turn of the event loop, and `n` subscribers from revision 1. */
    function crowded(n: number): { cache: ResourceCache; seen: number[][] } {
      const cache = new ResourceCache(prefix, {}, 2);
      cache.reset([], [], 1);
      const seen = Array.from({ length: n }, () => [] as number[]);
      seen.forEach((events) => cache.subscribe(prefix, 1, { onEvent: (e) => events.push(e.revision), onClose: () => {} }));
      return { cache, seen };
    }

    it('serves the first subscribers at once, the others in later turns, each event once and in order', async () => {
      const { cache, seen } = crowded(7);
      cache.apply(put('a', 2));
      assert.deepEqual(
        seen.map((s) => s.length),
        [1, 1, 0, 0, 0, 0, 0],
      );
      // Applied while the first event is still on its way: queued behind it for everyone.
      cache.apply(put('b', 3));
      cache.apply(put('c', 4));
      assert.deepEqual(seen[0], [2]);
      await turns(20);
      for (const events of seen) assert.deepEqual(events, [2, 3, 4]);
      cache.apply(put('d', 5));
      await turns(20);
      for (const events of seen) assert.deepEqual(events, [2, 3, 4, 5]);
    });

    it('a subscriber joining meanwhile gets the events from history, none of them again', async () => {
      const { cache, seen } = crowded(5);
      cache.apply(put('a', 2));
      cache.apply(put('b', 3));
      const late: number[] = [];
      cache.subscribe(prefix, 1, { onEvent: (e) => late.push(e.revision), onClose: () => {} });
      assert.deepEqual(late, [2, 3]);
      const current: number[] = [];
      cache.subscribe(prefix, 3, { onEvent: (e) => current.push(e.revision), onClose: () => {} });
      cache.apply(put('c', 4));
      await turns(20);
      assert.deepEqual(late, [2, 3, 4]);
      assert.deepEqual(current, [4]);
      for (const events of seen) assert.deepEqual(events, [2, 3, 4]);
    });

    it('nothing reaches a subscriber after it cancelled or the cache was re-initialized, though the dispatch was under way', async () => {
      const cache = new ResourceCache(prefix, {}, 1);
      cache.reset([], [], 1);
      const seen: number[][] = [[], [], [], []];
      const closed: string[] = [];
      const subs = seen.map((events, i) => cache.subscribe(prefix, 1, { onEvent: (e) => events.push(e.revision), onClose: () => closed.push(`sub ${i}`) }));
      cache.apply(put('a', 2));
      subs[2]!.cancel();
      await turns(20);
      assert.deepEqual(seen, [[2], [2], [], [2]]);
      cache.apply(put('b', 3));
      cache.reset([], [], 10);
      await turns(20);
      assert.deepEqual(seen, [[2, 3], [2], [], [2]]);
      assert.deepEqual(closed, ['sub 0', 'sub 1', 'sub 3']);
      cache.apply(put('c', 11));
      await turns(20);
      assert.deepEqual(seen, [[2, 3], [2], [], [2]]);
    });

    it('a subscriber that fails on an event is closed; the others still get it', async () => {
      const { cache, seen } = crowded(3);
      let reason = '';
      cache.subscribe(prefix, 1, {
        onEvent: () => {
          throw new Error('cannot encode');
        },
        onClose: (r) => (reason = r),
      });
      cache.apply(put('a', 2));
      await turns(20);
      assert.match(reason, /revision 2: cannot encode/);
      assert.equal(cache.subscriberCount, 3);
      for (const events of seen) assert.deepEqual(events, [2]);
    });
  });
});

/**
 * The etcd side, against a real etcd reached through a TCP proxy the tests cut and pause. Waits
 * have generous deadlines that only turn a hang into a failure.
 */
describe('WatchCache across etcd connection faults', { skip: skipUnlessEtcd() }, () => {
  const WAIT_MS = 60_000;
  const env = useProxiedEtcd('watch-cache');

  const key = (ns: string, name: string): string => `/registry/configmaps/${ns}/${name}`;
  /** Stores a configmap as the API server would; returns its revision. */
  const putConfigMap = async (ns: string, name: string, data: Record<string, string>): Promise<number> => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data };
    return Number((await env().client.kv.put({ key: Buffer.from(key(ns, name)), value: Buffer.from(JSON.stringify(obj)) })).header.revision);
  };
  const etcdState = async (ns: string): Promise<[string, number][]> => {
    const res = await env().client.kv.range({ key: Buffer.from(key(ns, '')), range_end: prefixEnd(key(ns, '')) });
    return res.kvs.map((kv) => [kv.key.toString('utf8'), Number(kv.mod_revision)]);
  };
  const cacheState = (cache: WatchCache, ns: string): [string, number][] =>
    cache
      .resource('configmaps')
      .list(key(ns, ''))
      .map((v) => [key(ns, v.object.metadata.name ?? ''), v.modRevision]);

  it('a stream broken during a catch-up neither loses nor repeats an event, and keeps its subscribers', async () => {
    const ns = 'catch-up';
    const cache = new WatchCache(etcdCacheFeed(env().viaProxy), '/registry');
    await cache.start();
    const seen: number[] = [];
    const closed: string[] = [];
    let marker = Infinity;
    let cut = false;
    cache.resource('configmaps').subscribe(key(ns, ''), cache.revision, {
      onEvent(e) {
        seen.push(e.revision);
        if (!cut && e.revision > marker) {
          // The first response of the catch-up (at most 1000 revisions): break the stream there.
          cut = true;
          env().proxy.cut();
        }
      },
      onClose: (reason) => void closed.push(reason),
    });
    try {
      marker = await putConfigMap(ns, 'first', {});
      await waitFor('the first write', () => cache.revision >= marker);
      env().proxy.pause();
      // More revisions than etcd sends in one catch-up response (watchBatchMaxRevs = 1000).
      const written: number[] = [];
      for (let i = 0; i < 1200; i++) written.push(await putConfigMap(ns, `cm-${i % 50}`, { i: String(i) }));
      env().proxy.cut();
      env().proxy.resume();
      const last = written[written.length - 1] ?? 0;
      await waitFor(`revision ${last}`, () => cache.revision >= last);
      assert.equal(cut, true);
      assert.deepEqual(seen, [marker, ...written]);
      assert.deepEqual(closed, []);
      assert.deepEqual(cacheState(cache, ns), await etcdState(ns));
    } finally {
      await cache.stop();
    }
  });

  it("gives an update the object it holds as the previous value, and a large value's event in write order", async () => {
    const ns = 'shared-previous';
    const cache = new WatchCache(etcdCacheFeed(env().viaProxy), '/registry');
    await cache.start();
    const seen: CacheEvent[] = [];
    cache.resource('configmaps').subscribe(key(ns, ''), cache.revision, { onEvent: (e) => void seen.push(e), onClose: () => undefined });
    try {
      // Each write once the cache has the one before: its previous value can only be the cache's.
      for (const data of threeWrites()) {
        const revision = await putConfigMap(ns, 'a', data);
        await waitFor(`revision ${revision}`, () => cache.revision >= revision);
      }
      assertWritesSharePrevious(seen);
    } finally {
      await cache.stop();
    }
  });

  it('stop() returns while etcd is unreachable (shutdown does not wait for the network)', async () => {
    const cache = new WatchCache(etcdCacheFeed(env().viaProxy), '/registry');
    await cache.start();
    const written = await putConfigMap('stop', 'x', {});
    await waitFor('the write', () => cache.revision >= written);
    env().proxy.pause();
    try {
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('hung'), WAIT_MS)));
      assert.equal(await Promise.race([cache.stop().then(() => 'stopped'), hung]), 'stopped');
      clearTimeout(timer);
    } finally {
      env().proxy.resume();
    }
  });

  it('a compaction past its revision while cut off: re-lists to exactly etcd, closes subscribers, serves new ones from the list', async () => {
    const ns = 'compacted';
    for (const name of ['keep', 'change', 'remove']) await putConfigMap(ns, name, { v: '1' });
    const cache = new WatchCache(etcdCacheFeed(env().viaProxy), '/registry');
    await cache.start();
    const configmaps = cache.resource('configmaps');
    const closed: string[] = [];
    const before = cache.revision;
    configmaps.subscribe(key(ns, ''), before, { onEvent: () => {}, onClose: (reason) => void closed.push(reason) });
    try {
      env().proxy.pause();
      await putConfigMap(ns, 'change', { v: '2' });
      await putConfigMap(ns, 'added', { v: '1' });
      await env().client.kv.deleteRange({ key: Buffer.from(key(ns, 'remove')) });
      // Created and deleted while cut off: no list can show it, so no subscriber can be continued.
      await putConfigMap(ns, 'ephemeral', { v: '1' });
      await env().client.kv.deleteRange({ key: Buffer.from(key(ns, 'ephemeral')) });
      const compactedAt = await putConfigMap(ns, 'added', { v: '2' });
      await env().client.kv.compact({ revision: compactedAt, physical: true });
      env().proxy.cut();
      env().proxy.resume();
      await waitFor('the re-list', () => closed.length > 0);
      assert.match(closed[0] ?? '', /re-initialized/);
      await waitFor(`revision ${compactedAt}`, () => cache.revision >= compactedAt);
      assert.deepEqual(cacheState(cache, ns), await etcdState(ns));
      assert.equal(configmaps.canResumeFrom(before), false);
      assert.ok(configmaps.oldestResumableRevision() >= compactedAt);
      // A new subscriber from the cache's revision gets what follows, once.
      const seen: number[] = [];
      configmaps.subscribe(key(ns, ''), cache.revision, { onEvent: (e) => void seen.push(e.revision), onClose: () => {} });
      const next = await putConfigMap(ns, 'keep', { v: '2' });
      await waitFor('an event after the re-list', () => seen.length > 0);
      assert.deepEqual(seen, [next]);
      assert.equal(await cache.waitFor(next, WAIT_MS), true);
    } finally {
      await cache.stop();
    }
  });
});
