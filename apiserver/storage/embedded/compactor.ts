/**
 * Compaction of the embedded store, as the API server's compactor paces etcd's: every interval,
 * the history up to the revision seen one interval earlier is dropped, so a watch or a list
 * continue token stays valid for at least one interval; a compaction that left the file mostly
 * free pages is followed by a copy into a smaller one (EmbeddedStore.shrink). One process owns the
 * store: no coordination between replicas is needed.
 */
import type { CompactionStats, EmbeddedStore } from './store.ts';

export class EmbeddedCompactor {
  private timer: NodeJS.Timeout | undefined;
  private seen = 0;

  constructor(
    private readonly store: EmbeddedStore,
    private readonly intervalMs: number,
    private readonly onCompacted: (revision: number, stats: CompactionStats) => void,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    if (this.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.tick().catch(this.onError), this.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const target = this.seen;
    this.seen = await this.store.currentRevision();
    if (target > this.store.compactedTo()) {
      this.onCompacted(target, await this.store.compact(target));
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
