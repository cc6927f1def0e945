import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnlessEtcd } from '../../../shared/etcd/availability.ts';
import { useEtcd } from '../../testing/etcd.ts';
import { compactOnce, type CompactionState } from './compactor.ts';

describe('compactor (real etcd)', { skip: skipUnlessEtcd() }, () => {
  const etcd = useEtcd('compactor');
  const key = '/registry/compact_rev_key';

  async function write(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await etcd().client.put(`/registry/things/t${i}`).value(String(i));
  }

  it('lets exactly one replica compact per round, at the revision seen one round earlier', async () => {
    const compacted: number[] = [];
    let a: CompactionState = { version: 0, revision: 0 };
    let b: CompactionState = { version: 0, revision: 0 };
    // Round 1: A records a revision and compacts nothing; B loses the race and learns A's state.
    a = await compactOnce(etcd().client, key, a, (r) => compacted.push(r));
    b = await compactOnce(etcd().client, key, b, (r) => compacted.push(r));
    assert.equal(compacted.length, 0);
    await write(5);
    const seenByB = b.revision;
    // Round 2: B wins (its version is current) and compacts at the revision it saw in round 1.
    b = await compactOnce(etcd().client, key, b, (r) => compacted.push(r));
    a = await compactOnce(etcd().client, key, a, (r) => compacted.push(r));
    assert.deepEqual(compacted, [seenByB]);
    // History after that revision is still readable; before it is gone.
    await etcd().client.get('/registry/things/t0').exec();
    await assert.rejects(etcd().client.kv.range({ key: Buffer.from('/registry/things/t0'), revision: seenByB - 1 }), /compacted/);
    const kept = await etcd().client.kv.range({ key: Buffer.from('/registry/things/t0'), revision: seenByB });
    assert.ok(kept.header.revision);
    assert.ok(a.version === b.version);
  });
});
