/**
 * Compacts etcd's history on an interval, coordinated across replicas as upstream does: every
 * replica runs the loop, and a compare-and-swap on the version of one key decides which replica
 * compacts in each interval. The winner compacts at the revision it saw one interval earlier, so
 * at least one interval of history is always kept for watches and continue tokens.
 *
 * The key lives under the registry prefix (`<prefix>/compact_rev_key`) so that the watch cache,
 * which watches that prefix, sees every revision the cluster hands out.
 */
import type { Etcd3, ITxnResponse } from 'etcd3';

export interface CompactorOptions {
  intervalMs: number;
  onCompacted?: (revision: number) => void;
  onError?(err: unknown): void;
}

export interface CompactionState {
  /** Version of the coordination key this replica last saw. */
  version: number;
  /** The cluster revision at that moment: what the next winner compacts at. */
  revision: number;
}

/**
 * One round: try to advance the coordination key from `state.version`. The replica that succeeds
 * compacts at `state.revision` (skipped on the first round, which only records a revision).
 * Returns the state for the next round.
 */
export async function compactOnce(client: Etcd3, key: string, state: CompactionState, onCompacted?: (revision: number) => void): Promise<CompactionState> {
  const k = Buffer.from(key);
  const res: ITxnResponse = await client.kv.txn({
    compare: [{ key: k, target: 'Version', result: 'Equal', version: state.version }],
    success: [{ request_put: { key: k, value: Buffer.from(String(state.revision)) } }],
    failure: [{ request_range: { key: k } }],
  });
  const currentRevision = Number(res.header.revision);
  if (!res.succeeded) {
    const kv = res.responses[0]?.response_range.kvs[0];
    return { version: kv ? Number(kv.version) : 0, revision: currentRevision };
  }
  if (state.revision > 0) {
    await client.kv.compact({ revision: state.revision });
    onCompacted?.(state.revision);
  }
  return { version: state.version + 1, revision: currentRevision };
}

export class Compactor {
  private timer: NodeJS.Timeout | undefined;
  private state: CompactionState = { version: 0, revision: 0 };
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: Etcd3,
    private readonly key: string,
    private readonly opts: CompactorOptions,
  ) {}

  start(): void {
    if (this.opts.intervalMs <= 0 || this.timer) return;
    const tick = (): void => {
      this.running = compactOnce(this.client, this.key, this.state, this.opts.onCompacted).then(
        (next) => {
          this.state = next;
        },
        (err: unknown) => this.opts.onError?.(err),
      );
      this.timer = setTimeout(() => void this.running?.then(tick), this.opts.intervalMs);
    };
    tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
