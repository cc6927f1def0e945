/**
 * What kinds depend on, over no RBAC objects and no credentials, for tests that build kind
 * definitions without a running server: system:masters may do anything, everyone else nothing.
 */
import { createAuthenticator } from '../auth/authenticate.ts';
import { buildRuleResolver } from '../authorization/modes.ts';
import { privilegedGroups } from '../authorization/privileged-groups.ts';
import { RbacAuthorizer } from '../authorization/rbac/authorizer.ts';
import { EscalationGuard } from '../authorization/rbac/escalation.ts';
import type { KindDependencies } from '../registry/all.ts';
import { MemorySource } from './rbac.ts';

export function testKindDependencies(): KindDependencies {
  const rbac = new RbacAuthorizer(new MemorySource());
  const authorizer = privilegedGroups();
  return {
    guard: new EscalationGuard(rbac, authorizer),
    authorizer,
    rules: buildRuleResolver(['RBAC'], { rbac: () => rbac, node: () => authorizer }),
    authenticator: createAuthenticator({ anonymous: false }),
  };
}
