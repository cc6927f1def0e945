/**
 * The loop the three certificate controllers share (upstream's CertificateController): every
 * change of a CertificateSigningRequest queues its name; once the cache has synced, `workers`
 * loops reconcile names from the queue until the context stops. Each controller has its own
 * queue over the one shared CSR informer.
 */
import type { ControllerContext, Reconcile } from '../framework/controller.ts';
import { newQueue, runWorkers } from '../framework/controller.ts';
import { objectKey, type Informer } from '../../shared/client/informer.ts';
import { csrResource, type CertificateSigningRequest } from './csr.ts';

export function csrInformer(ctx: ControllerContext): Informer<CertificateSigningRequest> {
  return ctx.informers.informer<CertificateSigningRequest>(csrResource);
}

/** Queues every change of `informer` and runs `reconcile` on `workers` loops; returns at once. */
export function runCSRWorkers(
  ctx: ControllerContext,
  informer: Informer<CertificateSigningRequest>,
  queueName: string,
  workers: number,
  reconcile: Reconcile,
): void {
  const queue = newQueue(ctx, queueName);
  const enqueue = (csr: CertificateSigningRequest): void => queue.add(objectKey(csr));
  informer.on({ add: enqueue, update: enqueue, delete: enqueue });
  informer
    .synced()
    .then(() => runWorkers(queue, workers, reconcile, ctx.logger))
    .catch((err: unknown) => ctx.logger.error({ err, queue: queueName }, 'certificate controller stopped unexpectedly'));
}
