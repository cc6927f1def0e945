/**
 * What the embedded store refuses, and how: values etcd would refuse (over its 1.5 MiB request
 * limit) with etcd's words, keys too long for LMDB as too large, and reads of such keys as keys
 * that hold nothing, never an error of LMDB's.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KubeObject } from '../../../shared/api/types.ts';
import { StorageError } from '../etcd/errors.ts';
import { EmbeddedStore, maxKeyBytes, maxWriteBytes } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'corral-embedded-limits-'));
const store = new EmbeddedStore(join(dir, 'db'));
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data,
});

const tooLarge = (message: RegExp) => (err: unknown) => err instanceof StorageError && err.code === 'TooLarge' && message.test(err.message);

describe('the embedded store’s limits', () => {
  it('refuses a value larger than etcd accepts with etcd’s error, and writes nothing', async () => {
    const before = await store.currentRevision();
    const key = store.key('configmaps', 'ns', 'big');
    await assert.rejects(store.create(key, configMap('big', { v: 'x'.repeat(maxWriteBytes) })), tooLarge(/^etcdserver: request is too large$/));
    await assert.rejects(
      store.guaranteedUpdate(key, () => ({ action: 'put', object: configMap('big', { v: 'x'.repeat(maxWriteBytes) }) })),
      tooLarge(/^etcdserver: request is too large$/),
    );
    assert.equal(await store.currentRevision(), before);
    assert.equal(await store.get(key), null);
    // Just under the limit is fine.
    await store.create(key, configMap('big', { v: 'x'.repeat(maxWriteBytes - 1000) }));
  });

  it('refuses a key too long for LMDB as too large, and reads it as absent', async () => {
    const name = 'n'.repeat(maxKeyBytes);
    const key = store.key('clusterroles', undefined, name);
    await assert.rejects(store.create(key, configMap(name)), tooLarge(/^the key is too long for the embedded store: \d+ bytes, at most 1900$/));
    assert.equal(await store.get(key), null);
    assert.deepEqual((await store.range(`${key}/`)).values, []);
    const deleted = await store.guaranteedUpdate(key, () => ({ action: 'delete' }));
    assert.equal(deleted.deleted, false);
  });

  it('continues a range from a start key too long to be a key', async () => {
    for (const name of ['a', 'b', 'c']) await store.create(store.key('secrets', 'ns', name), configMap(name));
    const prefix = store.collectionPrefix('secrets', 'ns');
    const res = await store.range(prefix, { startKey: `${prefix}a${'z'.repeat(maxKeyBytes)}` });
    assert.deepEqual(
      res.values.map((v) => v.object.metadata.name),
      ['b', 'c'],
    );
  });
});
