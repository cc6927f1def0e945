/**
 * The work queue between informers and reconcilers, with client-go's contract:
 * - a key waiting in the queue is there once, however often it is added;
 * - a key is never handed to two workers at once: added while processed, it waits until `done`;
 * - `addRateLimited` waits the rate limiter's delay (retries back off), `forget` resets it;
 * - `addAfter` waits on the injected clock.
 * Keys are strings (`namespace/name` or `name`), so the reconciler always reads the current
 * object from its cache: the queue carries what to look at, never a stale copy.
 */
import type { Clock } from '../../shared/client/clock.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { WorkQueueMetrics } from './metrics.ts';

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Map<string, number>();
  private readonly addedAt = new Map<string, number>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly delayed = new Map<string, { at: number; cancel: () => void }>();
  private shuttingDown = false;
  /** Resolves once workers may take keys; see `ready` in the constructor. */
  private opened: Promise<void> | undefined;

  /**
   * `ready`, when given, is awaited before the first key is handed out: the manager passes "every
   * informer has listed", so that no reconcile reads a cache still filling (client-go's
   * WaitForCacheSync before starting workers).
   */
  constructor(
    readonly name: string,
    private readonly clock: Clock,
    private readonly limiter: RateLimiter,
    private readonly metrics?: WorkQueueMetrics,
    private readonly ready?: () => Promise<void>,
  ) {
    metrics?.register(name, () => this.unfinishedWork());
  }

  /** Keys waiting (not counting those being processed or delayed). */
  get length(): number {
    return this.queue.length;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.metrics?.added(this.name);
    this.dirty.add(key);
    this.addedAt.set(key, this.clock.now());
    if (!this.processing.has(key)) this.enqueue(key);
  }

  /** Adds `key` after `ms`; an earlier pending delay for the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    pending?.cancel();
    const cancel = this.clock.after(ms, () => {
      this.delayed.delete(key);
      this.add(key);
    });
    this.delayed.set(key, { at, cancel });
  }

  /** Adds `key` after the rate limiter's delay for it: the retry of a failure. */
  addRateLimited(key: string): void {
    this.metrics?.retried(this.name);
    this.addAfter(key, this.limiter.when(key));
  }

  /** `key` succeeded: its next failure backs off from the start again. */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  retries(key: string): number {
    return this.limiter.retries(key);
  }

  /** The next key to process, waiting for one; undefined once the queue shuts down. */
  async get(): Promise<string | undefined> {
    if (this.ready) {
      // Informers made in the same turn as the workers count too: look after it has run.
      this.opened ??= Promise.resolve().then(this.ready);
      await this.opened;
    }
    return this.next();
  }

  private next(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.metrics?.depth(this.name, this.queue.length);
      this.start(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The worker finished `key`; if it was added meanwhile, it goes back in the queue. */
  done(key: string): void {
    const started = this.processing.get(key);
    this.processing.delete(key);
    if (started !== undefined) this.metrics?.worked(this.name, (this.clock.now() - started) / 1000);
    if (this.dirty.has(key) && !this.shuttingDown) this.enqueue(key);
  }

  /** Stops handing out keys: waiting workers get undefined, delayed adds are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { cancel } of this.delayed.values()) cancel();
    this.delayed.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
    this.metrics?.unregister(this.name);
  }

  /** Hands `key` to a waiting worker, or queues it. */
  private enqueue(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.start(key);
      waiter(key);
      return;
    }
    this.queue.push(key);
    this.metrics?.depth(this.name, this.queue.length);
  }

  private start(key: string): void {
    this.dirty.delete(key);
    const now = this.clock.now();
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (added !== undefined) this.metrics?.waited(this.name, (now - added) / 1000);
    this.processing.set(key, now);
  }

  /** Seconds of work in progress not yet done, and the longest of them (the stuck-worker signals). */
  private unfinishedWork(): { total: number; longest: number } {
    const now = this.clock.now();
    let total = 0;
    let longest = 0;
    for (const started of this.processing.values()) {
      const seconds = (now - started) / 1000;
      total += seconds;
      longest = Math.max(longest, seconds);
    }
    return { total, longest };
  }
}
