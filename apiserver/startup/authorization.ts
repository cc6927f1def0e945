/**
 * Start-up step "authorization": the server's authorizer (system:masters, then the modes of
 * --authorization-mode in order) and RBAC's escalation guard, both reading the watch cache. The
 * Node authorizer's static rules are the bootstrap policy's `system:node` ClusterRole, as upstream's.
 */
import type { Authorizer } from '../authorization/authorizer.ts';
import { buildAuthorizer, buildRuleResolver, type RuleResolver } from '../authorization/modes.ts';
import { cachedNodeGraph, NodeAuthorizer } from '../authorization/node/authorizer.ts';
import { RbacAuthorizer } from '../authorization/rbac/authorizer.ts';
import { bootstrapClusterRoles } from '../authorization/rbac/bootstrap-policy.ts';
import { CachedRbacSource } from '../authorization/rbac/cached-source.ts';
import { EscalationGuard } from '../authorization/rbac/escalation.ts';
import type { WatchCache } from '../storage/cache/watch-cache.ts';

export interface Authorization {
  authorizer: Authorizer;
  /** The rules the same chain grants a user (SelfSubjectRulesReview). */
  rules: RuleResolver;
  rbac: RbacAuthorizer;
  guard: EscalationGuard;
}

export function buildAuthorization(modes: readonly string[], watchCache: WatchCache): Authorization {
  const rbac = new RbacAuthorizer(new CachedRbacSource(watchCache));
  const systemNode = bootstrapClusterRoles().find((role) => role.metadata.name === 'system:node');
  const node = new NodeAuthorizer(cachedNodeGraph(watchCache.resource('volumeattachments'), watchCache.resource('pods')), systemNode?.rules ?? []);
  const dependencies = { rbac: () => rbac, node: () => node };
  const authorizer = buildAuthorizer(modes, dependencies);
  return { authorizer, rules: buildRuleResolver(modes, dependencies), rbac, guard: new EscalationGuard(rbac, authorizer) };
}
