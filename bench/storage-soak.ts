/**
 * The embedded store over time (issue 13, item 7): a store of `--objects` ConfigMaps churned by
 * updates, deletes and re-creates in rounds, compacted after each round to the revision one round
 * earlier (as the compactor keeps one interval of history), while one writer measures how long
 * its writes wait. Then the size of the file beside the live data, and a restart: opening the
 * store and filling the API server's watch cache from it.
 *
 * A compaction that leaves the file mostly free pages is followed by the store copying itself into
 * a smaller file while the writer goes on (EmbeddedStore.shrink).
 *
 * Figures: the longest compaction step, write latency p50/p99/max during compactions beside the
 * same writer's without one, the file over the live bytes after each compaction (the largest),
 * the copies and the longest pause of writes they made, the pages in use over the live bytes, and
 * the restart time.
 *
 * Usage: npx tsx bench/storage-soak.ts [--objects N] [--rounds R] [--churn C] [--data-bytes B] [--timeout SECONDS] [--keep]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { KubeObject } from '../shared/api/types.ts';
import { WatchCache } from '../apiserver/storage/cache/watch-cache.ts';
import { embeddedCacheFeed } from '../apiserver/storage/embedded/cache-feed.ts';
import { EmbeddedStore, type CompactionStats } from '../apiserver/storage/embedded/store.ts';
import { benchMain, positiveInt } from './cli.ts';
import { configMapData, fixed, formatTable, mib, runPool, type Cleanup } from './lib.ts';

const usage = `Usage: npx tsx bench/storage-soak.ts [flags]
  --objects N         live ConfigMaps (default 100000)
  --rounds R          churn rounds, each followed by a compaction (default 5)
  --churn C           writes per round: updates, deletes and re-creates (default 30000)
  --data-bytes B      bytes of ConfigMap data (default 2048)
  --timeout SECONDS   abort the whole run after this long (default 900)
  --keep              keep the temp dir
`;

interface Options {
  objects: number;
  rounds: number;
  churn: number;
  dataBytes: number;
  timeoutMs: number;
  keep: boolean;
}

function parse(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      objects: { type: 'string', default: '100000' },
      rounds: { type: 'string', default: '5' },
      churn: { type: 'string', default: '30000' },
      'data-bytes': { type: 'string', default: '2048' },
      timeout: { type: 'string', default: '900' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    objects: positiveInt(values.objects, 'objects'),
    rounds: positiveInt(values.rounds, 'rounds'),
    churn: positiveInt(values.churn, 'churn'),
    dataBytes: positiveInt(values['data-bytes'], 'data-bytes'),
    timeoutMs: positiveInt(values.timeout, 'timeout') * 1000,
    keep: values.keep,
  };
}

const configMap = (name: string, data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});

/** One writer updating one object in a loop until stopped, recording each write's latency (ms). */
function probeWriter(store: EmbeddedStore, data: Record<string, string>): { stop: () => Promise<number[]> } {
  const key = store.key('configmaps', 'probe', 'writer');
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const start = performance.now();
      await store.guaranteedUpdate(key, () => ({ action: 'put', object: configMap('writer', { ...data, i: String(i) }) }));
      latencies.push(performance.now() - start);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return latencies.sort((a, b) => a - b);
    },
  };
}

const at = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-soak-'));
  if (!opts.keep) cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'db');
  let store = new EmbeddedStore(path);
  cleanup.push(() => store.close());
  const data = configMapData(opts.dataBytes);
  const key = (i: number): string => store.key('configmaps', 'default', `cm-${i}`);
  const created = await runPool(opts.objects, 64, async (i) => void (await store.create(key(i), configMap(`cm-${i}`, data))));
  if (created.errors) throw new Error(`creates failed: ${created.firstError}`);
  process.stderr.write(`created ${opts.objects} objects\n`);

  // The writer alone: its latency without a compaction running.
  const alone = probeWriter(store, data);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const baseline = await alone.stop();

  const during: number[] = [];
  const compactions: CompactionStats[] = [];
  // The file over the live data after each compaction (and the copy that may follow it).
  const fileAfterCompaction: number[] = [];
  let keptFrom = await store.currentRevision();
  let seed = 1;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let round = 0; round < opts.rounds; round++) {
    const churned = await runPool(opts.churn, 64, async () => {
      const i = random(opts.objects);
      const op = random(10);
      await store.guaranteedUpdate(key(i), (current) =>
        op === 0 && current ? { action: 'delete' } : { action: 'put', object: configMap(`cm-${i}`, { ...data, round: String(round) }) },
      );
    });
    if (churned.errors) throw new Error(`churn failed: ${churned.firstError}`);
    const target = keptFrom;
    keptFrom = await store.currentRevision();
    const probe = probeWriter(store, data);
    compactions.push(await store.compact(target));
    fileAfterCompaction.push(store.sizeBytes() / store.liveBytes());
    during.push(...(await probe.stop()));
    process.stderr.write(`round ${round + 1}: compacted to ${target}\n`);
  }
  // Everything but the newest records: the size the store settles at.
  const final = await store.compact(await store.currentRevision());
  compactions.push(final);
  fileAfterCompaction.push(store.sizeBytes() / store.liveBytes());
  during.sort((a, b) => a - b);
  const live = store.liveBytes();
  const file = store.sizeBytes();
  const inUse = store.bytesInUse();
  const objects = (await store.range(store.collectionPrefix('configmaps', 'default'), { limit: 1 })).count;
  await store.close();

  // Restart: open the store, shrink its file if it is mostly free pages, and fill the watch
  // cache, as the API server's start does.
  const restartStart = performance.now();
  store = new EmbeddedStore(path);
  const shrunk = await store.shrink();
  const cache = new WatchCache(embeddedCacheFeed(store), '/registry', () => undefined);
  await cache.start();
  const restartMs = performance.now() - restartStart;
  const cached = cache.resource('configmaps').size;
  await cache.stop();

  const longestStep = Math.max(...compactions.map((c) => c.longestStepMs));
  const steps = compactions.reduce((n, c) => n + c.steps, 0);
  const dropped = compactions.reduce((n, c) => n + c.dropped, 0);
  const copies = compactions.flatMap((c) => (c.shrunk ? [c.shrunk] : []));
  process.stdout.write(
    `\n${opts.objects} ConfigMaps of ${opts.dataBytes} bytes; ${opts.rounds} rounds of ${opts.churn} writes, each compacted to the round before\n\n` +
      formatTable(
        ['figure', 'value'],
        [
          ['compactions / steps / records dropped', `${compactions.length} / ${steps} / ${dropped}`],
          ['longest compaction step ms', fixed(longestStep, 1)],
          ['write ms p50 / p99 / max, no compaction', `${fixed(at(baseline, 0.5), 2)} / ${fixed(at(baseline, 0.99), 2)} / ${fixed(at(baseline, 1), 2)}`],
          ['write ms p50 / p99 / max, during compactions', `${fixed(at(during, 0.5), 2)} / ${fixed(at(during, 0.99), 2)} / ${fixed(at(during, 1), 2)}`],
          [
            'copies into a smaller file / longest pause of writes ms',
            `${copies.length} / ${copies.length ? fixed(Math.max(...copies.map((c) => c.pauseMs)), 1) : '-'}`,
          ],
          ['file / live after each compaction', fileAfterCompaction.map((ratio) => `${fixed(ratio, 2)}x`).join(' ')],
          ['live objects / live bytes', `${objects} / ${mib(live)}`],
          ['file / live at the end', `${mib(file)} / ${fixed(file / live, 2)}x`],
          ['pages in use / live', `${mib(inUse)} / ${fixed(inUse / live, 2)}x`],
          ['file after the restart / live', shrunk ? `${mib(shrunk.toBytes)} / ${fixed(shrunk.toBytes / live, 2)}x` : 'not copied'],
          [`restart: open, shrink, watch cache of ${cached} ms`, fixed(restartMs, 0)],
        ],
      ) +
      '\n',
  );
  return true;
}

void benchMain(usage, parse, run);
