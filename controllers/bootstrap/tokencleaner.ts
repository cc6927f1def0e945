/**
 * The token cleaner (upstream's pkg/controller/bootstrap/tokencleaner.go): deletes bootstrap token
 * Secrets once their `expiration` has passed, so that an expired token is gone and not merely
 * refused. Level-based: a reconcile looks at the cached Secret and either deletes it or asks to be
 * run again when it expires, on the injected clock.
 *
 * An `expiration` that does not parse counts as expired, as upstream's GetExpiration has it: the
 * Secret is deleted, and a Warning Event on it says why (upstream only logs), recorded once per
 * Secret and value so that retries of a failing delete do not repeat it.
 *
 * The delete carries a UID precondition: a Secret deleted and created again under the same name
 * meanwhile is not touched. NotFound (already gone) and Conflict (another Secret now) are success.
 */
import { isStatusError } from '../../shared/api/errors.ts';
import type { ControllerManagerConfig } from '../config.ts';
import { resourcePath } from '../../shared/client/api-client.ts';
import { newQueue, runWorkers, type ControllerContext, type ReconcileResult } from '../framework/controller.ts';
import { objectKey, splitKey } from '../../shared/client/informer.ts';
import type { RegisteredController } from '../registry.ts';
import { bootstrapTokenSecretType, expirationOf, maxRequeueMs, secretsResource, tokenSecretInformer, type Secret } from './token-secret.ts';

/** Deletes expired token Secrets until ctx.signal aborts. */
export function startTokenCleaner(ctx: ControllerContext): void {
  const secrets = tokenSecretInformer(ctx);
  const queue = newQueue(ctx, 'token_cleaner');
  /** Malformed expirations already reported, as `uid/value`. */
  const reported = new Set<string>();
  const enqueue = (secret: Secret): void => {
    if (secret.type === bootstrapTokenSecretType) queue.add(objectKey(secret));
  };
  secrets.on({
    add: enqueue,
    update: enqueue,
    delete: (secret) => {
      for (const entry of reported) if (entry.startsWith(`${secret.metadata.uid ?? ''}/`)) reported.delete(entry);
    },
  });

  const reconcile = async (key: string): Promise<ReconcileResult> => {
    const secret = secrets.get(key);
    if (!secret || secret.type !== bootstrapTokenSecretType) return;
    const expiration = expirationOf(secret, ctx.clock.now());
    if (expiration.state === 'none') return;
    if (expiration.state === 'valid') return { requeueAfterMs: Math.min(expiration.remainingMs, maxRequeueMs) };
    if (expiration.state === 'malformed') {
      const message = `Unparseable expiration time (${expiration.expiration}) in ${key} Secret: ${expiration.error}. Treating as expired.`;
      const once = `${secret.metadata.uid ?? ''}/${expiration.expiration}`;
      if (!reported.has(once)) {
        reported.add(once);
        ctx.logger.warn({ secret: key }, message);
        ctx.events.event({ ...secret, apiVersion: 'v1', kind: 'Secret' }, 'Warning', 'InvalidExpiration', message);
      }
    }
    ctx.logger.info({ secret: key, expiration: expiration.expiration }, 'deleting expired bootstrap token secret');
    const { namespace, name } = splitKey(key);
    const uid = secret.metadata.uid;
    try {
      await ctx.api.delete(resourcePath(secretsResource, namespace, name), uid ? { preconditions: { uid } } : undefined);
    } catch (err) {
      if (!isStatusError(err, 'NotFound') && !isStatusError(err, 'Conflict')) throw err;
    }
  };
  void runWorkers(queue, 1, reconcile, ctx.logger);
}

export const tokenCleanerController: RegisteredController = {
  name: 'token-cleaner-controller',
  aliases: ['tokencleaner'],
  enabledByDefault: false,
  serviceAccount: 'token-cleaner',
  start: (ctx: ControllerContext<ControllerManagerConfig>) => startTokenCleaner(ctx),
};
