/**
 * The storage conformance suite: the contract of `Storage` (storage.ts), etcd's semantics, as
 * tests that any backend must pass: etcd itself (EtcdStore), the in-memory fake of the in-process
 * tests, and the embedded backend. Call `storageConformance` from a test file
 * with a way to open a fresh, empty backend.
 *
 * Covered: create-if-absent, one revision counter for every key, compare-and-swap with a decision
 * made again after a lost race, deletes, ranges in byte order with limit, start key and counts,
 * reads at a past revision, compaction and its errors, reads in the future, and watches from a
 * revision (order, exactly once, previous values, live events after the replay). TTLs only for
 * backends that keep them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../shared/api/types.ts';
import { StorageError } from './etcd/errors.ts';
import type { StoredValue, UpdateDecision } from './etcd/store.ts';
import type { StorageEvent } from './etcd/watch.ts';
import type { Storage } from './storage.ts';

export interface OpenedStorage {
  storage: Storage;
  /** Compacts the history below `revision`, as the compactor does. */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}

export interface ConformanceOptions {
  /** The backend expires objects created with a TTL (etcd leases); the in-memory fake does not. */
  expiresTtl: boolean;
  /** Why the backend cannot run here (node:test's skip: etcd not installed), or false. */
  skip?: string | false;
}

const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data,
});

const storageErrorCode = (err: unknown): string | undefined => (err instanceof StorageError ? err.code : undefined);

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.equal(storageErrorCode(err), code, String(err));
    return true;
  });
}

/** Collects a watch's events until `count` arrived (or fails after `timeoutMs`). */
function collector(count: number, timeoutMs = 10_000): { events: StorageEvent[]; done: Promise<StorageEvent[]>; handlers: Parameters<Storage['watch']>[2] } {
  const events: StorageEvent[] = [];
  let resolve!: (events: StorageEvent[]) => void;
  let reject!: (err: Error) => void;
  const done = new Promise<StorageEvent[]>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const timer = setTimeout(() => reject(new Error(`watch: ${events.length} of ${count} events after ${timeoutMs} ms`)), timeoutMs);
  return {
    events,
    done,
    handlers: {
      onEvents: (batch) => {
        events.push(...batch);
        if (events.length >= count) {
          clearTimeout(timer);
          resolve(events);
        }
      },
      onError: (err) => {
        clearTimeout(timer);
        reject(err);
      },
    },
  };
}

export function storageConformance(name: string, open: () => Promise<OpenedStorage>, options: ConformanceOptions): void {
  describe(`storage conformance: ${name}`, { timeout: 120_000, skip: options.skip ?? false }, () => {
    let opened: OpenedStorage;
    let storage: Storage;
    /** Each test works under a prefix of its own, so the tests share one backend. */
    let n = 0;
    const prefix = (): string => `${storage.collectionPrefix(`conformance${++n}`)}`;
    before(async () => {
      opened = await open();
      storage = opened.storage;
    });
    after(async () => opened?.close());

    it('creates only absent keys, and every write takes the next revision of one counter', async () => {
      const p = prefix();
      const before = await storage.currentRevision();
      const a = await storage.create(`${p}a`, configMap('a'));
      const b = await storage.create(`${p}b`, configMap('b'));
      assert.equal(a.modRevision, before + 1);
      assert.equal(b.modRevision, before + 2);
      assert.equal(a.object.metadata.resourceVersion, String(a.modRevision));
      assert.equal(await storage.currentRevision(), before + 2);
      await rejectsWith(storage.create(`${p}a`, configMap('a')), 'Exists');
      const got = await storage.get(`${p}a`);
      assert.equal(got?.modRevision, a.modRevision);
      assert.deepEqual(got?.object.data, {});
      assert.equal(got?.object.metadata.resourceVersion, String(a.modRevision));
      assert.equal(await storage.get(`${p}missing`), null);
    });

    it('updates, writes nothing for "none", deletes, and creates through guaranteedUpdate', async () => {
      const p = prefix();
      const created = await storage.guaranteedUpdate(`${p}x`, (current) => {
        assert.equal(current, null);
        return { action: 'put', object: configMap('x', { v: '1' }) };
      });
      assert.equal(created.created, true);
      const updated = await storage.guaranteedUpdate(`${p}x`, (current) => ({ action: 'put', object: { ...current!.object, data: { v: '2' } } }));
      assert.equal(updated.revision, created.revision + 1);
      assert.equal(updated.created, false);
      const unchanged = await storage.guaranteedUpdate(`${p}x`, (current) => ({ action: 'none', object: current!.object }));
      assert.equal(unchanged.revision, updated.revision, 'nothing written');
      assert.equal(await storage.currentRevision(), updated.revision);
      const deleted = await storage.guaranteedUpdate(`${p}x`, () => ({ action: 'delete' }));
      assert.equal(deleted.deleted, true);
      assert.deepEqual(deleted.object?.data, { v: '2' }, 'the deleted value');
      assert.equal(await storage.get(`${p}x`), null);
      await storage.create(`${p}x`, configMap('x'));
    });

    it('decides on a cached value that is current as it is, and never writes over a change the cached value misses', async () => {
      const p = prefix();
      const first = await storage.create(`${p}x`, configMap('x', { v: '1' }));
      await storage.guaranteedUpdate(`${p}x`, (c) => ({ action: 'put', object: { ...c!.object, data: { v: '2' } } }));
      const seen: string[] = [];
      const plusOne = (current: StoredValue | null): UpdateDecision => {
        const v = (current!.object.data as Record<string, string>).v ?? '';
        seen.push(v);
        return { action: 'put', object: { ...current!.object, data: { v: `${v}+` } } };
      };
      await storage.guaranteedUpdate(`${p}x`, plusOne, first);
      assert.equal(seen.at(-1), '2', 'the last decision was on the current value');
      const current = await storage.get(`${p}x`);
      assert.deepEqual(current?.object.data, { v: '2+' });
      let given: StoredValue | null = null;
      await storage.guaranteedUpdate(
        `${p}x`,
        (c) => {
          given = c;
          return plusOne(c);
        },
        current ?? undefined,
      );
      assert.equal(given, current, 'the cached value itself');
      assert.deepEqual((await storage.get(`${p}x`))?.object.data, { v: '2++' });
    });

    it('decides again on the fresh value after losing a race (compare-and-swap)', async () => {
      const p = prefix();
      await storage.create(`${p}counter`, configMap('counter', { n: '0' }));
      let decisions = 0;
      const increment = () =>
        storage.guaranteedUpdate(`${p}counter`, async (current) => {
          decisions++;
          const n = Number((current!.object.data as Record<string, string>).n);
          // Let the other writers read the same value before this one writes.
          await new Promise((resolve) => setImmediate(resolve));
          return { action: 'put', object: { ...current!.object, data: { n: String(n + 1) } } };
        });
      await Promise.all(Array.from({ length: 10 }, increment));
      const final = await storage.get(`${p}counter`);
      assert.equal((final!.object.data as Record<string, string>).n, '10', 'no increment lost');
      assert.ok(decisions > 10, 'some decisions were made again');
    });

    it('ranges in byte order with limit, start key, counts and a past revision', async () => {
      const p = prefix();
      for (const name of ['b', 'a', 'c', 'd']) await storage.create(`${p}${name}`, configMap(name));
      await storage.create(`${prefix()}a`, configMap('elsewhere'));
      const all = await storage.range(p);
      assert.deepEqual(
        all.values.map((v) => v.object.metadata.name),
        ['a', 'b', 'c', 'd'],
      );
      assert.equal(all.count, 4);
      assert.equal(all.more, false);
      const page = await storage.range(p, { limit: 2 });
      assert.deepEqual(
        page.values.map((v) => v.object.metadata.name),
        ['a', 'b'],
      );
      assert.deepEqual([page.more, page.count, page.lastKey], [true, 4, `${p}b`]);
      const rest = await storage.range(p, { startKey: `${p}b\0`, revision: page.revision });
      assert.deepEqual(
        rest.values.map((v) => v.object.metadata.name),
        ['c', 'd'],
      );
      const at = all.revision;
      await storage.create(`${p}e`, configMap('e'));
      await storage.guaranteedUpdate(`${p}a`, () => ({ action: 'delete' }));
      const past = await storage.range(p, { revision: at });
      assert.deepEqual(
        past.values.map((v) => v.object.metadata.name),
        ['a', 'b', 'c', 'd'],
        'the range as it was',
      );
      assert.equal((await storage.get(`${p}a`, at))?.object.metadata.name, 'a');
    });

    it('ranges over keys of every character, U+FFFF and beyond the BMP included, in UTF-8 byte order', async () => {
      const p = prefix();
      // RBAC objects may be named with any path segment: emoji included.
      for (const name of ['z', '\u00e9', '\uffff', '\u{1F600}', 'a']) await storage.create(`${p}${name}`, configMap(name));
      await storage.create(`${prefix()}a`, configMap('next prefix'));
      assert.deepEqual(
        (await storage.range(p)).values.map((v) => v.object.metadata.name),
        ['a', 'z', '\u00e9', '\uffff', '\u{1F600}'],
      );
    });

    it('refuses reads below the compacted revision and above the current one', async () => {
      const p = prefix();
      const first = await storage.create(`${p}a`, configMap('a', { v: '1' }));
      await storage.guaranteedUpdate(`${p}a`, (c) => ({ action: 'put', object: { ...c!.object, data: { v: '2' } } }));
      const now = await storage.currentRevision();
      await opened.compact(now);
      await rejectsWith(storage.get(`${p}a`, first.modRevision), 'Compacted');
      await rejectsWith(storage.range(p, { revision: first.modRevision }), 'Compacted');
      await rejectsWith(storage.watch(p, first.modRevision, { onEvents: () => {}, onError: () => {} }), 'Compacted');
      assert.deepEqual((await storage.get(`${p}a`))?.object.data, { v: '2' }, 'the newest value survives compaction');
      await rejectsWith(storage.get(`${p}a`, now + 1000), 'FutureRevision');
    });

    it('watches from a revision: every change once, in order, with previous values, then live', async () => {
      const p = prefix();
      const a = await storage.create(`${p}a`, configMap('a', { v: '1' }));
      await storage.guaranteedUpdate(`${p}a`, (c) => ({ action: 'put', object: { ...c!.object, data: { v: '2' } } }));
      await storage.create(`${prefix()}other`, configMap('other'));
      const watched = collector(5);
      const watch = await storage.watch(p, a.modRevision, watched.handlers);
      try {
        await storage.create(`${p}b`, configMap('b'));
        await storage.guaranteedUpdate(`${p}a`, () => ({ action: 'delete' }));
        await storage.guaranteedUpdate(`${p}b`, (c) => ({ action: 'put', object: { ...c!.object, data: { v: 'b2' } } }));
        const events = await watched.done;
        assert.deepEqual(
          events.map((e) => [e.type, e.key.slice(p.length), e.value.object.data, e.previous?.object.data ?? null]),
          [
            ['put', 'a', { v: '1' }, null],
            ['put', 'a', { v: '2' }, { v: '1' }],
            ['put', 'b', {}, null],
            ['delete', 'a', { v: '2' }, { v: '2' }],
            ['put', 'b', { v: 'b2' }, {}],
          ],
        );
        const revisions = events.map((e) => e.revision);
        assert.deepEqual(
          revisions,
          [...revisions].sort((x, y) => x - y),
          'in revision order',
        );
        assert.equal(new Set(revisions).size, revisions.length, 'each once');
        assert.equal(events[0]?.revision, a.modRevision);
      } finally {
        await watch.cancel();
      }
    });

    if (options.expiresTtl) {
      it('expires an object created with a TTL', async () => {
        const p = prefix();
        await storage.create(`${p}short`, configMap('short'), 1);
        await storage.create(`${p}long`, configMap('long'));
        const deadline = Date.now() + 15_000;
        while ((await storage.get(`${p}short`)) !== null) {
          assert.ok(Date.now() < deadline, 'the object outlived its TTL by far');
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        assert.notEqual(await storage.get(`${p}long`), null);
      });
    }
  });
}
