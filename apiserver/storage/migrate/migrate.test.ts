/** `corral migrate` between two embedded stores: what needs no etcd (etcd.test.ts copies to and from etcd). */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StorageError } from '../etcd/errors.ts';
import { EmbeddedStore } from '../embedded/store.ts';
import { copyKeys } from './copy.ts';
import { openEmbeddedSource, openEmbeddedTarget } from './embedded.ts';
import { dumpEmbedded, embeddedAt, eventTtlSeconds, migration, seedEmbedded } from './fixtures.ts';
import { migrate } from './migrate.ts';

const prefix = '/registry';

describe('migrate between embedded stores', { timeout: 120_000 }, () => {
  let dir: string;
  let source: string;
  const configMaps = 150;
  const events = 3;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'corral-migrate-'));
    source = join(dir, 'source');
    await seedEmbedded(source, prefix, configMaps, events);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('copies every key with its value byte for byte and its remaining TTL; resourceVersions become the target revisions, below which history is compacted', async () => {
    const target = join(dir, 'copy');
    const before = await dumpEmbedded(source, prefix);
    const started = Date.now();
    const report = await migrate(migration(embeddedAt(source), embeddedAt(target), prefix));
    const elapsed = Date.now() - started;
    const copied = await dumpEmbedded(target, prefix);

    assert.equal(before.size, configMaps + 3 + events);
    assert.deepEqual([...copied.keys()], [...before.keys()]);
    for (const [key, { value, expiresAt }] of before) {
      const copy = copied.get(key);
      assert.equal(copy?.value, value, key);
      if (!expiresAt) assert.equal(copy.expiresAt, 0, key);
      else {
        // Never earlier than in the source; later by at most the rounding up to a second.
        assert.ok(copy.expiresAt >= expiresAt, `${key} expires at ${copy.expiresAt}, before ${expiresAt}`);
        assert.ok(copy.expiresAt <= expiresAt + 1000 + elapsed, `${key} expires at ${copy.expiresAt}, after ${expiresAt} + 1 s`);
      }
    }
    const bytes = [...before].reduce((sum, [key, { value }]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value), 0);
    assert.deepEqual(
      {
        copied: report.copied,
        bytes: report.bytes,
        withTtl: report.withTtl,
        expired: report.expired,
        notCopied: report.notCopied,
        compacted: report.compacted,
      },
      { copied: before.size, bytes, withTtl: events, expired: 0, notCopied: [], compacted: true },
    );
    // The source ran one create and one update per ConfigMap; the copy one write per key.
    assert.ok(report.sourceRevision > report.targetRevision);

    const store = new EmbeddedStore(join(target, 'db'), prefix);
    try {
      assert.equal(await store.currentRevision(), report.targetRevision);
      const { values } = await store.range(`${prefix}/configmaps/`);
      assert.equal(values.length, configMaps);
      for (const { object, modRevision } of values) {
        assert.equal(object.metadata.resourceVersion, String(modRevision));
        assert.ok(modRevision <= report.targetRevision);
      }
      await assert.rejects(store.get(`${prefix}/namespaces/default`, 1), (err: unknown) => err instanceof StorageError && err.code === 'Compacted');
    } finally {
      await store.close();
    }
  });

  it('does not copy keys whose TTL ran out', async () => {
    const from = openEmbeddedSource(source, prefix);
    const to = openEmbeddedTarget(join(dir, 'later'), prefix);
    try {
      const report = await copyKeys(from, to, { prefix, force: false, batchSize: 50, now: () => Date.now() + (eventTtlSeconds + 1) * 1000 });
      assert.equal(report.expired, events);
      assert.equal(report.copied, configMaps + 3);
      assert.equal((await to.storage.range(`${prefix}/events/`)).count, 0);
    } finally {
      await to.close();
      await from.close();
    }
  });

  it('refuses a target with keys under the prefix, saying how many; --force overwrites the keys copied and keeps the others', async () => {
    const target = join(dir, 'taken');
    const store = new EmbeddedStore(join(target, 'db'), prefix);
    await store.create(`${prefix}/configmaps/default/cm-0000`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-0000', namespace: 'default' } });
    await store.create(`${prefix}/configmaps/default/other`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: 'default' } });
    await store.close();

    await assert.rejects(migrate(migration(embeddedAt(source), embeddedAt(target), prefix)), {
      message: `the embedded store in ${join(target, 'db')} already has 2 keys under ${prefix}/: copy into an empty store, or pass --force to overwrite the keys the source has (the others stay)`,
    });
    const report = await migrate(migration(embeddedAt(source), embeddedAt(target), prefix, { force: true }));
    assert.equal(report.copied, configMaps + 3 + events);
    const [sourceDump, targetDump] = [await dumpEmbedded(source, prefix), await dumpEmbedded(target, prefix)];
    assert.equal(targetDump.get(`${prefix}/configmaps/default/cm-0000`)?.value, sourceDump.get(`${prefix}/configmaps/default/cm-0000`)?.value);
    assert.ok(targetDump.has(`${prefix}/configmaps/default/other`));
    assert.equal(targetDump.size, sourceDump.size + 1);
  });

  it('refuses a store an API server owns, source or target, and leaves the other untouched', async () => {
    // The test runner's parent: a live process other than this one, as an API server would be.
    const owner = String(process.ppid);
    writeFileSync(join(source, 'db', 'owner.pid'), owner);
    try {
      await assert.rejects(migrate(migration(embeddedAt(source), embeddedAt(join(dir, 'never')), prefix)), {
        message: new RegExp(
          `^cannot migrate while another process has the store: stop it first \\(the embedded store in .*/source/db is in use by process ${owner}`,
        ),
      });
      assert.equal(existsSync(join(dir, 'never')), false);
    } finally {
      rmSync(join(source, 'db', 'owner.pid'));
    }
    const target = join(dir, 'owned');
    mkdirSync(join(target, 'db'), { recursive: true });
    writeFileSync(join(target, 'db', 'owner.pid'), owner);
    await assert.rejects(migrate(migration(embeddedAt(source), embeddedAt(target), prefix)), /another process has the store.*owned\/db is in use/);
    // The source was opened and let go: its lock is free again.
    assert.equal(existsSync(join(source, 'db', 'owner.pid')), false);
  });

  it('a data dir without an embedded store is an error, which names the etcd of an earlier corral when there is one', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(join(empty, 'etcd'), { recursive: true });
    await assert.rejects(migrate(migration(embeddedAt(empty), embeddedAt(join(dir, 'none')), prefix)), {
      message: `there is no embedded store in ${empty} (no ${join(empty, 'db', 'data.mdb')}); ${join(empty, 'etcd')} is the etcd of an earlier corral: run etcd on its data (--data-dir ${join(empty, 'etcd', 'data')}) and copy from it with --from-etcd-servers`,
    });
    assert.equal(existsSync(join(empty, 'db')), false);
  });
});
