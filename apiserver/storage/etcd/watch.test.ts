/**
 * Etcd watches across broken streams, against a real etcd reached through a TCP proxy that the
 * tests cut and pause: every change exactly once, in revision order, however often the stream is
 * opened again; a compaction while cut off ends the watch with Compacted. The bookkeeping that
 * drops re-deliveries (WatchFollower) is tested on its own.
 *
 * Waits have generous deadlines that only turn a hang into a failure.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnlessEtcd } from '../../../shared/etcd/availability.ts';
import { useProxiedEtcd } from '../../testing/etcd.ts';
import { waitFor } from '../../testing/wait-for.ts';
import { StorageError } from './errors.ts';
import { connectEtcd } from './store.ts';
import type { StoredChange } from '../changes.ts';
import { watchEtcd, WatchFollower, watchPrefix } from './watch.ts';

/** More revisions than etcd sends in one catch-up response (watchBatchMaxRevs = 1000). */
const BEYOND_ONE_BATCH = 1200;

/** `client` goes straight to etcd (writers and checks); `viaProxy` carries the watches under test. */
const env = useProxiedEtcd('etcd-watch');

/** Puts `count` distinct values under `prefix` (some keys several times), a few at a time; returns their revisions. */
async function writeMany(prefix: string, count: number): Promise<number[]> {
  const revisions: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const res = await env().client.kv.put({
        key: Buffer.from(`${prefix}k${i % 300}`),
        value: Buffer.from(JSON.stringify({ metadata: { name: `k${i % 300}` }, i })),
      });
      revisions.push(Number(res.header.revision));
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return revisions.sort((a, b) => a - b);
}

async function currentRevision(): Promise<number> {
  return Number((await env().client.kv.range({ key: Buffer.from('/'), count_only: true })).header.revision);
}

describe('watchEtcd across broken streams', { skip: skipUnlessEtcd() }, () => {
  it('a stream broken in the middle of a catch-up resumes after the last delivered event', async () => {
    const prefix = '/catch-up/';
    const start = (await currentRevision()) + 1;
    const seen: number[] = [];
    let cutDuringCatchUp = false;
    let cancelled: StorageError | undefined;
    // No cut until the first write is seen.
    let marker = Infinity;
    const watch = watchEtcd(env().viaProxy, prefix, start, {
      onChanges(changes) {
        for (const c of changes) seen.push(c.revision);
        // The first response of the catch-up holds at most 1000 revisions: break the stream there.
        if (!cutDuringCatchUp && seen.some((r) => r > marker)) {
          cutDuringCatchUp = true;
          env().proxy.cut();
        }
      },
      onCancel: (err) => void (cancelled = err),
    });
    try {
      // Connected and streaming: a first write arrives.
      marker = (await writeMany(prefix, 1))[0] ?? 0;
      await waitFor('first event', () => seen.includes(marker));
      // Cut off while BEYOND_ONE_BATCH revisions pile up, then let it reconnect and catch up.
      env().proxy.pause();
      const written = await writeMany(prefix, BEYOND_ONE_BATCH);
      env().proxy.cut();
      env().proxy.resume();
      const last = written[written.length - 1] ?? 0;
      await waitFor(`revision ${last}`, () => watch.revision >= last);
      assert.equal(cutDuringCatchUp, true);
      assert.equal(cancelled, undefined);
      assert.deepEqual(seen, [marker, ...written]);
    } finally {
      await watch.cancel();
    }
  });

  it('a watch whose client is closed under it ends with Unavailable instead of retrying', async () => {
    const client = connectEtcd({ endpoints: env().process.endpoints });
    const prefix = '/closed-client/';
    const seen: number[] = [];
    let cancelled: StorageError | undefined;
    const watch = watchEtcd(client, prefix, (await currentRevision()) + 1, {
      onChanges: (changes) => seen.push(...changes.map((c) => c.revision)),
      onCancel: (err) => void (cancelled = err),
    });
    try {
      const first = await writeMany(prefix, 1);
      await waitFor('first event', () => seen.length === 1);
      client.close();
      await waitFor('cancellation', () => cancelled !== undefined);
      assert.equal(cancelled?.code, 'Unavailable');
      assert.deepEqual(seen, first);
    } finally {
      await watch.cancel();
    }
  });

  it('a compaction past its revision while cut off ends the watch with Compacted; watchPrefix refuses a compacted start', async () => {
    const prefix = '/compacted/';
    const start = (await currentRevision()) + 1;
    const seen: number[] = [];
    let cancelled: StorageError | undefined;
    const watch = watchEtcd(env().viaProxy, prefix, start, {
      onChanges: (changes) => seen.push(...changes.map((c) => c.revision)),
      onCancel: (err) => void (cancelled = err),
    });
    try {
      const first = await writeMany(prefix, 1);
      await waitFor('first event', () => seen.length === 1);
      env().proxy.pause();
      const missed = await writeMany(prefix, 5);
      await env().client.kv.compact({ revision: missed[missed.length - 1] ?? 0, physical: true });
      env().proxy.cut();
      env().proxy.resume();
      await waitFor('cancellation', () => cancelled !== undefined);
      assert.ok(cancelled instanceof StorageError);
      assert.equal(cancelled.code, 'Compacted');
      assert.deepEqual(seen, first);
    } finally {
      await watch.cancel();
    }
    await assert.rejects(
      watchPrefix(env().viaProxy, prefix, start, { onEvents: () => {}, onError: () => {} }),
      (err: unknown) => err instanceof StorageError && err.code === 'Compacted',
    );
  });
});

describe('WatchFollower', () => {
  const change = (revision: number): StoredChange => ({ key: `/k${revision}`, revision, value: '{}', previous: null });
  const revisions = (changes: StoredChange[]): number[] => changes.map((c) => c.revision);

  it('hands on only the changes after the last delivered revision, and nothing for a batch of old ones', () => {
    const batches: number[][] = [];
    const follower = new WatchFollower(10, { onChanges: (changes) => void batches.push(revisions(changes)), onCancel: () => {} });
    assert.equal(follower.revision, 9);
    follower.deliver([change(9), change(10), change(12)]);
    // A member behind the last one, or a stream that resumed too early, sends them again.
    follower.deliver([change(10), change(12)]);
    follower.deliver([change(11), change(12), change(13)]);
    assert.deepEqual(batches, [[10, 12], [13]]);
    assert.equal(follower.revision, 13);
  });

  it('reports a cancellation once it is not released, and nothing after release', () => {
    const ended: StorageError[] = [];
    const delivered: number[] = [];
    const handlers = {
      onChanges: (changes: StoredChange[]) => void delivered.push(...revisions(changes)),
      onCancel: (err: StorageError) => void ended.push(err),
    };
    const cancelled = new WatchFollower(1, handlers);
    cancelled.cancel(new StorageError('Compacted', '/p', 'compacted'));
    cancelled.deliver([change(5)]);
    assert.equal(ended.length, 1);
    assert.equal(ended[0]?.code, 'Compacted');

    const released = new WatchFollower(1, handlers);
    released.release();
    released.deliver([change(6)]);
    released.cancel(new StorageError('Internal', '/p', 'late'));
    assert.equal(ended.length, 1);
    assert.deepEqual(delivered, []);
  });
});
