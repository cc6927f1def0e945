/**
 * Start-up step "bootstrap": what every cluster has, created or reconciled by each replica as it
 * starts (upstream's post-start hooks): the system namespaces, `kube-public/cluster-info` when
 * nodes join with bootstrap tokens (cluster-info.ts, as kubeadm's init makes it), then the default
 * RBAC policy (with the node join bindings when bootstrap tokens authenticate), then ClusterRole
 * aggregation keeps running. Writes go through the registry as `system:apiserver` in system:masters, admission
 * included.
 *
 * Like upstream's hooks, a step that fails (etcd away, an admission plugin such as AlwaysDeny that
 * refuses) is retried with backoff until it succeeds, the server serving meanwhile with /readyz
 * naming the unfinished hook.
 */
import type { Logger } from 'pino';
import { ensureClusterInfo, registryStores } from './cluster-info.ts';
import { isStatusError } from '../../shared/api/errors.ts';
import { rbacGroup } from '../../shared/api/rbac.ts';
import { ClusterRoleAggregator } from '../authorization/rbac/aggregation.ts';
import { BootstrapPolicy } from '../authorization/rbac/bootstrap-reconcile.ts';
import type { RequestContext } from '../registry/definition.ts';
import type { Registry } from '../registry/registry.ts';
import type { WatchCache } from '../storage/cache/watch-cache.ts';
import type { HealthState } from './health.ts';

/** Namespaces that exist in every cluster, created on start when missing. */
export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

const apiserverUser = { username: 'system:apiserver', groups: ['system:masters'] };
const context = (): RequestContext => ({ user: apiserverUser, now: new Date() });
const firstRetryMs = 500;
const maxRetryMs = 10_000;

/** Runs `step` until it succeeds, waiting longer after each failure. */
async function untilDone(what: string, step: () => Promise<void>, logger: Logger): Promise<void> {
  for (let wait = firstRetryMs; ; wait = Math.min(wait * 2, maxRetryMs)) {
    try {
      return await step();
    } catch (err) {
      logger.warn({ err, retryInMs: wait }, `${what} failed; retrying`);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

async function createSystemNamespaces(registry: Registry): Promise<void> {
  const namespaces = registry.namespaces();
  if (!namespaces) throw new Error('the core v1 API must be enabled');
  for (const name of systemNamespaces) {
    try {
      await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, context(), { dryRun: false, manager: 'kube-apiserver' });
    } catch (err) {
      if (!isStatusError(err, 'AlreadyExists')) throw err;
    }
  }
}

/**
 * Creates the system namespaces (and cluster-info when asked) and reconciles the RBAC policy; then keeps aggregated ClusterRoles
 * current (the returned aggregator, undefined without the RBAC API), until stopped.
 */
export async function bootstrap(
  registry: Registry,
  watchCache: WatchCache,
  state: HealthState,
  logger: Logger,
  options: { nodeJoin: boolean; clusterInfo?: { server: string; caPem: string } },
): Promise<ClusterRoleAggregator | undefined> {
  if (!registry.namespaces()) throw new Error('the core v1 API must be enabled');
  await untilDone('creating the system namespaces', () => createSystemNamespaces(registry), logger);
  state.namespacesCreated = true;
  const clusterInfo = options.clusterInfo;
  if (clusterInfo) {
    await untilDone('creating cluster-info', () => ensureClusterInfo(registryStores(registry), clusterInfo.server, clusterInfo.caPem, logger), logger);
  }
  // Without the RBAC API (--runtime-config) there is no policy to keep.
  const clusterRoles = registry.lookup(rbacGroup, 'v1', 'clusterroles')?.store;
  if (!clusterRoles) {
    state.policyReconciled = true;
    return undefined;
  }
  const policy = new BootstrapPolicy(registry, context, options.nodeJoin);
  await untilDone('reconciling the bootstrap RBAC policy', () => policy.reconcile(), logger);
  state.policyReconciled = true;
  logger.debug('bootstrap policy reconciled');
  const aggregator = new ClusterRoleAggregator(watchCache, clusterRoles, context, logger);
  aggregator.start();
  return aggregator;
}
