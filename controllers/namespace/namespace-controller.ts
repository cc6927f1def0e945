/**
 * The namespace controller (upstream's pkg/controller/namespace): a namespace marked for deletion is
 * emptied and released by the deleter (deleter.ts). Namespaces are queued from the informer only
 * once they carry a deletionTimestamp, 5 s after the event (upstream's namespaceDeletionGracePeriod:
 * time for every API server to see the deletion, and for last-moment creations inside the namespace
 * to land). While content remains the namespace is looked at again after half the estimate plus one
 * second; failures retry with back-off. Workers: --concurrent-namespace-syncs.
 */
import type { Namespace } from '../../apiserver/registry/core/namespace.ts';
import type { ControllerManagerConfig } from '../config.ts';
import { newQueue, runWorkers, type ControllerContext, type ReconcileResult } from '../framework/controller.ts';
import { objectKey } from '../../shared/client/informer.ts';
import type { RegisteredController } from '../registry.ts';
import { NamespacedResourcesDeleter, ResourcesRemainingError } from './deleter.ts';

export const namespaceDeletionGracePeriodMs = 5_000;

export function startNamespaceController(ctx: ControllerContext<Pick<ControllerManagerConfig, 'concurrentNamespaceSyncs'>>): void {
  const namespaces = ctx.informers.informer<Namespace>({ group: '', version: 'v1', resource: 'namespaces', namespaced: false });
  const queue = newQueue(ctx, 'namespace');
  const deleter = new NamespacedResourcesDeleter(ctx.api, ctx.clock);
  const enqueue = (ns: Namespace): void => {
    if (ns.metadata.deletionTimestamp) queue.addAfter(objectKey(ns), namespaceDeletionGracePeriodMs);
  };
  namespaces.on({ add: enqueue, update: enqueue });

  const reconcile = async (key: string): Promise<ReconcileResult> => {
    if (!namespaces.get(key)) return;
    try {
      await deleter.delete(key);
    } catch (err) {
      if (!(err instanceof ResourcesRemainingError)) throw err;
      ctx.logger.debug({ namespace: key, estimateSeconds: err.estimateSeconds }, 'content remaining in namespace');
      return { requeueAfterMs: (Math.floor(err.estimateSeconds / 2) + 1) * 1000 };
    }
  };
  void runWorkers(queue, ctx.config.concurrentNamespaceSyncs, reconcile, ctx.logger);
}

export const namespaceController: RegisteredController = {
  name: 'namespace-controller',
  aliases: ['namespace'],
  enabledByDefault: true,
  serviceAccount: 'namespace-controller',
  start: (ctx: ControllerContext<ControllerManagerConfig>) => startNamespaceController(ctx),
};
