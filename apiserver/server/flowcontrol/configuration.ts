/**
 * The configuration of API Priority and Fairness: priority levels and the flow schemas that send
 * requests to them, shaped as the specs of flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration
 * and FlowSchema so that served objects could feed the same code later.
 *
 * corral does not serve those kinds (the spec gives them no content), so every replica applies
 * upstream's bootstrap configuration: the mandatory objects (exempt, catch-all) and the suggested
 * ones (system, node-high, leader-election, workload-high, workload-low, global-default), with
 * upstream's names, precedences, shares, queue shapes and rules.
 */
import { createHash } from 'node:crypto';
import { ALL_AUTHENTICATED_GROUP, ALL_UNAUTHENTICATED_GROUP } from '../../auth/authenticate.ts';
import { systemPrivilegedGroup } from '../../authorization/privileged-groups.ts';
import { nodesGroup } from '../../../shared/api/node-identity.ts';

export type SubjectKind = 'User' | 'Group' | 'ServiceAccount';

/** Who a rule applies to; `*` as a name matches every user, group or service account (of the namespace). */
export type Subject =
  | { kind: 'User'; user: { name: string } }
  | { kind: 'Group'; group: { name: string } }
  | { kind: 'ServiceAccount'; serviceAccount: { namespace: string; name: string } };

export interface ResourcePolicyRule {
  verbs: readonly string[];
  apiGroups: readonly string[];
  /** `resource` or `resource/subresource`; `*` matches all. */
  resources: readonly string[];
  /** Namespaces of namespaced requests; `*` matches all. */
  namespaces?: readonly string[];
  /** Whether the rule matches requests that name no namespace. */
  clusterScope?: boolean;
}

export interface NonResourcePolicyRule {
  verbs: readonly string[];
  /** Exact paths, `/prefix/*`, or `*` for all. */
  nonResourceURLs: readonly string[];
}

export interface PolicyRulesWithSubjects {
  subjects: readonly Subject[];
  resourceRules?: readonly ResourcePolicyRule[];
  nonResourceRules?: readonly NonResourcePolicyRule[];
}

export type FlowDistinguisherMethod = 'ByUser' | 'ByNamespace';

export interface FlowSchema {
  name: string;
  spec: {
    priorityLevelConfiguration: { name: string };
    /** Lower matches first; ties are broken by name. */
    matchingPrecedence: number;
    distinguisherMethod?: { type: FlowDistinguisherMethod };
    rules: readonly PolicyRulesWithSubjects[];
  };
}

export interface QueuingConfiguration {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export type LimitResponse = { type: 'Queue'; queuing: QueuingConfiguration } | { type: 'Reject' };

export interface PriorityLevelConfiguration {
  name: string;
  spec:
    | { type: 'Exempt' }
    | {
        type: 'Limited';
        limited: { nominalConcurrencyShares: number; lendablePercent: number; limitResponse: LimitResponse };
      };
}

/**
 * A stable UID for a built-in object, the same on every replica and every start (upstream's
 * objects have one UID cluster-wide because they live in etcd): a name-based UUID (version 5 layout).
 */
export function builtInUid(kind: string, name: string): string {
  const hash = createHash('sha1').update(`flowcontrol.apiserver.k8s.io/${kind}/${name}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const everything = ['*'];
const allResources: ResourcePolicyRule = { verbs: everything, apiGroups: everything, resources: everything, namespaces: everything, clusterScope: true };
const allNonResources: NonResourcePolicyRule = { verbs: everything, nonResourceURLs: everything };
const leaderElectionVerbs = ['get', 'create', 'update'];

const group = (name: string): Subject => ({ kind: 'Group', group: { name } });
const user = (name: string): Subject => ({ kind: 'User', user: { name } });
const everyone = [group(ALL_UNAUTHENTICATED_GROUP), group(ALL_AUTHENTICATED_GROUP)];
const kubeSystemServiceAccount = (name: string): Subject => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } });

function queuing(nominalConcurrencyShares: number, lendablePercent: number, queues: number, handSize: number): PriorityLevelConfiguration['spec'] {
  return {
    type: 'Limited',
    limited: { nominalConcurrencyShares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
  };
}

function flowSchema(
  name: string,
  priorityLevel: string,
  matchingPrecedence: number,
  distinguisher: FlowDistinguisherMethod | undefined,
  rules: PolicyRulesWithSubjects,
): FlowSchema {
  return {
    name,
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rules],
    },
  };
}

/** A schema that matches every request of its subjects. */
function everythingOf(
  name: string,
  priorityLevel: string,
  matchingPrecedence: number,
  distinguisher: FlowDistinguisherMethod | undefined,
  subjects: Subject[],
): FlowSchema {
  return flowSchema(name, priorityLevel, matchingPrecedence, distinguisher, { subjects, resourceRules: [allResources], nonResourceRules: [allNonResources] });
}

/** Upstream's mandatory and suggested priority levels. */
export const bootstrapPriorityLevels: readonly PriorityLevelConfiguration[] = [
  { name: 'exempt', spec: { type: 'Exempt' } },
  { name: 'catch-all', spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } } },
  { name: 'system', spec: queuing(30, 33, 64, 6) },
  { name: 'node-high', spec: queuing(40, 25, 64, 6) },
  { name: 'leader-election', spec: queuing(10, 0, 16, 4) },
  { name: 'workload-high', spec: queuing(40, 50, 128, 6) },
  { name: 'workload-low', spec: queuing(100, 90, 128, 6) },
  { name: 'global-default', spec: queuing(20, 50, 128, 6) },
];

/** Upstream's mandatory and suggested flow schemas. */
export const bootstrapFlowSchemas: readonly FlowSchema[] = [
  everythingOf('exempt', 'exempt', 1, undefined, [group(systemPrivilegedGroup)]),
  flowSchema('probes', 'exempt', 2, undefined, {
    subjects: everyone,
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler'), kubeSystemServiceAccount('*')],
    resourceRules: [{ verbs: leaderElectionVerbs, apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: everything }],
  }),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [
      user('system:kube-controller-manager'),
      kubeSystemServiceAccount('endpoint-controller'),
      kubeSystemServiceAccount('endpointslicemirroring-controller'),
    ],
    resourceRules: [{ verbs: leaderElectionVerbs, apiGroups: [''], resources: ['endpoints'], namespaces: everything }],
  }),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: [kubeSystemServiceAccount('*')],
    resourceRules: [
      { verbs: leaderElectionVerbs, apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces: everything },
      { verbs: leaderElectionVerbs, apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: everything },
    ],
  }),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: [group(nodesGroup)],
    resourceRules: [
      { verbs: everything, apiGroups: [''], resources: ['nodes', 'nodes/status'], namespaces: everything, clusterScope: true },
      { verbs: everything, apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: everything },
    ],
  }),
  everythingOf('system-nodes', 'system', 500, 'ByUser', [group(nodesGroup)]),
  everythingOf('kube-controller-manager', 'workload-high', 800, 'ByNamespace', [user('system:kube-controller-manager')]),
  everythingOf('kube-scheduler', 'workload-high', 800, 'ByNamespace', [user('system:kube-scheduler')]),
  everythingOf('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', [kubeSystemServiceAccount('*')]),
  everythingOf('service-accounts', 'workload-low', 9000, 'ByUser', [group('system:serviceaccounts')]),
  everythingOf('global-default', 'global-default', 9900, 'ByUser', everyone),
  everythingOf('catch-all', 'catch-all', 10000, 'ByUser', everyone),
];
