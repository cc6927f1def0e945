/**
 * client-go's token bucket rate limiter (flowcontrol.NewTokenBucketRateLimiter) on the injected
 * clock: `qps` tokens a second up to `burst`, starting full. The node lifecycle controller paces
 * NoExecute tainting per zone with it (tryAccept); API clients throttle their requests with it
 * (reserve: client-go's QPS and Burst). A rate of 0 never grants (flowcontrol's NewFakeNeverRateLimiter).
 *
 * Kept as the time the next token is due rather than a fractional token count, so that ten
 * tenths of a token make exactly one, whatever floating point does with 0.1.
 */
export class TokenBucket {
  /** Milliseconds per token. */
  private readonly interval: number;
  /** The generic cell rate algorithm's theoretical arrival time: a token is there once `due - (burst-1)·interval` has come. */
  private due: number;

  constructor(
    readonly qps: number,
    private readonly burst: number,
    nowMs: number,
  ) {
    this.interval = qps > 0 ? 1000 / qps : Infinity;
    this.due = nowMs;
  }

  /** Takes a token if one is there at `nowMs`. */
  tryAccept(nowMs: number): boolean {
    if (this.waitMs(nowMs) !== 0) return false;
    this.due = Math.max(this.due, nowMs) + this.interval;
    return true;
  }

  /**
   * Takes the next token, whenever it comes, and says how long to wait for it (client-go's Wait):
   * callers queue in the order they reserve. Only for qps > 0.
   */
  reserve(nowMs: number): number {
    const wait = this.waitMs(nowMs) ?? 0;
    this.due = Math.max(this.due, nowMs) + this.interval;
    return wait;
  }

  /** How long until a token is there; undefined when none ever will be. */
  waitMs(nowMs: number): number | undefined {
    if (this.qps <= 0) return undefined;
    return Math.max(0, Math.ceil(this.due - (this.burst - 1) * this.interval - nowMs));
  }
}
