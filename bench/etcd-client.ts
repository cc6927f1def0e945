/**
 * The store's calls to etcd through the etcd3 library (the baseline: the client the store used
 * before) and through the store's own client (apiserver/storage/etcd/kv-client.ts, watch.ts),
 * against a real etcd, in alternating rounds; each table shows the median CPU time of this process
 * per operation, the rate, and the ratios. etcd's own CPU is not counted: it does the same work for
 * both.
 * - Writes: a compare-and-swap of a Lease-sized value (what every lease renewal sends), from 32
 *   writers at once.
 * - Watch events: a watch from before that many Lease updates, read until it has them all (etcd
 *   sends them in responses of up to 1,000), each turned into the store's change (key, value and
 *   revision as the store reads them).
 *
 * Usage: npx tsx bench/etcd-client.ts [--writes N] [--rounds R] [--keep]
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { startEtcd } from '../shared/etcd/process.ts';
import { connectEtcd, prefixEnd, type EtcdClient } from '../apiserver/storage/etcd/store.ts';
import type { StoredChange } from '../apiserver/storage/changes.ts';
import { watchEtcd } from '../apiserver/storage/etcd/watch.ts';
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
  /** CPU µs of this process per operation: a write, or a watch event. */
  cpuUsPerOperation: number;
  operationsPerSecond: number;
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
  return { cpuUsPerOperation: (used.user + used.system) / started, operationsPerSecond: (started * 1000) / (performance.now() - wall) };
}

/** Reads every change of `prefix` from `fromRevision` through `toRevision`; resolves once it has them. */
type WatchUntil = (prefix: string, fromRevision: number, toRevision: number) => Promise<number>;

function watchViaEtcd3(client: EtcdClient): WatchUntil {
  return async (prefix, fromRevision, toRevision) => {
    const watcher = await client.watch().prefix(prefix).startRevision(String(fromRevision)).create();
    let count = 0;
    await new Promise<void>((resolve) =>
      watcher.on('data', (res) => {
        for (const e of res.events) {
          // As the store turned etcd3's events into changes.
          const change: StoredChange = {
            key: e.kv.key.toString('utf8'),
            revision: Number(e.kv.mod_revision),
            value: e.kv.value.toString('utf8'),
            previous: 'held',
          };
          count++;
          if (change.revision >= toRevision) resolve();
        }
      }),
    );
    await watcher.cancel();
    return count;
  };
}

function watchViaStoreClient(client: EtcdClient): WatchUntil {
  return async (prefix, fromRevision, toRevision) => {
    let count = 0;
    let stop = (): void => {};
    const reached = new Promise<void>((resolve) => (stop = resolve));
    const watch = watchEtcd(
      client,
      prefix,
      fromRevision,
      {
        onChanges: (changes) => {
          count += changes.length;
          if (changes[changes.length - 1]!.revision >= toRevision) stop();
        },
        onCancel: (err) => console.error(err),
      },
      false,
    );
    await reached;
    await watch.cancel();
    return count;
  };
}

/** One watch of `events` changes: this process's CPU per event and events per second. */
async function watchRound(watch: WatchUntil, prefix: string, fromRevision: number, toRevision: number): Promise<Round> {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const count = await watch(prefix, fromRevision, toRevision);
  const used = process.cpuUsage(cpu);
  return { cpuUsPerOperation: (used.user + used.system) / count, operationsPerSecond: (count * 1000) / (performance.now() - wall) };
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
  // The watches read the writes of one more round, made once: every round reads the same history.
  const prefix = '/registry/leases/kube-node-lease/';
  const { revision: before } = await client.kvCalls.range({ key: Buffer.from(prefix), rangeEnd: prefixEnd(prefix), countOnly: true });
  await round(clients[1]![1], keys, revisions, opts.writes);
  const { revision: after } = await client.kvCalls.range({ key: Buffer.from(prefix), rangeEnd: prefixEnd(prefix), countOnly: true });
  const watches: [string, WatchUntil][] = [
    ['etcd3 and grpc-js (baseline)', watchViaEtcd3(client)],
    ['the store’s watch', watchViaStoreClient(client)],
  ];
  for (const [, watch] of watches) await watchRound(watch, prefix, before + 1, after);
  const watchResults = watches.map((): Round[] => []);
  for (let r = 0; r < opts.rounds; r++) {
    for (let c = 0; c < watches.length; c++) watchResults[c]!.push(await watchRound(watches[c]![1], prefix, before + 1, after));
  }
  const table = (names: string[], rounds: Round[][], what: string): string => {
    const cpu = rounds.map((r) => median(r.map((x) => x.cpuUsPerOperation)));
    const rate = rounds.map((r) => median(r.map((x) => x.operationsPerSecond)));
    const rows = names.map((name, c) => [name, fixed(cpu[c]!, 1), fixed(cpu[c]! / cpu[0]!, 2), fixed(rate[c]!, 0), fixed(rate[c]! / rate[0]!, 2)]);
    return formatTable(['client', `CPU µs per ${what}`, '/ baseline', `${what}s per second`, '/ baseline'], rows);
  };
  process.stdout.write(
    `a Lease-sized compare-and-swap, ${writers} writers, median of ${opts.rounds} rounds of ${opts.writes}; ${cpus().length} CPUs, ${loadAverageAtStart(load)}\n\n` +
      table(
        clients.map(([name]) => name),
        results,
        'write',
      ) +
      `\n\na watch reading ${after - before} Lease updates from etcd's history, median of ${opts.rounds} rounds\n\n` +
      table(
        watches.map(([name]) => name),
        watchResults,
        'event',
      ) +
      '\n',
  );
  return true;
}

await benchMain(usage, parse, run);
