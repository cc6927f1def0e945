import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryEtcd } from '../testing/memory-etcd.ts';
import { ClusterIPAllocator } from './cluster-ip-allocator.ts';
import { bigIntToIP, ipToBigInt, parseIPRange, staticBandSize } from './ip-range.ts';
import { NodePortAllocator, parsePortRange } from './node-port-allocator.ts';
import type { RangeAllocation } from './stored-bitmap.ts';

describe('IP ranges', () => {
  it('counts the addresses between the network and broadcast addresses, as upstream', () => {
    const range = parseIPRange('10.0.0.0/24');
    assert.ok(range);
    assert.equal(range.size, 254);
    assert.equal(staticBandSize(range), 16);
    assert.equal(parseIPRange('10.0.0.5/24')?.cidr, '10.0.0.0/24');
    assert.equal(parseIPRange('fd00::/112')?.size, 65535);
    assert.equal(parseIPRange('fd00::/64')?.size, 65536);
    assert.equal(parseIPRange('10.0.0.0/32'), null);
    assert.equal(parseIPRange('nonsense'), null);
  });

  it('converts addresses to numbers and back', () => {
    assert.equal(bigIntToIP(ipToBigInt('10.0.0.1'), 4), '10.0.0.1');
    assert.equal(bigIntToIP(ipToBigInt('fd00::1'), 6), 'fd00::1');
    assert.equal(bigIntToIP(ipToBigInt('2001:db8:0:0:1:0:0:1'), 6), '2001:db8::1:0:0:1');
  });
});

describe('ClusterIPAllocator', () => {
  it('gives the kubernetes service the first address and keeps the bitmap in storage under ranges/serviceips', async () => {
    const storage = new MemoryEtcd();
    const allocator = new ClusterIPAllocator(storage, '10.0.0.0/24');
    assert.equal(allocator.firstAddress(), '10.0.0.1');
    await allocator.allocate('10.0.0.1');
    const stored = await storage.get('/registry/ranges/serviceips');
    const range = stored?.object as RangeAllocation;
    assert.equal(range.kind, 'RangeAllocation');
    assert.equal(range.range, '10.0.0.0/24');
    // bit 0 set: upstream's big-endian big.Int bytes, base64
    assert.equal(range.data, Buffer.from([1]).toString('base64'));
  });

  it('refuses a taken address and one outside the range with upstream words', async () => {
    const allocator = new ClusterIPAllocator(new MemoryEtcd(), '10.0.0.0/24');
    await allocator.allocate('10.0.0.10');
    await assert.rejects(allocator.allocate('10.0.0.10'), { message: 'provided IP is already allocated' });
    await assert.rejects(allocator.check('10.0.0.10'), { message: 'provided IP is already allocated' });
    await assert.rejects(allocator.allocate('10.1.1.1'), {
      message: 'the provided IP (10.1.1.1) is not in the valid range. The range of valid IPs is 10.0.0.0/24',
    });
    await assert.rejects(allocator.allocate('10.0.0.255'), /not in the valid range/);
    await allocator.release('10.0.0.10');
    await allocator.allocate('10.0.0.10');
  });

  it('allocates above the static band first, then inside it, then reports a full range', async () => {
    const allocator = new ClusterIPAllocator(new MemoryEtcd(), '10.0.0.0/27');
    const taken = new Set<string>();
    for (let i = 0; i < 30; i++) taken.add(await allocator.allocateNext());
    assert.equal(taken.size, 30);
    await assert.rejects(allocator.allocateNext(), { message: 'range is full' });
    const upper = new ClusterIPAllocator(new MemoryEtcd(), '10.0.0.0/24');
    for (let i = 0; i < 20; i++) assert.ok(Number((await upper.allocateNext()).split('.')[3]) > 16);
  });

  it('never hands out one address twice to allocators racing on one storage (compare-and-swap)', async () => {
    const storage = new MemoryEtcd();
    const replicas = [new ClusterIPAllocator(storage, '10.0.0.0/26'), new ClusterIPAllocator(storage, '10.0.0.0/26')];
    const results = await Promise.all(Array.from({ length: 62 }, (_, i) => replicas[i % 2]!.allocateNext()));
    assert.equal(new Set(results).size, 62);
    await assert.rejects(replicas[0]!.allocateNext(), { message: 'range is full' });
    await replicas[0]!.release('10.0.0.5');
    const same = await Promise.allSettled([replicas[0]!.allocate('10.0.0.5'), replicas[1]!.allocate('10.0.0.5')]);
    assert.deepEqual(same.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    assert.equal(await replicas[1]!.isAllocated('10.0.0.5'), true);
  });
});

describe('NodePortAllocator', () => {
  it('parses ranges and allocates inside them with upstream words', async () => {
    assert.deepEqual(parsePortRange('30000-32767'), { base: 30000, size: 2768 });
    assert.equal(parsePortRange('3-1'), null);
    const allocator = new NodePortAllocator(new MemoryEtcd(), { base: 30000, size: 2768 });
    await allocator.allocate(30080);
    await assert.rejects(allocator.allocate(30080), { message: 'provided port is already allocated' });
    await assert.rejects(allocator.allocate(80), { message: 'provided port is not in the valid range. The range of valid ports is 30000-32767' });
    const next = await allocator.allocateNext();
    assert.ok(next >= 30000 + 86 && next <= 32767);
  });
});
