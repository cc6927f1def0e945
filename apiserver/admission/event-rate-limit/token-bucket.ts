/**
 * A token bucket (client-go's token bucket rate limiter over golang.org/x/time/rate): it starts
 * full with `burst` tokens and refills at `qps` per second up to `burst`; each accepted event
 * takes one token. `now` is injectable for tests.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.tokens = burst;
    this.at = now();
  }

  /** Takes a token if there is one. */
  tryAccept(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.qps);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * The buckets of one limit, by key, keeping the `size` most recently used (upstream's
 * golang-lru): a Map in recency order is the whole LRU, which no library would make smaller.
 */
export class BucketCache {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly size: number,
    private readonly create: () => TokenBucket,
  ) {}

  get(key: string): TokenBucket {
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
    } else {
      bucket = this.create();
      if (this.buckets.size >= this.size) {
        const oldest = this.buckets.keys().next();
        if (!oldest.done) this.buckets.delete(oldest.value);
      }
    }
    this.buckets.set(key, bucket);
    return bucket;
  }
}
