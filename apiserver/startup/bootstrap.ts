/**
 * Start-up step "bootstrap": what every cluster has, created or reconciled by each replica as it
 * starts (upstream's post-start hooks): the system namespaces, then the default RBAC policy (with
 * the node join bindings when bootstrap tokens authenticate), then ClusterRole aggregation keeps
 * running. Writes go through the registry as `system:apiserver` in system:masters.
 */
import type { Logger } from 'pino';
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

/**
 * Creates the system namespaces and reconciles the RBAC policy; then keeps aggregated ClusterRoles
 * current (the returned aggregator, undefined without the RBAC API), until stopped.
 */
export async function bootstrap(
  registry: Registry,
  watchCache: WatchCache,
  state: HealthState,
  logger: Logger,
  options: { nodeJoin: boolean },
): Promise<ClusterRoleAggregator | undefined> {
  const namespaces = registry.namespaces();
  if (!namespaces) throw new Error('the core v1 API must be enabled');
  for (const name of systemNamespaces) {
    try {
      await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, context(), { dryRun: false, manager: 'kube-apiserver' });
    } catch (err) {
      if (!isStatusError(err, 'AlreadyExists')) throw err;
    }
  }
  state.namespacesCreated = true;
  // Without the RBAC API (--runtime-config) there is no policy to keep.
  const clusterRoles = registry.lookup(rbacGroup, 'v1', 'clusterroles')?.store;
  if (!clusterRoles) {
    state.policyReconciled = true;
    return undefined;
  }
  await new BootstrapPolicy(registry, context, options.nodeJoin).reconcile();
  state.policyReconciled = true;
  logger.debug('bootstrap policy reconciled');
  const aggregator = new ClusterRoleAggregator(watchCache, clusterRoles, context, logger);
  aggregator.start();
  return aggregator;
}
