/**
 * The Retry-After of requests a priority level turns away, as upstream's dropped-requests tracker
 * sets it: 1 second to begin with, doubled (up to 32) when the level rejected at least three times
 * that many requests over the last Retry-After seconds and had not raised it within them, and
 * lowered by one when it rejected fewer than that many. It is reconsidered when a rejection is the
 * first of a new second, from the seconds before it.
 */
export const maxRetryAfterSeconds = 32;

interface SecondCount {
  second: number;
  rejected: number;
}

class LevelRejections {
  retryAfter = 1;
  private raisedAt = 0;
  private currentSecond = 0;
  private currentCount = 0;
  private readonly history: SecondCount[] = [];

  record(second: number): void {
    if (second === this.currentSecond) {
      this.currentCount++;
      return;
    }
    this.history.push({ second: this.currentSecond, rejected: this.currentCount });
    while (this.history.length && second - this.history[0]!.second > maxRetryAfterSeconds) this.history.shift();
    this.currentSecond = second;
    this.currentCount = 1;
    this.reconsider(second);
  }

  private reconsider(now: number): void {
    let rejected = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      const entry = this.history[i]!;
      if (now - entry.second > this.retryAfter) break;
      if (entry.second < now) rejected += entry.rejected;
    }
    if (now - this.raisedAt >= this.retryAfter && rejected >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(this.retryAfter * 2, maxRetryAfterSeconds);
      this.raisedAt = now;
    } else if (rejected < this.retryAfter && this.retryAfter > 1) {
      this.retryAfter--;
    }
  }
}

export class RetryAfterTracker {
  private readonly levels = new Map<string, LevelRejections>();

  /** `now`: milliseconds since the epoch (injected in tests). */
  constructor(private readonly now: () => number = Date.now) {}

  /** A request of the level was turned away. */
  recordRejection(priorityLevel: string): void {
    let level = this.levels.get(priorityLevel);
    if (!level) {
      level = new LevelRejections();
      this.levels.set(priorityLevel, level);
    }
    level.record(Math.floor(this.now() / 1000));
  }

  /** Seconds a client turned away by the level should wait. */
  retryAfterSeconds(priorityLevel: string): number {
    return this.levels.get(priorityLevel)?.retryAfter ?? 1;
  }
}
