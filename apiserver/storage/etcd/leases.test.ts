import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnlessEtcd } from '../../../shared/etcd/availability.ts';
import { useEtcd } from '../../testing/etcd.ts';
import { LeaseManager } from './leases.ts';

describe('LeaseManager (real etcd)', { skip: skipUnlessEtcd() }, () => {
  const etcd = useEtcd('leases');
  let nowMs = 1_000_000;
  const clock = (): number => nowMs;

  const grantedTtl = async (id: string): Promise<number> => Number((await etcd().client.leaseClient.leaseTimeToLive({ ID: id })).grantedTTL);

  it('grants the TTL plus the reuse window (5%, at most 60 s), and reuses the lease while it outlives a new TTL', async () => {
    const leases = new LeaseManager(etcd().client, clock);
    const first = await leases.leaseFor(3600);
    assert.equal(await grantedTtl(first), 3600 + 60);
    nowMs += 59_000;
    assert.equal(await leases.leaseFor(3600), first);
    // 60 s later the lease would expire before an object written now has lived its hour.
    nowMs += 1_000;
    const second = await leases.leaseFor(3600);
    assert.notEqual(second, first);
    assert.equal(await grantedTtl(second), 3660);
    const short = new LeaseManager(etcd().client, clock);
    assert.equal(await grantedTtl(await short.leaseFor(100)), 105);
  });

  it('a different TTL gets a lease of its own', async () => {
    const leases = new LeaseManager(etcd().client, clock);
    const hour = await leases.leaseFor(3600);
    const minute = await leases.leaseFor(60);
    assert.notEqual(minute, hour);
    assert.equal(await grantedTtl(minute), 63);
  });

  it('concurrent writes share one grant', async () => {
    const leases = new LeaseManager(etcd().client, clock);
    const ids = await Promise.all(Array.from({ length: 20 }, () => leases.leaseFor(600)));
    assert.equal(new Set(ids).size, 1);
  });
});
