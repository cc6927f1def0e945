import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type EtcdProcess } from '../../../shared/etcd/process.ts';
import { LeaseManager } from './leases.ts';
import { connectEtcd } from './store.ts';

describe('LeaseManager (real etcd)', () => {
  let dir: string;
  let etcd: EtcdProcess;
  let client: ReturnType<typeof connectEtcd>;
  let nowMs = 1_000_000;
  const clock = (): number => nowMs;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'corral-leases-'));
    etcd = await startEtcd({ dataDir: join(dir, 'etcd') });
    client = connectEtcd({ endpoints: etcd.endpoints });
  });

  after(async () => {
    client.close();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const grantedTtl = async (id: string): Promise<number> => Number((await client.leaseClient.leaseTimeToLive({ ID: id })).grantedTTL);

  it('grants the TTL plus the reuse window (5%, at most 60 s), and reuses the lease while it outlives a new TTL', async () => {
    const leases = new LeaseManager(client, clock);
    const first = await leases.leaseFor(3600);
    assert.equal(await grantedTtl(first), 3600 + 60);
    nowMs += 59_000;
    assert.equal(await leases.leaseFor(3600), first);
    // 60 s later the lease would expire before an object written now has lived its hour.
    nowMs += 1_000;
    const second = await leases.leaseFor(3600);
    assert.notEqual(second, first);
    assert.equal(await grantedTtl(second), 3660);
    const short = new LeaseManager(client, clock);
    assert.equal(await grantedTtl(await short.leaseFor(100)), 105);
  });

  it('a different TTL gets a lease of its own', async () => {
    const leases = new LeaseManager(client, clock);
    const hour = await leases.leaseFor(3600);
    const minute = await leases.leaseFor(60);
    assert.notEqual(minute, hour);
    assert.equal(await grantedTtl(minute), 63);
  });

  it('concurrent writes share one grant', async () => {
    const leases = new LeaseManager(client, clock);
    const ids = await Promise.all(Array.from({ length: 20 }, () => leases.leaseFor(600)));
    assert.equal(new Set(ids).size, 1);
  });
});
