/**
 * `corral migrate`'s flags and the configuration they make. One store to copy from and one to copy
 * into, each named by one flag: a data dir (its embedded store, `<dir>/db`) or etcd client URLs.
 * A bad command line is reported whole (FlagReader), before anything is opened.
 */
import { resolve } from 'node:path';
import { FlagReader, type FlagSpec, type ParsedFlags } from '../../../shared/process/flags.ts';

export type StoreLocation = { kind: 'embedded'; dataDir: string } | { kind: 'etcd'; endpoints: string[] };

export interface MigrateConfig {
  from: StoreLocation;
  to: StoreLocation;
  /** The key prefix copied, without a trailing slash (`/registry`): the API server's --etcd-prefix. */
  prefix: string;
  /** Copy into a target that has keys under the prefix already, overwriting those the source has. */
  force: boolean;
  /** Compact the target's history at its revision once the copy is done. */
  compact: boolean;
  /** Keys read a page, and written at once. */
  batchSize: number;
  etcdRequestTimeoutMs: number;
}

export const flags: Record<string, FlagSpec> = {
  'from-data-dir': { type: 'string', help: 'Copy the embedded store of this data dir (<dir>/db). No API server may run on it.' },
  'from-etcd-servers': { type: 'string', help: 'Copy this etcd instead: comma separated client URLs. Stop the API servers on it first.' },
  'to-data-dir': { type: 'string', help: 'Copy into the embedded store of this data dir (<dir>/db, made if absent).' },
  'to-etcd-servers': { type: 'string', help: 'Copy into this etcd instead: comma separated client URLs.' },
  'etcd-prefix': { type: 'string', default: '/registry', help: "Key prefix of the keys copied: the API server's --etcd-prefix." },
  force: {
    type: 'bool',
    default: 'false',
    help: 'Copy even when the target has keys under the prefix (refused otherwise): keys the source has are overwritten, the others stay.',
  },
  compact: {
    type: 'bool',
    default: 'true',
    help: "Compact the target's history once the copy is done, so that a watch or list from a resourceVersion of before the copy gets 410 Gone. etcd compacts every key, not only the prefix's: set false for an etcd shared with other clusters.",
  },
  'batch-size': { type: 'string', default: '500', help: 'Keys read a page and written at once.' },
  'etcd-request-timeout': { type: 'string', default: '10s', help: 'Deadline of one etcd call.' },
  help: { type: 'boolean', help: 'Print this help.' },
};

/** The largest --batch-size: a page of that many 1.5 MiB objects is what one process can hold. */
const maxBatchSize = 10_000;

/** The store one side names (`from` or `to`): exactly one of its two flags. */
function location(r: FlagReader, side: 'from' | 'to'): StoreLocation | undefined {
  const dataFlag = `${side}-data-dir`;
  const etcdFlag = `${side}-etcd-servers`;
  const dataDir = r.string(dataFlag);
  const servers = r.string(etcdFlag);
  const what = side === 'from' ? 'the store to copy' : 'the store to copy into';
  if (dataDir !== undefined && servers !== undefined) {
    r.errors.push(`--${dataFlag} and --${etcdFlag} exclude each other: give one, ${what}`);
    return undefined;
  }
  if (dataDir !== undefined) return { kind: 'embedded', dataDir: resolve(dataDir) };
  if (servers === undefined) {
    r.errors.push(`one of --${dataFlag} and --${etcdFlag} is required: ${what}`);
    return undefined;
  }
  const endpoints = r.list(etcdFlag);
  for (const endpoint of endpoints) {
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch {
      url = undefined;
    }
    r.require(
      url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:'),
      `--${etcdFlag} ${JSON.stringify(endpoint)} is not an http:// or https:// URL`,
    );
  }
  if (!endpoints.length) r.errors.push(`--${etcdFlag} names no URL`);
  return { kind: 'etcd', endpoints };
}

/** Whether two locations are one store (the same data dir, or the same etcd URLs in any order). */
function sameStore(a: StoreLocation, b: StoreLocation): boolean {
  if (a.kind === 'embedded' && b.kind === 'embedded') return a.dataDir === b.dataDir;
  if (a.kind === 'etcd' && b.kind === 'etcd') return a.endpoints.some((url) => b.endpoints.includes(url));
  return false;
}

/** The configuration the flags describe; throws one Error listing every problem. */
export function migrateConfig(values: ParsedFlags): MigrateConfig {
  const r = new FlagReader(values);
  const from = location(r, 'from');
  const to = location(r, 'to');
  if (from && to) r.require(!sameStore(from, to), 'the source and the target are the same store');
  const batchSize = r.integer('batch-size', '500');
  r.require(batchSize >= 1 && batchSize <= maxBatchSize, `--batch-size ${batchSize} must be between 1 and ${maxBatchSize}, inclusive`);
  const config = {
    prefix: (r.string('etcd-prefix') ?? '/registry').replace(/\/+$/, ''),
    force: r.bool('force', false),
    compact: r.bool('compact', true),
    batchSize,
    etcdRequestTimeoutMs: r.positiveDuration('etcd-request-timeout', '10s'),
  };
  r.finish();
  if (!from || !to) throw new Error('unreachable: a missing store is a flag error');
  return { from, to, ...config };
}
