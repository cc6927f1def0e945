/**
 * The storage backends side by side, through the `Storage` interface the generic store uses:
 * the embedded backend (LMDB) beside etcd, in the same run. Creates, gets and lists of `count`
 * ConfigMaps of `--data-bytes`, and the latency from a write to its watch event.
 *
 * Usage: npx tsx bench/storage.ts [--count N] [--concurrency C] [--data-bytes B] [--timeout SECONDS] [--keep]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEtcd } from '../shared/etcd/process.ts';
import type { KubeObject } from '../shared/api/types.ts';
import { EmbeddedStore } from '../apiserver/storage/embedded/store.ts';
import { connectEtcd, EtcdStore } from '../apiserver/storage/etcd/store.ts';
import type { Storage } from '../apiserver/storage/storage.ts';
import { benchMain, positiveInt } from './cli.ts';
import { configMapData, fixed, formatTable, runPool, summarize, type Cleanup } from './lib.ts';

const usage = `Usage: npx tsx bench/storage.ts [flags]
  --count N           objects created, then read one by one (default 10000)
  --concurrency C     operations in flight (default 32)
  --data-bytes B      bytes of ConfigMap data (default 2048)
  --timeout SECONDS   abort the whole run after this long (default 600)
  --keep              keep the temp dir
`;

interface Options {
  count: number;
  concurrency: number;
  dataBytes: number;
  timeoutMs: number;
  keep: boolean;
}

function parse(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      count: { type: 'string', default: '10000' },
      concurrency: { type: 'string', default: '32' },
      'data-bytes': { type: 'string', default: '2048' },
      timeout: { type: 'string', default: '600' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    count: positiveInt(values.count, 'count'),
    concurrency: positiveInt(values.concurrency, 'concurrency'),
    dataBytes: positiveInt(values['data-bytes'], 'data-bytes'),
    timeoutMs: positiveInt(values.timeout, 'timeout') * 1000,
    keep: values.keep,
  };
}

interface Figures {
  createsPerSecond: number;
  getsPerSecond: number;
  listMs: number;
  watchP50Ms: number;
  watchP99Ms: number;
}

const configMap = (name: string, data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});

async function measure(storage: Storage, opts: Options): Promise<Figures> {
  const data = configMapData(opts.dataBytes);
  const key = (i: number): string => storage.key('configmaps', 'default', `cm-${i}`);
  const creates = await runPool(opts.count, opts.concurrency, async (i) => void (await storage.create(key(i), configMap(`cm-${i}`, data))));
  if (creates.errors) throw new Error(`creates failed: ${creates.firstError}`);
  const gets = await runPool(opts.count, opts.concurrency, async (i) => {
    if (!(await storage.get(key(i)))) throw new Error(`cm-${i} is missing`);
  });
  if (gets.errors) throw new Error(`gets failed: ${gets.firstError}`);
  const listStart = performance.now();
  const listed = await storage.range(storage.collectionPrefix('configmaps', 'default'));
  const listMs = performance.now() - listStart;
  if (listed.count !== opts.count) throw new Error(`listed ${listed.count} of ${opts.count}`);

  // Write-to-event latency: one write at a time, each awaited as its event arrives.
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  let arrived: (() => void) | undefined;
  const watch = await storage.watch(storage.collectionPrefix('watched'), (await storage.currentRevision()) + 1, {
    onEvents: (events) => {
      for (const event of events) {
        const at = sent.get(event.key);
        if (at !== undefined) latencies.push(performance.now() - at);
      }
      arrived?.();
    },
    onError: () => undefined,
  });
  for (let i = 0; i < 500; i++) {
    const k = storage.key('watched', undefined, `w-${i}`);
    const event = new Promise<void>((resolve) => (arrived = resolve));
    sent.set(k, performance.now());
    await storage.create(k, { metadata: { name: `w-${i}` } });
    await event;
  }
  await watch.cancel();
  latencies.sort((a, b) => a - b);
  return {
    createsPerSecond: summarize(creates).opsPerSec,
    getsPerSecond: summarize(gets).opsPerSec,
    listMs,
    watchP50Ms: latencies[Math.floor(latencies.length / 2)] ?? NaN,
    watchP99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
  };
}

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-storage-'));
  if (!opts.keep) cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const etcd = await startEtcd({ dataDir: join(dir, 'etcd') });
  cleanup.push(() => etcd.stop());
  const client = connectEtcd({ endpoints: etcd.endpoints });
  cleanup.push(() => client.close());
  const embedded = new EmbeddedStore(join(dir, 'db'));
  cleanup.push(() => embedded.close());

  const etcdFigures = await measure(new EtcdStore(client, '/registry'), opts);
  const embeddedFigures = await measure(embedded, opts);
  const row = (name: string, pick: (f: Figures) => number, digits: number, higherIsBetter: boolean): string[] => {
    const e = pick(etcdFigures);
    const m = pick(embeddedFigures);
    return [name, fixed(e, digits), fixed(m, digits), `${fixed(higherIsBetter ? m / e : e / m, 2)}x`];
  };
  process.stdout.write(
    `\n${opts.count} ConfigMaps of ${opts.dataBytes} bytes at concurrency ${opts.concurrency}; ratio: how many times better the embedded backend is\n\n` +
      formatTable(
        ['figure', 'etcd', 'embedded', 'ratio'],
        [
          row('creates/s', (f) => f.createsPerSecond, 0, true),
          row('gets/s', (f) => f.getsPerSecond, 0, true),
          row(`list of ${opts.count} ms`, (f) => f.listMs, 1, false),
          row('write → watch event p50 ms', (f) => f.watchP50Ms, 2, false),
          row('write → watch event p99 ms', (f) => f.watchP99Ms, 2, false),
        ],
      ) +
      '\n',
  );
  return true;
}

void benchMain(usage, parse, run);
