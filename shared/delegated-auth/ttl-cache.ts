/**
 * A bounded map whose entries expire, on an injected clock: what upstream's token and
 * SubjectAccessReview caches are (an LRU with a TTL per entry). Entries are dropped when read after
 * their time, and the oldest entry makes room when the cache is full, so memory stays bounded
 * whatever clients send. A TTL of 0 or less stores nothing: upstream's way of turning a cache off.
 */
import type { Clock } from '../client/clock.ts';

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class TtlCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries = 4096,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.clock.now() >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-inserting keeps Map order as recency order, so the first key is the least recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
