/**
 * Etcd watches across broken streams, against a real etcd reached through a TCP proxy that the
 * tests cut and pause: every change exactly once, in revision order, whatever the etcd3 client's
 * own reconnect logic does; a compaction while cut off ends the watch with Compacted.
 *
 * Waits have generous deadlines that only turn a hang into a failure.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IWatchResponse } from 'etcd3';
import { skipUnlessEtcd } from '../../../shared/etcd/availability.ts';
import { useProxiedEtcd } from '../../testing/etcd.ts';
import { waitFor } from '../../testing/wait-for.ts';
import { StorageError } from './errors.ts';
import { followWatcher, watchEtcd, watchPrefix } from './watch.ts';

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
      onEvents(events) {
        for (const e of events) seen.push(Number(e.kv.mod_revision));
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

  it('drops events at or below the last delivered revision (a re-delivery)', async () => {
    const prefix = '/redelivery/';
    const start = (await currentRevision()) + 1;
    const responses: IWatchResponse[] = [];
    const watcher = env().client.watch().prefix(prefix).startRevision(String(start)).withPreviousKV().watcher();
    watcher.on('data', (res: IWatchResponse) => void responses.push(res));
    const seen: number[] = [];
    const watch = followWatcher(env().client, prefix, watcher, start, {
      onEvents: (events) => seen.push(...events.map((e) => Number(e.kv.mod_revision))),
      onCancel: () => {},
    });
    try {
      const written = await writeMany(prefix, 3);
      await waitFor('3 events', () => seen.length >= 3);
      // The same responses again, older first, as a client that resumed too early delivers them.
      for (const res of [...responses].reverse()) watcher.emit('data', res);
      const more = await writeMany(prefix, 1);
      await waitFor('4 events', () => seen.length >= 4);
      assert.deepEqual(seen, [...written, ...more]);
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
      onEvents: (events) => seen.push(...events.map((e) => Number(e.kv.mod_revision))),
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
