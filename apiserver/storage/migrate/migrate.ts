/**
 * One migration: open the source, then the target (each refusing what it must: a locked embedded
 * store, an unreachable etcd), copy, compact the target's history at its new revision, close
 * both. The compaction makes every resourceVersion of before the copy (a client's watch, list or
 * continue token) a 410 Gone at the new store, rather than a read of a half-copied past.
 */
import type { MigrateConfig, StoreLocation } from './config.ts';
import { copyKeys, type CopyReport } from './copy.ts';
import { openEmbeddedSource, openEmbeddedTarget } from './embedded.ts';
import type { MigrationSource, MigrationTarget } from './endpoint.ts';
import { openEtcdSource, openEtcdTarget } from './etcd.ts';

export interface MigrationReport extends CopyReport {
  source: string;
  target: string;
  /** Whether the target's history was compacted at targetRevision. */
  compacted: boolean;
}

function openSource(at: StoreLocation, config: MigrateConfig): MigrationSource {
  return at.kind === 'embedded'
    ? openEmbeddedSource(at.dataDir, config.prefix)
    : openEtcdSource({ endpoints: at.endpoints, requestTimeoutMs: config.etcdRequestTimeoutMs });
}

function openTarget(at: StoreLocation, config: MigrateConfig): MigrationTarget {
  return at.kind === 'embedded'
    ? openEmbeddedTarget(at.dataDir, config.prefix)
    : openEtcdTarget({ endpoints: at.endpoints, requestTimeoutMs: config.etcdRequestTimeoutMs }, config.prefix);
}

export async function migrate(config: MigrateConfig, onProgress?: (copied: number) => void): Promise<MigrationReport> {
  const source = openSource(config.from, config);
  try {
    // An etcd that does not answer fails here, before the target is made or locked.
    await source.revision();
    const target = openTarget(config.to, config);
    try {
      const copied = await copyKeys(source, target, { prefix: config.prefix, force: config.force, batchSize: config.batchSize, onProgress });
      const compacted = config.compact && copied.copied > 0;
      if (compacted) await target.compact(copied.targetRevision);
      return { ...copied, source: source.describe, target: target.describe, compacted };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
