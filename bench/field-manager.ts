/**
 * The field manager's cost on the updates that dominate a cluster's writes: a node renewing its
 * Lease (only spec.renewTime changes, a field the node alone owns), and a controller rewriting one
 * key of a 100-key ConfigMap it owns. Each is recorded with the shortcut for owned updates
 * (apiserver/registry/owned-update.ts, what the API server runs) and in full (the baseline), in
 * process, rounds interleaved; the table shows each one's median CPU time per update and the ratio.
 *
 * Usage: npx tsx bench/field-manager.ts [--updates N] [--rounds R]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { deepCopy, type KubeObject } from '../shared/api/types.ts';
import { leaseDefinition } from '../apiserver/registry/coordination/lease.ts';
import { configMapDefinition } from '../apiserver/registry/core/configmap.ts';
import type { ResourceDefinition } from '../apiserver/registry/definition.ts';
import type { FieldManager, FieldManagerRequest } from '../apiserver/registry/field-manager.ts';
import { createFieldManager } from '../apiserver/registry/managed-fields.ts';
import { parseCommandLine, positiveInt } from './cli.ts';
import { fixed, formatTable, loadAverageAtStart } from './lib.ts';

const usage = `Usage: npx tsx bench/field-manager.ts [flags]
  --updates N   updates per series and round (default 20000)
  --rounds R    measured rounds, interleaved; the table shows medians (default 7)
`;

interface Options {
  updates: number;
  rounds: number;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: { updates: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '7' }, help: { type: 'boolean' } },
  });
  if (values.help) return undefined;
  return { updates: positiveInt(values.updates, '--updates'), rounds: positiveInt(values.rounds, '--rounds') };
}

interface Series {
  name: string;
  definition: ResourceDefinition;
  manager: string;
  /** The object as created, and the n-th rewrite of it. */
  created: KubeObject;
  rewrite: (live: KubeObject, n: number) => KubeObject;
}

const request = (s: Series, n: number): FieldManagerRequest => ({
  definition: s.definition,
  manager: s.manager,
  subresource: '',
  now: new Date(Date.UTC(2026, 0, 1) + n * 1000),
});

const series: Series[] = [
  {
    name: 'lease renewal',
    definition: leaseDefinition,
    manager: 'kubelet',
    created: {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'n1', namespace: 'kube-node-lease', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' }] },
      spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000000Z' },
    },
    rewrite: (live, n) => ({
      ...live,
      spec: { ...(live['spec'] as object), renewTime: new Date(Date.UTC(2026, 0, 1) + n * 10_000).toISOString().replace('Z', '000Z') },
    }),
  },
  {
    name: 'one key of a 100-key ConfigMap',
    definition: configMapDefinition,
    manager: 'controller',
    created: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: 'default', labels: { app: 'web' } },
      data: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`key-${i}`, 'v0'])),
    },
    rewrite: (live, n) => ({ ...live, data: { ...(live['data'] as Record<string, string>), [`key-${n % 100}`]: `v${n}` } }),
  },
];

/** CPU milliseconds of this process for `updates` rewrites of the series' object through `fm`. */
async function measure(fm: FieldManager, s: Series, stored: KubeObject, updates: number): Promise<number> {
  const started = process.cpuUsage();
  let live = stored;
  for (let n = 1; n <= updates; n++) {
    const next = await fm.update(live, s.rewrite(live, n), request(s, n));
    live = { ...next, metadata: { ...next.metadata, resourceVersion: String(n + 1) } };
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function main(): Promise<void> {
  const opts = parseCommandLine(usage, parseOptions);
  if (!opts) return void process.stdout.write(usage);
  const load = loadavg();
  const shortcut = createFieldManager();
  const full = createFieldManager({ ownedUpdates: false });
  const rows: string[][] = [];
  for (const s of series) {
    const created = await full.update(null, deepCopy(s.created), request(s, 0));
    const stored = { ...created, metadata: { ...created.metadata, uid: 'uid-1', resourceVersion: '1' } };
    const withShortcut: number[] = [];
    const inFull: number[] = [];
    await measure(shortcut, s, stored, opts.updates / 10);
    await measure(full, s, stored, opts.updates / 10);
    for (let r = 0; r < opts.rounds; r++) {
      withShortcut.push(await measure(shortcut, s, stored, opts.updates));
      inFull.push(await measure(full, s, stored, opts.updates));
    }
    const perUpdate = (ms: number): number => (ms * 1000) / opts.updates;
    const a = perUpdate(median(withShortcut));
    const b = perUpdate(median(inFull));
    rows.push([s.name, fixed(b, 1), fixed(a, 1), fixed(a / b, 2)]);
  }
  process.stdout.write(
    `field manager, CPU µs per update (median of ${opts.rounds} rounds of ${opts.updates}); ${cpus().length} CPUs, ${loadAverageAtStart(load)}\n\n` +
      formatTable(['update', 'in full (baseline)', 'with the shortcut', 'shortcut / baseline'], rows) +
      '\n',
  );
}

await main();
