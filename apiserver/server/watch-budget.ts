/**
 * The budget for watch bytes a replica holds on behalf of its watchers: bytes written to a watch
 * response that the transport has not yet handed to the network (HTTP/1.1 socket queues, TLS
 * output, HTTP/2 stream queues waiting for flow-control window). A client that does not read makes
 * these grow, so they are bounded twice:
 *
 * - per watcher: a watcher with more than `watcherBytes` or `watcherFrames` unsent is blocked; one
 *   still blocked `blockedTimeoutMs` later is closed on its next frame. This is upstream's cacher
 *   rule: a watcher whose channel (10 to 1000 events, 100 for most) stays full past a short
 *   timeout (at most 100 ms) is terminated, and its client re-watches. Bytes bound what one
 *   watcher holds; frames also catch a stalled watcher of small frames (PartialObjectMetadata).
 *   The timeout is longer than upstream's, because here a whole batch of events is written at once
 *   and only drains once the event loop turns.
 * - per replica: a frame that would take the total past `totalBytes` first evicts blocked watchers,
 *   those holding the most first; when that is not enough the watcher of the frame is closed.
 *   So the total never exceeds the budget, whatever the number of watchers.
 *
 * The budget only counts and decides; closing is left to the callback given to `open`. Counts are
 * of frame bytes: a frame shared by many watchers counts for each, as each connection keeps (or,
 * under TLS, encrypts into) its own copy until it is sent.
 */

export interface WatchBudgetLimits {
  /** Unsent bytes all watchers of the replica may hold together. */
  readonly totalBytes: number;
  /** Unsent bytes beyond which a watcher is blocked. */
  readonly watcherBytes: number;
  /** Unsent frames beyond which a watcher is blocked. */
  readonly watcherFrames: number;
  /** How long a watcher may stay blocked before its next frame closes it. */
  readonly blockedTimeoutMs: number;
}

/**
 * 100 frames is upstream's channel for most watches; 1 MiB is ten large (100 KB) objects. 256 MiB
 * for the replica keeps hostile watchers far from a default Node heap.
 */
export const defaultWatchBudgetLimits: WatchBudgetLimits = Object.freeze({
  totalBytes: 256 * 1024 * 1024,
  watcherBytes: 1024 * 1024,
  watcherFrames: 100,
  blockedTimeoutMs: 5_000,
});

/** Why a watcher was closed: blocked past the timeout, or evicted to keep the replica in budget. */
export type WatchCloseReason = 'blocked' | 'budget';

/** One watcher's unsent bytes. */
export interface WatcherAccount {
  /** Bytes charged and not yet released. */
  readonly bufferedBytes: number;
  /** Frames charged and not yet released. */
  readonly bufferedFrames: number;
  /** False once closed (by the budget or by `close`): charges are refused, releases ignored. */
  readonly open: boolean;
  /**
   * Accounts for a frame of `bytes` about to be written. False means: do not write it, the watcher
   * is closed (its `close` callback has run).
   */
  charge(bytes: number): boolean;
  /** The transport handed a charged frame of `bytes` to the network (or dropped it). */
  release(bytes: number): void;
  /** The watch ended: whatever it still holds leaves the budget. */
  close(): void;
}

/** The budget's side of an account. */
interface AccountState {
  bufferedBytes: number;
  bufferedFrames: number;
  open: boolean;
  /** When the watcher last went over its limit; undefined while within it. */
  blockedSince: number | undefined;
  onClose(reason: WatchCloseReason): void;
}

export class WatchBudget {
  private readonly accounts = new Set<AccountState>();
  /** Accounts over their limit: the candidates for eviction. */
  private readonly blocked = new Set<AccountState>();
  private total = 0;
  private peak = 0;
  /** Watchers closed so far, by reason. */
  readonly closed: Record<WatchCloseReason, number> = { blocked: 0, budget: 0 };

  constructor(
    /** May be replaced at any time; new limits apply from the next frame. */
    public limits: WatchBudgetLimits = defaultWatchBudgetLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Unsent bytes of all watchers. */
  get bufferedBytes(): number {
    return this.total;
  }

  /** The most `bufferedBytes` has been since creation or the last `resetPeak`. */
  get peakBufferedBytes(): number {
    return this.peak;
  }

  resetPeak(): void {
    this.peak = this.total;
  }

  /** Open watchers. */
  get watchers(): number {
    return this.accounts.size;
  }

  /** An account for a new watcher; `onClose` runs when the budget closes it (not after `close`). */
  open(onClose: (reason: WatchCloseReason) => void): WatcherAccount {
    const state: AccountState = { bufferedBytes: 0, bufferedFrames: 0, open: true, blockedSince: undefined, onClose };
    this.accounts.add(state);
    return {
      get bufferedBytes() {
        return state.bufferedBytes;
      },
      get bufferedFrames() {
        return state.bufferedFrames;
      },
      get open() {
        return state.open;
      },
      charge: (bytes) => this.charge(state, bytes),
      release: (bytes) => this.release(state, bytes),
      close: () => this.remove(state),
    };
  }

  private charge(account: AccountState, bytes: number): boolean {
    if (!account.open) return false;
    const { totalBytes, blockedTimeoutMs } = this.limits;
    if (account.blockedSince !== undefined && this.now() - account.blockedSince >= blockedTimeoutMs) {
      this.evict(account, 'blocked');
      return false;
    }
    if (this.total + bytes > totalBytes) {
      this.makeRoom(this.total + bytes - totalBytes);
      if (!account.open) return false;
      if (this.total + bytes > totalBytes) {
        this.evict(account, 'budget');
        return false;
      }
    }
    account.bufferedBytes += bytes;
    account.bufferedFrames++;
    this.total += bytes;
    this.peak = Math.max(this.peak, this.total);
    if (this.over(account) && account.blockedSince === undefined) {
      account.blockedSince = this.now();
      this.blocked.add(account);
    }
    return true;
  }

  private release(account: AccountState, bytes: number): void {
    if (!account.open) return;
    const released = Math.min(bytes, account.bufferedBytes);
    account.bufferedBytes -= released;
    account.bufferedFrames = Math.max(0, account.bufferedFrames - 1);
    this.total -= released;
    if (!this.over(account) && account.blockedSince !== undefined) {
      account.blockedSince = undefined;
      this.blocked.delete(account);
    }
  }

  /** The watch ended by itself, or is evicted. */
  private remove(account: AccountState): void {
    if (!account.open) return;
    account.open = false;
    this.total -= account.bufferedBytes;
    account.bufferedBytes = 0;
    account.bufferedFrames = 0;
    this.accounts.delete(account);
    this.blocked.delete(account);
  }

  private over(account: AccountState): boolean {
    return account.bufferedBytes > this.limits.watcherBytes || account.bufferedFrames > this.limits.watcherFrames;
  }

  /** Evicts blocked watchers, those holding the most first, until `needed` bytes are free or none is left. */
  private makeRoom(needed: number): void {
    const candidates = [...this.blocked].sort((a, b) => b.bufferedBytes - a.bufferedBytes);
    let freed = 0;
    for (const account of candidates) {
      if (freed >= needed) break;
      freed += account.bufferedBytes;
      this.evict(account, 'budget');
    }
  }

  private evict(account: AccountState, reason: WatchCloseReason): void {
    this.remove(account);
    this.closed[reason]++;
    account.onClose(reason);
  }
}
