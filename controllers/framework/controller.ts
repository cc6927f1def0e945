/**
 * What a controller is to the controller manager, and the loop every controller runs: informers
 * put keys in a work queue, workers take them one at a time and call `reconcile(key)`, which reads
 * the current state from the caches and makes the API agree with it. A failed reconcile is retried
 * with back-off (the rate limiter), a successful one resets the back-off; a reconcile may ask to be
 * run again later (a deadline it waits for). Level-based: a key says what to look at, never what
 * happened, so a missed or repeated event changes nothing.
 */
import type { Logger } from 'pino';
import type { ApiClient } from '../../shared/client/api-client.ts';
import type { Clock } from '../../shared/client/clock.ts';
import type { EventRecorder } from '../../shared/client/events.ts';
import type { InformerFactory } from '../../shared/client/informer-factory.ts';
import type { WorkQueueMetrics } from './metrics.ts';
import { defaultControllerRateLimiter } from './rate-limiter.ts';
import { WorkQueue } from './work-queue.ts';

/** What every controller gets from the manager. */
export interface ControllerContext<Config = unknown> {
  api: ApiClient;
  informers: InformerFactory;
  clock: Clock;
  logger: Logger;
  metrics: WorkQueueMetrics;
  /** The controller manager's configuration (controllers/config.ts). */
  config: Config;
  /** Aborted when the controllers must stop: shutdown, or leadership lost. */
  signal: AbortSignal;
  /** Records Events about objects, reported by `component`. */
  events: EventRecorder;
}

/** One entry of the controller registry (controllers/registry.ts). */
export interface ControllerDescriptor<Config = unknown> {
  /** The name `--controllers` uses (kube-controller-manager's). */
  name: string;
  /** Whether `*` includes it; upstream leaves bootstrapsigner and tokencleaner out. */
  enabledByDefault: boolean;
  /**
   * The service account in kube-system whose bootstrap role (system:controller:<name>) the
   * controller's writes need; under --use-service-account-credentials it acts as that identity,
   * and it reports Events as this component.
   */
  serviceAccount: string;
  /** Sets the controller up (informers, handlers, workers) and returns; it runs until ctx.signal aborts. */
  start(ctx: ControllerContext<Config>): void | Promise<void>;
}

/** What a reconcile may ask for besides success: to be run again after `requeueAfterMs`. */
export type ReconcileResult = void | { requeueAfterMs: number };

export type Reconcile = (key: string) => Promise<ReconcileResult>;

/** A work queue with the default rate limiter, handing out keys once the informers have synced, shut down with the context. */
export function newQueue(ctx: Pick<ControllerContext, 'clock' | 'metrics' | 'signal' | 'informers'>, name: string): WorkQueue {
  // Workers start once every informer has listed (WorkQueue's `ready`).
  const queue = new WorkQueue(name, ctx.clock, defaultControllerRateLimiter(ctx.clock), ctx.metrics, () => ctx.informers.synced());
  if (ctx.signal.aborted) queue.shutDown();
  else ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
  return queue;
}

/**
 * Runs `workers` loops taking keys from `queue` into `reconcile` until the queue shuts down;
 * resolves when every loop has finished its last key.
 */
export async function runWorkers(queue: WorkQueue, workers: number, reconcile: Reconcile, logger: Logger): Promise<void> {
  const loop = async (): Promise<void> => {
    for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
      await processKey(queue, key, reconcile, logger);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, loop));
}

/** One reconcile of `key` with its outcome applied to the queue; never throws. */
export async function processKey(queue: WorkQueue, key: string, reconcile: Reconcile, logger: Logger): Promise<void> {
  try {
    const result = await reconcile(key);
    queue.forget(key);
    if (result) queue.addAfter(key, result.requeueAfterMs);
  } catch (err) {
    logger.warn(
      { err: err instanceof Error ? err.message : String(err), queue: queue.name, key, retries: queue.retries(key) },
      'reconcile failed; retrying with back-off',
    );
    queue.addRateLimited(key);
  } finally {
    queue.done(key);
  }
}
