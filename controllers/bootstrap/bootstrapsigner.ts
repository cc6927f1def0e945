/**
 * The bootstrap signer (upstream's pkg/controller/bootstrap/bootstrapsigner.go): keeps the
 * ConfigMap `cluster-info` in kube-public signed by every bootstrap token that may sign, so that a
 * joining node holding a token can trust the `kubeconfig` it reads anonymously (spec 02 "Bootstrap
 * tokens"). One `jws-kubeconfig-<token id>` per valid, unexpired token with
 * `usage-bootstrap-signing: "true"`; signatures of tokens gone, expired or no longer signing are
 * removed; the ConfigMap is written only when a signature changed.
 *
 * Level-based on one key (the ConfigMap's): any change to the ConfigMap or to a token Secret runs
 * the same reconcile over the caches. Upstream re-signs only when something changes; here the
 * reconcile also asks to run again when the earliest signing token expires, so an expired token's
 * signature goes at its expiry even without the token cleaner.
 *
 * The controller never creates cluster-info (its bootstrap role may only update it): the API
 * server's start-up creates it (apiserver/startup/cluster-info.ts), as kubeadm's init does.
 */
import { clusterInfo } from '../../shared/api/bootstrap-token.ts';
import { isStatusError } from '../../shared/api/errors.ts';
import type { ConfigMap } from '../../apiserver/registry/core/configmap.ts';
import type { ControllerManagerConfig } from '../config.ts';
import { resourcePath, type ResourceRef } from '../../shared/client/api-client.ts';
import { newQueue, runWorkers, type ControllerContext, type ReconcileResult } from '../framework/controller.ts';
import type { Informer } from '../../shared/client/informer.ts';
import type { RegisteredController } from '../registry.ts';
import { computeDetachedSignature, signingKey } from './jws.ts';
import {
  bootstrapTokenSecretType,
  maxRequeueMs,
  signingTokenOf,
  tokenSecretInformer,
  tokenSecretNamespace,
  type Secret,
  type SigningToken,
} from './token-secret.ts';

/** The prefix of signature keys (bootstrapapi.JWSSignatureKeyPrefix). */
export const signatureKeyPrefix = 'jws-kubeconfig-';

const configMapsResource: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
const clusterInfoKey = `${clusterInfo.namespace}/${clusterInfo.name}`;

/** The tokens that may sign at `nowMs`, by id; a second Secret claiming an id already seen is skipped, as upstream does. */
function signingTokens(secrets: Secret[], nowMs: number, ctx: Pick<ControllerContext, 'logger'>): Map<string, SigningToken> {
  const tokens = new Map<string, SigningToken>();
  for (const secret of secrets) {
    if (secret.type !== bootstrapTokenSecretType) continue;
    const token = signingTokenOf(secret, nowMs);
    if ('rejected' in token) {
      ctx.logger.debug({ secret: secret.metadata.name }, `bootstrap token secret ${token.rejected}: not signing with it`);
      continue;
    }
    if (tokens.has(token.id)) {
      ctx.logger.warn({ tokenId: token.id, ignoredSecret: secret.metadata.name }, 'duplicate bootstrap tokens found for id, ignoring the duplicate secret');
      continue;
    }
    tokens.set(token.id, token);
  }
  return tokens;
}

/**
 * The data `configMap` should have: its own keys, minus every signature, plus one signature per
 * token; `changed` when a signature was added, changed or removed.
 */
export function signedData(
  data: Record<string, string>,
  content: string,
  tokens: Map<string, SigningToken>,
): { data: Record<string, string>; changed: boolean } {
  const next: Record<string, string> = {};
  const previous = new Map<string, string>();
  for (const [key, value] of Object.entries(data)) {
    if (key.startsWith(signatureKeyPrefix)) previous.set(key.slice(signatureKeyPrefix.length), value);
    else next[key] = value;
  }
  let changed = false;
  for (const [id, token] of tokens) {
    const signature = computeDetachedSignature(content, id, signingKey(id, token.secret));
    if (previous.get(id) !== signature) changed = true;
    previous.delete(id);
    next[signatureKeyPrefix + id] = signature;
  }
  return { data: next, changed: changed || previous.size > 0 };
}

/** Keeps cluster-info signed until ctx.signal aborts. */
export function startBootstrapSigner(ctx: ControllerContext): void {
  const secrets = tokenSecretInformer(ctx);
  const configMaps: Informer<ConfigMap> = ctx.informers.informer<ConfigMap>(configMapsResource, {
    namespace: clusterInfo.namespace,
    fieldSelector: `metadata.name=${clusterInfo.name}`,
  });
  const queue = newQueue(ctx, 'bootstrap_signer_queue');
  const poke = (): void => queue.add(clusterInfoKey);
  configMaps.on({ add: poke, update: poke });
  secrets.on({ add: poke, update: poke, delete: poke });

  const reconcile = async (key: string): Promise<ReconcileResult> => {
    const configMap = configMaps.get(key);
    if (!configMap) return;
    const content = configMap.data?.[clusterInfo.kubeconfigKey];
    if (content === undefined) {
      ctx.logger.debug({ configMap: key }, `no ${clusterInfo.kubeconfigKey} key in the ConfigMap: nothing to sign`);
      return;
    }
    const now = ctx.clock.now();
    const tokens = signingTokens(secrets.list(tokenSecretNamespace), now, ctx);
    const { data, changed } = signedData(configMap.data ?? {}, content, tokens);
    if (changed) {
      try {
        await ctx.api.update(resourcePath(configMapsResource, clusterInfo.namespace, clusterInfo.name), {
          ...configMap,
          apiVersion: 'v1',
          kind: 'ConfigMap',
          data,
        });
      } catch (err) {
        // A newer ConfigMap (Conflict) or none (NotFound): its own event brings the next reconcile.
        if (!isStatusError(err, 'Conflict') && !isStatusError(err, 'NotFound')) throw err;
      }
    }
    const expiries = [...tokens.values()].flatMap((t) => (t.expiresAtMs === undefined ? [] : [t.expiresAtMs]));
    if (expiries.length === 0) return;
    return { requeueAfterMs: Math.min(Math.min(...expiries) - now, maxRequeueMs) };
  };
  void runWorkers(queue, 1, reconcile, ctx.logger);
}

export const bootstrapSignerController: RegisteredController = {
  name: 'bootstrap-signer-controller',
  aliases: ['bootstrapsigner'],
  enabledByDefault: false,
  serviceAccount: 'bootstrap-signer',
  start: (ctx: ControllerContext<ControllerManagerConfig>) => startBootstrapSigner(ctx),
};
