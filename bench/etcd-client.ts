/**
 * The store's write to etcd, a compare-and-swap of a Lease-sized value (what every lease renewal
 * sends), through the etcd3 library (the baseline: the client the store used before) and through
 * the store's own KV client (apiserver/storage/etcd/kv-client.ts), from 32 writers at once against
 * a real etcd. Rounds alternate between the two; the table shows each one's median CPU time of this
 * process per write, its writes per second, and the ratios. etcd's own CPU is not counted: it does
 * the same work for both.
 *
 * Usage: npx tsx bench/etcd-client.ts [--writes N] [--rounds R] [--keep]
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { startEtcd } from '../shared/etcd/process.ts';
import { connectEtcd, type EtcdClient } from '../apiserver/storage/etcd/store.ts';
import { benchMain, keepFlag, positiveInt } from './cli.ts';
import { fixed, formatTable, loadAverageAtStart, type Cleanup } from './lib.ts';

const usage = `Usage: npx tsx bench/etcd-client.ts [flags]
  --writes N    writes per client and round (default 20000)
  --rounds R    measured rounds of each client, interleaved; the table shows medians (default 5)
  --keep        keep the temp dir (etcd's data)
`;

interface Options {
  writes: number;
  rounds: number;
  keep: boolean;
  timeoutMs: number;
}

function parse(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: { writes: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '5' }, ...keepFlag, help: { type: 'boolean' } },
  });
  if (values.help) return undefined;
  return { writes: positiveInt(values.writes, 'writes'), rounds: positiveInt(values.rounds, 'rounds'), keep: values.keep, timeoutMs: 600_000 };
}

/** Writers at once: an API server replica's writes in flight under load. */
const writers = 32;

/** One compare-and-swap of `key` from `modRevision` to the stored text `value`; resolves to the new revision. */
type Write = (key: Buffer, value: string, modRevision: number) => Promise<number>;

function viaEtcd3(client: EtcdClient): Write {
  return async (key, value, modRevision) => {
    const res = await client.kv.txn({
      compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: modRevision }],
      // etcd3 takes the value as bytes, as the store once made them from the stored text.
      success: [{ request_put: { key, value: Buffer.from(value) } }],
      failure: [{ request_range: { key } }],
    });
    if (!res.succeeded) throw new Error(`lost the compare on ${key.toString()}`);
    return Number(res.header.revision);
  };
}

function viaKvClient(client: EtcdClient): Write {
  return async (key, value, modRevision) => {
    const res = await client.kvCalls.txn({ compare: [{ key, modRevision }], success: [{ put: { key, value } }], failure: [{ range: { key } }] });
    if (!res.succeeded) throw new Error(`lost the compare on ${key.toString()}`);
    return res.revision;
  };
}

const leaseValue = (n: number): string =>
  JSON.stringify({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: `node-${n}`, namespace: 'kube-node-lease', uid: '5c1e1f0e-2b1d-4f4e-9a53-2f3c7d1e0a11', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { holderIdentity: `node-${n}`, leaseDurationSeconds: 40, renewTime: new Date(Date.UTC(2026, 0, 1) + n).toISOString().replace('Z', '000Z') },
  });

interface Round {
  cpuUsPerWrite: number;
  writesPerSecond: number;
}

/** `writes` writes by `writers` concurrent writers, each on a key of its own. */
async function round(write: Write, keys: Buffer[], revisions: number[], writes: number): Promise<Round> {
  let started = 0;
  const cpu = process.cpuUsage();
  const wall = performance.now();
  await Promise.all(
    keys.map(async (key, i) => {
      while (started < writes) {
        started++;
        revisions[i] = await write(key, leaseValue(started), revisions[i]!);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { cpuUsPerWrite: (used.user + used.system) / started, writesPerSecond: (started * 1000) / (performance.now() - wall) };
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  const load = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-etcd-client-'));
  if (!opts.keep) cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const etcd = await startEtcd({ dataDir: join(dir, 'etcd') });
  cleanup.push(() => etcd.stop());
  const client = connectEtcd({ endpoints: etcd.endpoints });
  cleanup.push(() => client.close());
  const keys = Array.from({ length: writers }, (_, i) => Buffer.from(`/registry/leases/kube-node-lease/node-${i}`));
  const revisions = keys.map(() => 0);
  const clients: [string, Write][] = [
    ['etcd3 and grpc-js (baseline)', viaEtcd3(client)],
    ['the store’s KV client', viaKvClient(client)],
  ];
  // Warm-up: every key exists, both clients are connected and compiled.
  for (const [, write] of clients) await round(write, keys, revisions, opts.writes / 4);
  const results = clients.map((): Round[] => []);
  for (let r = 0; r < opts.rounds; r++) {
    for (let c = 0; c < clients.length; c++) results[c]!.push(await round(clients[c]![1], keys, revisions, opts.writes));
  }
  const cpu = results.map((rounds) => median(rounds.map((x) => x.cpuUsPerWrite)));
  const rate = results.map((rounds) => median(rounds.map((x) => x.writesPerSecond)));
  const rows = clients.map(([name], c) => [name, fixed(cpu[c]!, 1), fixed(cpu[c]! / cpu[0]!, 2), fixed(rate[c]!, 0), fixed(rate[c]! / rate[0]!, 2)]);
  process.stdout.write(
    `a Lease-sized compare-and-swap, ${writers} writers, median of ${opts.rounds} rounds of ${opts.writes}; ${cpus().length} CPUs, ${loadAverageAtStart(load)}\n\n` +
      formatTable(['client', 'CPU µs per write', '/ baseline', 'writes per second', '/ baseline'], rows) +
      '\n',
  );
  return true;
}

await benchMain(usage, parse, run);
