/**
 * The copy itself: every key under the prefix, from a source to a target, page by page. Each
 * object keeps its content byte for byte (the one stored-value codec reads and writes it); its
 * resourceVersion becomes the target's revision of the write, since a revision is the store's own
 * counter and cannot be carried. A key with a TTL keeps what remains of it; one already expired
 * is not copied.
 *
 * Without `force` the target must have no key under the prefix, and each key is created (a key
 * appearing meanwhile fails the copy: something else writes to the target). With `force` each key
 * is written whatever the target holds, so a copy cut short can be run again.
 */
import type { KubeObject } from '../../../shared/api/types.ts';
import { StorageError } from '../etcd/errors.ts';
import { decodeStoredObject } from '../stored-value.ts';
import type { MigrationSource, MigrationTarget } from './endpoint.ts';

/**
 * The etcd compactor's coordination key (etcd/compactor.ts, under the prefix): a revision number
 * for the replicas on that etcd, not an object. The target's compactor keeps its own.
 */
export const compactorKey = (prefix: string): string => `${prefix}/compact_rev_key`;

export interface CopyOptions {
  /** Without a trailing slash: the keys under `<prefix>/` are copied. */
  prefix: string;
  force: boolean;
  batchSize: number;
  /** Called after each page with the keys copied so far. */
  onProgress?: (copied: number) => void;
  now?: () => number;
}

/** A key of the source that is not in the target, and why. */
export interface NotCopied {
  key: string;
  reason: string;
}

export interface CopyReport {
  /** Keys written to the target. */
  copied: number;
  /** Their keys' and values' bytes. */
  bytes: number;
  /** Of them, those written with a TTL. */
  withTtl: number;
  /** Keys whose TTL ran out before they were copied. */
  expired: number;
  /** Keys the copy could not write: values that are not objects, or that the target refused. */
  notCopied: NotCopied[];
  /**
   * The source's revision when the copy started, and when it ended: when they differ, the source
   * changed meanwhile (expiry, or a writer). An exclusive source is not asked again: only its own
   * expiry of keys the copy drops can have changed it.
   */
  sourceRevision: number;
  sourceRevisionAfter: number;
  /** The target's revision after the copy: every copied object's resourceVersion is at most this. */
  targetRevision: number;
}

/** The refusals that are one key's, not the target's health: the copy goes on without it. */
const refusedForTheKey = new Set(['TooLarge', 'InvalidRequest']);

export async function copyKeys(source: MigrationSource, target: MigrationTarget, opts: CopyOptions): Promise<CopyReport> {
  const root = `${opts.prefix}/`;
  const now = opts.now ?? Date.now;
  const existing = await target.keyCount(root);
  if (existing > 0 && !opts.force) {
    throw new Error(
      `${target.describe} already has ${existing} key${existing === 1 ? '' : 's'} under ${root}: copy into an empty store, or pass --force to overwrite the keys the source has (the others stay)`,
    );
  }
  const report: CopyReport = {
    copied: 0,
    bytes: 0,
    withTtl: 0,
    expired: 0,
    notCopied: [],
    sourceRevision: await source.revision(),
    sourceRevisionAfter: 0,
    targetRevision: 0,
  };
  const write = async (key: string, object: KubeObject, ttlSeconds: number | undefined): Promise<void> => {
    if (opts.force) await target.storage.guaranteedUpdate(key, () => ({ action: 'put', object }), undefined, ttlSeconds);
    else await target.storage.create(key, object, ttlSeconds);
  };
  for await (const page of source.pages(root, opts.batchSize, report.sourceRevision)) {
    const writes = page.map(async ({ key, value, expiresAt }) => {
      if (key === compactorKey(opts.prefix)) return;
      const remainingMs = expiresAt ? expiresAt - now() : 0;
      if (expiresAt && remainingMs <= 0) {
        report.expired++;
        return;
      }
      let object: KubeObject;
      try {
        object = decodeStoredObject(key, value, 0).object;
      } catch (err) {
        report.notCopied.push({ key, reason: err instanceof Error ? err.message : String(err) });
        return;
      }
      const ttlSeconds = expiresAt ? Math.ceil(remainingMs / 1000) : undefined;
      try {
        await write(key, object, ttlSeconds);
      } catch (err) {
        if (err instanceof StorageError && refusedForTheKey.has(err.code)) {
          report.notCopied.push({ key, reason: `${target.describe} refused it: ${err.message}` });
          return;
        }
        const message = err instanceof Error ? err.message : String(err);
        const hint =
          err instanceof StorageError && err.code === 'Exists' ? ' (something else writes to the target: stop it, then copy again with --force)' : '';
        throw new Error(`cannot write ${key} to ${target.describe}: ${message}${hint}`);
      }
      report.copied++;
      report.bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
      if (ttlSeconds !== undefined) report.withTtl++;
    });
    // Every write of the page settles before the copy stops or goes on: none is left running.
    const failure = (await Promise.allSettled(writes)).find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) throw failure.reason;
    opts.onProgress?.(report.copied);
  }
  report.sourceRevisionAfter = source.exclusive ? report.sourceRevision : await source.revision();
  report.targetRevision = await target.storage.currentRevision();
  return report;
}
