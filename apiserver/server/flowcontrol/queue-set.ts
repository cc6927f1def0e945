/**
 * The seats and queues of one limited priority level (upstream's queueset): a request takes a seat
 * at once while the level has one free and nobody waits; otherwise it waits in the shortest queue
 * of its flow's hand (shuffle sharding), or is rejected when that queue is full. Freed seats go to
 * the waiting requests in fair order: start-time fair queuing over the queues, each request costing
 * one seat, so every busy queue gets its turn however many requests another queue holds.
 *
 * A level whose limit response is Reject has no queues: without a free seat a request is rejected.
 * Every request occupies one seat (upstream estimates more for large lists and watch fan-out).
 */
import { dealHand } from './shuffle-shard.ts';
import type { QueuingConfiguration } from './configuration.ts';

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

/** A request waiting for a seat: `dispatch` is called once it has one. */
export interface Waiter {
  dispatch(): void;
}

interface Waiting {
  waiter: Waiter;
  /** Its start tag in virtual time: the order in which waiting requests get seats. */
  start: number;
}

interface Queue {
  waiting: Waiting[];
  /** The virtual time at which the queue's last enqueued request finishes. */
  lastFinish: number;
}

export type EnqueueOutcome = 'dispatched' | 'queued' | 'queue-full' | 'concurrency-limit';

export class QueueSet {
  private seatsInUse = 0;
  private waitingCount = 0;
  private readonly queues: Queue[];
  /** The start tag of the request dispatched last from a queue. */
  private virtualTime = 0;
  /** Where the search for the next queue starts, so that ties go round the queues. */
  private nextQueue = 0;

  constructor(
    readonly concurrencyLimit: number,
    private readonly queuing: QueuingConfiguration | undefined,
  ) {
    this.queues = Array.from({ length: queuing?.queues ?? 0 }, () => ({ waiting: [], lastFinish: 0 }));
  }

  get executing(): number {
    return this.seatsInUse;
  }

  get waiting(): number {
    return this.waitingCount;
  }

  /**
   * Gives the request a seat ('dispatched', `dispatch` not called), queues it ('queued': `dispatch`
   * comes later, from release(), unless it is withdrawn first), or turns it away. `flowHash` picks
   * its queues.
   */
  enqueue(waiter: Waiter, flowHash: () => number): EnqueueOutcome {
    if (this.seatsInUse < this.concurrencyLimit && this.waitingCount === 0) {
      this.seatsInUse++;
      return 'dispatched';
    }
    if (!this.queuing) return 'concurrency-limit';
    const queue = this.shortestQueueOfHand(flowHash());
    if (queue.waiting.length >= this.queuing.queueLengthLimit) return 'queue-full';
    const start = Math.max(this.virtualTime, queue.lastFinish);
    queue.lastFinish = start + 1;
    queue.waiting.push({ waiter, start });
    this.waitingCount++;
    // No seat is free here (a free seat and a waiting request never outlast dispatchWaiting), so
    // `dispatch` is never called before enqueue returns.
    return 'queued';
  }

  /** Takes a waiting request out of its queue (timed out or cancelled); false if it was not waiting. */
  withdraw(waiter: Waiter): boolean {
    for (const queue of this.queues) {
      const at = queue.waiting.findIndex((w) => w.waiter === waiter);
      if (at < 0) continue;
      queue.waiting.splice(at, 1);
      this.waitingCount--;
      // Its turn is given back, so that the queue's next request is not pushed back for it.
      queue.lastFinish = queue.waiting.length ? queue.waiting[queue.waiting.length - 1]!.start + 1 : this.virtualTime;
      return true;
    }
    return false;
  }

  /** A dispatched request finished: its seat goes to the next waiting request. */
  release(): void {
    this.seatsInUse--;
    this.dispatchWaiting();
  }

  private shortestQueueOfHand(hash: number): Queue {
    const { queues, handSize } = this.queuing!;
    let best: Queue | undefined;
    for (const index of dealHand(hash, queues, handSize)) {
      const queue = this.queues[index]!;
      if (!best || queue.waiting.length < best.waiting.length) best = queue;
    }
    return best!;
  }

  private dispatchWaiting(): void {
    while (this.seatsInUse < this.concurrencyLimit && this.waitingCount > 0) {
      const queue = this.nextFairQueue();
      const next = queue.waiting.shift()!;
      this.waitingCount--;
      this.virtualTime = next.start;
      this.seatsInUse++;
      next.waiter.dispatch();
    }
  }

  /** The non-empty queue whose head started earliest in virtual time, ties going round the queues. */
  private nextFairQueue(): Queue {
    const count = this.queues.length;
    let best: Queue | undefined;
    let bestIndex = 0;
    for (let step = 0; step < count; step++) {
      const index = (this.nextQueue + step) % count;
      const queue = this.queues[index]!;
      const head = queue.waiting[0];
      if (head && (!best || head.start < best.waiting[0]!.start)) {
        best = queue;
        bestIndex = index;
      }
    }
    this.nextQueue = (bestIndex + 1) % count;
    return best!;
  }
}
