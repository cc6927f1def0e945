/** `corral migrate` to and from a real etcd (skipped, saying why, where etcd is not installed). */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipUnlessEtcd } from '../../../shared/etcd/availability.ts';
import { freePort } from '../../../shared/net/free-ports.ts';
import { useEtcd } from '../../testing/etcd.ts';
import { dumpEmbedded, dumpEtcd, embeddedAt, etcdAt, eventTtlSeconds, migration, seedEmbedded, type Dump } from './fixtures.ts';
import { migrate } from './migrate.ts';

/** etcd's lease reuse window (etcd/leases.ts) for the Event TTL: a lease outlives its TTL by up to this. */
const leaseWindowMs = Math.min(Math.floor(eventTtlSeconds * 0.05), 60) * 1000;

/** Every key of `copy` is in `original` with the same value, and expires no earlier, and at most `laterMs` later. */
function assertSameKeys(copy: Dump, original: Dump, laterMs: number): void {
  assert.deepEqual([...copy.keys()].sort(), [...original.keys()].sort());
  for (const [key, { value, expiresAt }] of original) {
    const copied = copy.get(key);
    assert.equal(copied?.value, value, key);
    if (!expiresAt) assert.equal(copied.expiresAt, 0, `${key} has no TTL in the source`);
    else {
      assert.ok(copied.expiresAt >= expiresAt, `${key} expires at ${copied.expiresAt}, before ${expiresAt}`);
      assert.ok(copied.expiresAt <= expiresAt + laterMs, `${key} expires at ${copied.expiresAt}, more than ${laterMs} ms after ${expiresAt}`);
    }
  }
}

describe('migrate to and from etcd', { skip: skipUnlessEtcd(), timeout: 120_000 }, () => {
  const etcd = useEtcd('migrate');
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'corral-migrate-etcd-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('embedded store → etcd → a new embedded store keeps every key, value and TTL', async () => {
    const prefix = '/round-trip';
    const source = join(dir, 'source');
    await seedEmbedded(source, prefix, 200, 3);
    const original = await dumpEmbedded(source, prefix);
    const { client, process: member } = etcd();

    let started = Date.now();
    const there = await migrate(migration(embeddedAt(source), etcdAt(member.endpoints), prefix));
    const inEtcd = await dumpEtcd(client, prefix);
    // Rounded up to a second, a lease's window on top, and etcd's second of TTL granularity.
    assertSameKeys(inEtcd, original, 1000 + leaseWindowMs + 1000 + (Date.now() - started));
    assert.equal(there.copied, original.size);
    assert.equal(there.withTtl, 3);
    assert.equal(there.target, `etcd ${member.endpoints.join(',')}`);
    // The etcd's history was compacted at its revision after the copy.
    await assert.rejects(client.kv.range({ key: Buffer.from(`${prefix}/namespaces/default`), revision: there.targetRevision - 1 }), /compacted/);
    const { kvs } = await client.kv.range({ key: Buffer.from(`${prefix}/`), range_end: Buffer.from(`${prefix}0`) });
    assert.ok(kvs.every((kv) => Number(kv.mod_revision) <= there.targetRevision));

    started = Date.now();
    const back = join(dir, 'back');
    const returned = await migrate(migration(etcdAt(member.endpoints), embeddedAt(back), prefix));
    assert.equal(returned.copied, original.size);
    assert.equal(returned.source, `etcd ${member.endpoints.join(',')}`);
    assertSameKeys(await dumpEmbedded(back, prefix), inEtcd, 1000 + (Date.now() - started));
  });

  it("copies from an etcd around the compactor's key, and lists the values that are not objects", async () => {
    const prefix = '/foreign';
    const { client, process: member } = etcd();
    await client.put(`${prefix}/compact_rev_key`).value('42');
    await client
      .put(`${prefix}/configmaps/default/good`)
      .value(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'good', namespace: 'default' } }));
    await client.put(`${prefix}/configmaps/default/bad`).value('\u0000k8s\u0000protobuf');
    const target = join(dir, 'foreign');
    const report = await migrate(migration(etcdAt(member.endpoints), embeddedAt(target), prefix));
    assert.equal(report.copied, 1);
    assert.deepEqual(report.notCopied, [{ key: `${prefix}/configmaps/default/bad`, reason: `the value of ${prefix}/configmaps/default/bad is not JSON` }]);
    assert.deepEqual([...(await dumpEmbedded(target, prefix)).keys()], [`${prefix}/configmaps/default/good`]);
  });

  it('refuses an etcd with keys under the prefix; --force overwrites the keys copied and keeps the others', async () => {
    const prefix = '/occupied';
    const source = join(dir, 'occupied-source');
    await seedEmbedded(source, prefix, 5, 0);
    const { client, process: member } = etcd();
    await client.put(`${prefix}/namespaces/default`).value('{"metadata":{"name":"stale"}}');
    await client.put(`${prefix}/namespaces/elsewhere`).value('{"metadata":{"name":"elsewhere"}}');
    await assert.rejects(migrate(migration(embeddedAt(source), etcdAt(member.endpoints), prefix)), {
      message: `etcd ${member.endpoints.join(',')} already has 2 keys under ${prefix}/: copy into an empty store, or pass --force to overwrite the keys the source has (the others stay)`,
    });
    const report = await migrate(migration(embeddedAt(source), etcdAt(member.endpoints), prefix, { force: true, compact: false }));
    assert.equal(report.copied, 8);
    const inEtcd = await dumpEtcd(client, prefix);
    assert.equal(inEtcd.get(`${prefix}/namespaces/default`)?.value, (await dumpEmbedded(source, prefix)).get(`${prefix}/namespaces/default`)?.value);
    assert.equal(inEtcd.get(`${prefix}/namespaces/elsewhere`)?.value, '{"metadata":{"name":"elsewhere"}}');
    assert.equal(report.compacted, false);
  });

  it('an etcd that does not answer is an error naming it', async () => {
    const nowhere = [`http://127.0.0.1:${await freePort()}`];
    await assert.rejects(migrate(migration(etcdAt(nowhere), embeddedAt(join(dir, 'nowhere')), '/registry', { etcdRequestTimeoutMs: 2000 })), {
      message: new RegExp(`^cannot read etcd ${nowhere[0]}: .*\\(is it running, at that address\\?\\)$`),
    });
    assert.equal(existsSync(join(dir, 'nowhere')), false, 'no target was made');
  });
});
