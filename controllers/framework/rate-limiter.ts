/**
 * How long a work-queue key waits before its next retry: upstream's default controller rate
 * limiter, the larger of a per-key exponential back-off (5 ms doubling to 1000 s; forgotten after a
 * success) and an overall token bucket (10 per second, bursts of 100) that keeps a storm of
 * failures from hammering the API server.
 */
import type { Clock } from '../../shared/client/clock.ts';

export interface RateLimiter {
  /** The delay before `key` may be retried; counts the retry. */
  when(key: string): number;
  /** Forgets `key`'s failures (it succeeded). */
  forget(key: string): void;
  /** Failures counted for `key` since it last succeeded. */
  retries(key: string): number;
}

export class ExponentialBackoff implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1000_000,
  ) {}

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** A token bucket: `qps` tokens a second, at most `burst` saved; each retry takes one, waiting for it when none is left. */
export class TokenBucket implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly clock: Clock,
    private readonly qps = 10,
    private readonly burst = 100,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  when(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(): void {}

  retries(): number {
    return 0;
  }
}

/** The longest delay any of `limiters` asks for. */
export class MaxOf implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    return Math.max(...this.limiters.map((l) => l.when(key)));
  }

  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  retries(key: string): number {
    return Math.max(...this.limiters.map((l) => l.retries(key)));
  }
}

/** Upstream's DefaultControllerRateLimiter. */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return new MaxOf(new ExponentialBackoff(), new TokenBucket(clock));
}
