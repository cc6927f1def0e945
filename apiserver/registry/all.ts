/** Every kind corral serves, in discovery order. Adding a kind means adding its definition here. */
import type { Authenticator } from '../auth/authenticate.ts';
import type { Authorizer } from '../authorization/authorizer.ts';
import type { RuleResolver } from '../authorization/modes.ts';
import type { EscalationGuard } from '../authorization/rbac/escalation.ts';
import type { ResourceDefinition } from './definition.ts';
import { selfSubjectReviewDefinition } from './authentication/selfsubjectreview.ts';
import { tokenReviewDefinition } from './authentication/tokenreview.ts';
import { localSubjectAccessReviewDefinition } from './authorization/localsubjectaccessreview.ts';
import { selfSubjectAccessReviewDefinition } from './authorization/selfsubjectaccessreview.ts';
import { selfSubjectRulesReviewDefinition } from './authorization/selfsubjectrulesreview.ts';
import { subjectAccessReviewDefinition } from './authorization/subjectaccessreview.ts';
import { csrDefinition } from './certificates/csr/csr.ts';
import { leaseDefinition } from './coordination/lease.ts';
import { componentStatusDefinition, etcdComponentStatus } from './core/componentstatus.ts';
import { configMapDefinition } from './core/configmap.ts';
import { coreEventDefinition } from './core/event.ts';
import { namespaceDefinition } from './core/namespace.ts';
import { nodeDefinition } from './core/node/node.ts';
import { endpointsDefinition } from './core/endpoints/endpoints.ts';
import { podDefinition } from './core/pod/pod.ts';
import type { ServiceAllocators } from './core/service/allocation.ts';
import { serviceDefinition } from './core/service/service.ts';
import { endpointSliceDefinition } from './discovery/endpointslice.ts';
import { secretDefinition } from './core/secret.ts';
import { eventsV1EventDefinition } from './events/event.ts';
import { clusterCIDRDefinition } from './networking/clustercidr.ts';
import { clusterRoleDefinition } from './rbac/clusterrole.ts';
import { clusterRoleBindingDefinition } from './rbac/clusterrolebinding.ts';
import { roleDefinition } from './rbac/role.ts';
import { roleBindingDefinition } from './rbac/rolebinding.ts';
import { csiDriverDefinition } from './volumes/csidriver.ts';
import { csiNodeDefinition } from './volumes/csinode.ts';
import { csiStorageCapacityDefinition } from './volumes/csistoragecapacity.ts';
import { volumeAttachmentDefinition } from './volumes/volumeattachment.ts';

/** ComponentStatus reports the storage backend's health as seen from this replica, probed on each request. */
function storageProbe(probe: () => Promise<unknown>) {
  return async () => {
    try {
      await probe();
      return [etcdComponentStatus('etcd-0', true)];
    } catch (err) {
      return [etcdComponentStatus('etcd-0', false, err instanceof Error ? err.message : String(err))];
    }
  };
}

/** What kinds consult beyond their own objects. */
export interface KindDependencies {
  /** RBAC's escalation prevention, which the RBAC kinds consult on every write. */
  guard: EscalationGuard;
  /** The server's authorizer, which access reviews ask. */
  authorizer: Authorizer;
  /** The rules the authorizer grants a user (SelfSubjectRulesReview). */
  rules: RuleResolver;
  /** The server's token authentication (TokenReview). */
  authenticator: Authenticator;
  /** Cluster IPs and node ports of Services, kept in storage; without them Services get none (schema-only uses). */
  serviceAllocators?: ServiceAllocators;
}

/** `probe`: reads the storage backend, for ComponentStatus. */
export function allDefinitions(
  probe: () => Promise<unknown>,
  { guard, authorizer, rules, authenticator, serviceAllocators }: KindDependencies,
): ResourceDefinition[] {
  return [
    componentStatusDefinition(storageProbe(probe)),
    configMapDefinition,
    endpointsDefinition,
    coreEventDefinition,
    namespaceDefinition,
    nodeDefinition,
    podDefinition,
    secretDefinition,
    serviceDefinition(serviceAllocators),
    selfSubjectReviewDefinition,
    tokenReviewDefinition(authenticator),
    localSubjectAccessReviewDefinition(authorizer),
    selfSubjectAccessReviewDefinition(authorizer),
    selfSubjectRulesReviewDefinition(rules),
    subjectAccessReviewDefinition(authorizer),
    csrDefinition,
    leaseDefinition,
    endpointSliceDefinition,
    eventsV1EventDefinition,
    clusterCIDRDefinition,
    clusterRoleBindingDefinition(guard),
    clusterRoleDefinition(guard),
    roleBindingDefinition(guard),
    roleDefinition(guard),
    csiDriverDefinition,
    csiNodeDefinition,
    csiStorageCapacityDefinition,
    volumeAttachmentDefinition,
  ];
}
