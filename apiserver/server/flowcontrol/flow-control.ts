/**
 * API Priority and Fairness (upstream's --enable-priority-and-fairness, on by default): in place of
 * the two max-in-flight limits, every request that is not long-running is classified into a flow
 * schema and its priority level, and waits for one of that level's seats instead of being turned
 * away at once. The server's concurrency limit (--max-requests-inflight plus
 * --max-mutating-requests-inflight) is divided among the limited levels by their nominal
 * concurrency shares, rounded up; the exempt level is never limited.
 *
 * A request waits at most a quarter of its deadline (at most a minute, upstream's rule). It is turned
 * away (429) when its queue is full, when a level without queues has no free seat, or when its wait
 * runs out; Retry-After grows while a level keeps turning requests away (see retry-after.ts).
 *
 * Differences from upstream, none visible on the wire of a healthy server: the levels do not lend
 * each other seats (each keeps its nominal limit), and every request costs one seat.
 */
import type { UserInfo } from '../../registry/definition.ts';
import type { RequestInfo } from '../requestinfo.ts';
import type { CounterSeries, HistogramSeries } from '../metrics.ts';
import { FlowClassifier } from './classify.ts';
import { bootstrapFlowSchemas, bootstrapPriorityLevels, builtInUid, type FlowSchema, type PriorityLevelConfiguration } from './configuration.ts';
import { FlowControlMetrics } from './metrics.ts';
import { QueueSet, type RejectReason, type Waiter } from './queue-set.ts';
import { RetryAfterTracker } from './retry-after.ts';
import { flowHash } from './shuffle-shard.ts';
import type { MetricsRegistry } from '../metrics.ts';

/** The longest a request waits in a queue, whatever its deadline. */
const maxWaitMs = 60_000;

/** How long a request with this deadline (from its arrival) may wait for a seat: a quarter of it, a minute at most. */
export function queueWaitLimitMs(deadlineMs: number): number {
  return Math.min(deadlineMs / 4, maxWaitMs);
}

interface PriorityLevel {
  readonly name: string;
  readonly uid: string;
  /** Undefined for the exempt level. */
  readonly queues: QueueSet | undefined;
}

interface SchemaState {
  readonly name: string;
  readonly uid: string;
  readonly level: PriorityLevel;
  waiting: number;
  executing: number;
  readonly labels: { flow_schema: string; priority_level: string };
  /** Metric series, created on first use so that /metrics shows only the schemas that saw requests. */
  dispatched?: CounterSeries;
  waitedAndRan?: HistogramSeries;
  waitedAndRejected?: HistogramSeries;
}

/** A request's flow schema and flow, and the UIDs upstream answers in its response headers. */
export interface FlowClassificationResult {
  readonly schema: SchemaState;
  readonly flowDistinguisher: string;
  readonly flowSchemaUid: string;
  readonly priorityLevelUid: string;
}

export type Admission = { admitted: true; release: () => void } | { admitted: false; reason: RejectReason; retryAfterSeconds: number };

/** A request that waits in a queue: `admission` settles when it gets a seat or is turned away. */
export interface PendingAdmission {
  readonly admission: Promise<Admission>;
  /** The client left: the request leaves its queue (its admission settles as rejected, 'cancelled'). */
  readonly cancel: () => void;
}

export interface FlowControlOptions {
  /** --max-requests-inflight plus --max-mutating-requests-inflight. */
  serverConcurrencyLimit: number;
  registry: MetricsRegistry;
  priorityLevels?: readonly PriorityLevelConfiguration[];
  flowSchemas?: readonly FlowSchema[];
  /** Milliseconds since the epoch; tests inject it. */
  now?: () => number;
}

/** Each limited level's nominal seats: its share of the server's limit, rounded up. */
export function nominalConcurrencyLimits(serverConcurrencyLimit: number, levels: readonly PriorityLevelConfiguration[]): Map<string, number> {
  let shares = 0;
  for (const level of levels) if (level.spec.type === 'Limited') shares += level.spec.limited.nominalConcurrencyShares;
  const limits = new Map<string, number>();
  for (const level of levels) {
    if (level.spec.type !== 'Limited') continue;
    limits.set(level.name, shares ? Math.ceil((serverConcurrencyLimit * level.spec.limited.nominalConcurrencyShares) / shares) : 0);
  }
  return limits;
}

export class FlowControl {
  private readonly classifier: FlowClassifier;
  private readonly schemas = new Map<string, SchemaState>();
  private readonly retryAfter: RetryAfterTracker;
  private readonly metrics: FlowControlMetrics;
  private readonly now: () => number;

  constructor(opts: FlowControlOptions) {
    const levelConfigs = opts.priorityLevels ?? bootstrapPriorityLevels;
    const schemaConfigs = opts.flowSchemas ?? bootstrapFlowSchemas;
    this.now = opts.now ?? Date.now;
    this.retryAfter = new RetryAfterTracker(this.now);
    this.classifier = new FlowClassifier(schemaConfigs);
    const nominal = nominalConcurrencyLimits(opts.serverConcurrencyLimit, levelConfigs);
    const levels = new Map<string, PriorityLevel>();
    for (const config of levelConfigs) {
      const spec = config.spec;
      const queues =
        spec.type === 'Limited'
          ? new QueueSet(nominal.get(config.name)!, spec.limited.limitResponse.type === 'Queue' ? spec.limited.limitResponse.queuing : undefined)
          : undefined;
      levels.set(config.name, { name: config.name, uid: builtInUid('PriorityLevelConfiguration', config.name), queues });
    }
    this.metrics = new FlowControlMetrics(opts.registry, {
      nominalLimits: nominal,
      schemas: () => [...this.schemas.values()].filter((schema) => schema.dispatched || schema.waitedAndRejected || schema.waiting),
    });
    for (const config of schemaConfigs) {
      const level = levels.get(config.spec.priorityLevelConfiguration.name);
      // A schema naming a level that does not exist is dangling: upstream sends its requests to catch-all.
      const target = level ?? levels.get('catch-all');
      if (!target) continue;
      this.schemas.set(config.name, {
        name: config.name,
        uid: builtInUid('FlowSchema', config.name),
        level: target,
        waiting: 0,
        executing: 0,
        labels: { flow_schema: config.name, priority_level: target.name },
      });
    }
  }

  /** The request's flow schema, or undefined when no schema matches (impossible with catch-all). */
  classify(user: UserInfo, info: RequestInfo): FlowClassificationResult | undefined {
    const found = this.classifier.classify(user, info);
    const schema = found && this.schemas.get(found.flowSchema.name);
    if (!found || !schema) return undefined;
    return { schema, flowDistinguisher: found.flowDistinguisher, flowSchemaUid: schema.uid, priorityLevelUid: schema.level.uid };
  }

  /**
   * A seat for the classified request: at once (or turned away at once), or a pending admission
   * when it has to wait, for `waitLimitMs` at most (see queueWaitLimitMs).
   */
  admit(classification: FlowClassificationResult, waitLimitMs: number): Admission | PendingAdmission {
    const { schema } = classification;
    const queues = schema.level.queues;
    if (!queues) return this.dispatched(schema, undefined, 0);
    const arrived = this.now();
    let settle: (admission: Admission) => void = () => {};
    const waiter: Waiter & { timer?: NodeJS.Timeout } = {
      dispatch: () => {
        clearTimeout(waiter.timer);
        schema.waiting--;
        settle(this.dispatched(schema, queues, this.now() - arrived));
      },
    };
    const outcome = queues.enqueue(waiter, () => flowHash(schema.name, classification.flowDistinguisher));
    if (outcome === 'dispatched') return this.dispatched(schema, queues, 0);
    if (outcome !== 'queued') return this.rejected(schema, outcome, 0);
    schema.waiting++;
    const admission = new Promise<Admission>((resolve) => {
      settle = resolve;
    });
    const withdraw = (reason: RejectReason): void => {
      if (!queues.withdraw(waiter)) return;
      clearTimeout(waiter.timer);
      schema.waiting--;
      settle(this.rejected(schema, reason, this.now() - arrived));
    };
    waiter.timer = setTimeout(() => withdraw('time-out'), Math.max(0, waitLimitMs));
    return { admission, cancel: () => withdraw('cancelled') };
  }

  private dispatched(schema: SchemaState, queues: QueueSet | undefined, waitedMs: number): Admission {
    schema.executing++;
    (schema.dispatched ??= this.metrics.dispatchedSeries(schema.labels)).value++;
    this.metrics.observeWait((schema.waitedAndRan ??= this.metrics.waitSeries(schema.labels, true)), waitedMs / 1000);
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        schema.executing--;
        queues?.release();
      },
    };
  }

  private rejected(schema: SchemaState, reason: RejectReason, waitedMs: number): Admission {
    this.metrics.rejected(schema.name, schema.level.name, reason);
    this.metrics.observeWait((schema.waitedAndRejected ??= this.metrics.waitSeries(schema.labels, false)), waitedMs / 1000);
    this.retryAfter.recordRejection(schema.level.name);
    return { admitted: false, reason, retryAfterSeconds: this.retryAfter.retryAfterSeconds(schema.level.name) };
  }
}
