/**
 * A closed embedded store refuses every read and write with its Unavailable error. LMDB itself does
 * not: a read of a closed environment goes through memory it freed (a range there reads a garbage
 * reader slot), which can corrupt the heap of a process shutting down.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StorageError } from '../etcd/errors.ts';
import { EmbeddedStore } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'corral-embedded-close-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function refused(err: unknown): boolean {
  assert.ok(err instanceof StorageError, `a StorageError, not ${String(err)}`);
  assert.equal(err.code, 'Unavailable');
  assert.equal(err.message, 'the embedded store is closed');
  return true;
}

async function openWithOne(name: string): Promise<{ store: EmbeddedStore; key: string; revision: number }> {
  const store = new EmbeddedStore(join(dir, name));
  const key = store.key('configmaps', 'default', 'a');
  const { modRevision } = await store.create(key, { metadata: { name: 'a', namespace: 'default' }, data: { v: '1' } });
  return { store, key, revision: modRevision };
}

describe('a closed embedded store', () => {
  it('refuses every read and write with Unavailable', async () => {
    const { store, key, revision } = await openWithOne('after');
    await store.close();
    await assert.rejects(store.get(key), refused);
    await assert.rejects(store.range(store.collectionPrefix('configmaps')), refused);
    await assert.rejects(store.currentRevision(), refused);
    await assert.rejects(store.create(store.key('configmaps', 'default', 'b'), { metadata: { name: 'b', namespace: 'default' } }), refused);
    await assert.rejects(
      store.guaranteedUpdate(key, (current) => ({ action: 'put', object: current?.object ?? { metadata: { name: 'a' } } })),
      refused,
    );
    await assert.rejects(store.compact(revision), refused);
    await assert.rejects(store.watchChanges(store.prefix, revision, { onChanges: () => undefined, onError: () => undefined }), refused);
    assert.throws(() => store.snapshot(store.prefix, () => true), refused);
    assert.throws(() => store.liveRecords(store.prefix, undefined, 10), refused);
    assert.throws(() => store.compactedTo(), refused);
    assert.equal(store.isOpen(), false);
    // Closing again is the same close.
    await store.close();
  });

  it('refuses the write of an update whose decision was pending as it closed, and leaves the stored object as it was', async () => {
    const { store, key } = await openWithOne('pending');
    let decided!: () => void;
    const decision = new Promise<void>((resolve) => (decided = resolve));
    const update = store.guaranteedUpdate(key, async (current) => {
      await decision;
      return { action: 'put', object: { ...current!.object, data: { v: '2' } } };
    });
    const closed = store.close();
    decided();
    await assert.rejects(update, refused);
    await closed;
    const reopened = new EmbeddedStore(join(dir, 'pending'));
    try {
      assert.deepEqual((await reopened.get(key))?.object.data, { v: '1' });
    } finally {
      await reopened.close();
    }
  });

  it('lets a compaction asked for as it closes finish or refuse, never run on the closed environment', async () => {
    const { store, key } = await openWithOne('compacting');
    for (let i = 0; i < 50; i++) await store.guaranteedUpdate(key, (current) => ({ action: 'put', object: { ...current!.object, data: { v: String(i) } } }));
    const revision = await store.currentRevision();
    const compaction = store.compact(revision).then(
      () => 'compacted',
      (err: unknown) => (refused(err) ? 'refused' : 'other'),
    );
    await store.close();
    assert.ok(['compacted', 'refused'].includes(await compaction));
  });
});
