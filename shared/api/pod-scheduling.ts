/**
 * The parts of core/v1 PodSpec that place a pod and shape its sandbox: affinity, tolerations,
 * topology spread, DNS, host aliases, the pod security context, readiness and scheduling gates,
 * resource claims. Upstream's protobuf field numbers; the node selector types are schema.ts's.
 */
import type { LabelSelectorObject } from '../selectors/labels.ts';
import type { NodeSelector, NodeSelectorTerm } from './node-selector.ts';
import {
  appArmorProfile,
  seccompProfile,
  seLinuxOptions,
  windowsOptions,
  type AppArmorProfile,
  type SeccompProfile,
  type SELinuxOptions,
  type WindowsSecurityContextOptions,
} from './pod-container.ts';
import {
  atomicArray,
  boolean,
  describe,
  int32,
  int64,
  keyedArray,
  labelSelector,
  named,
  nodeSelector,
  nodeSelectorTerm,
  object,
  patchMerge,
  pb,
  string,
  type Schema,
} from './schema.ts';

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelectorObject;
  namespaces?: string[];
  topologyKey?: string;
  namespaceSelector?: LabelSelectorObject;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

export interface WeightedPodAffinityTerm {
  weight?: number;
  podAffinityTerm?: PodAffinityTerm;
}

export interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
    preferredDuringSchedulingIgnoredDuringExecution?: { weight?: number; preference?: NodeSelectorTerm }[];
  };
  podAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
    preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
  };
  podAntiAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
    preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
  };
}

/** `name` and `value` are plain strings in Go: absent in JSON is Go's "", hence optional here. */
export interface Sysctl {
  name?: string;
  value?: string;
}

export interface PodSecurityContext {
  seLinuxOptions?: SELinuxOptions;
  windowsOptions?: WindowsSecurityContextOptions;
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  supplementalGroups?: number[];
  supplementalGroupsPolicy?: string;
  fsGroup?: number;
  sysctls?: Sysctl[];
  fsGroupChangePolicy?: string;
  seccompProfile?: SeccompProfile;
  appArmorProfile?: AppArmorProfile;
  seLinuxChangePolicy?: string;
}

/**
 * maxSkew, topologyKey and whenUnsatisfiable are plain fields in Go that the schema requires, yet a
 * client may leave them out (Go then decodes 0 and ""): they are optional here so that validation
 * reads their absence as that zero value and rejects it.
 */
export interface TopologySpreadConstraint {
  maxSkew?: number;
  topologyKey?: string;
  whenUnsatisfiable?: string;
  labelSelector?: LabelSelectorObject;
  minDomains?: number;
  nodeAffinityPolicy?: string;
  nodeTaintsPolicy?: string;
  matchLabelKeys?: string[];
}

export interface PodDNSConfig {
  nameservers?: string[];
  searches?: string[];
  options?: { name?: string; value?: string }[];
}

const coreV1 = (type: string): string => `io.k8s.api.core.v1.${type}`;

export const toleration = (): Schema =>
  named(
    coreV1('Toleration'),
    'Lets a pod run on nodes with a matching taint.',
    object({
      key: pb(1, string('Taint key to match; empty with operator Exists matches every taint.')),
      operator: pb(2, string('Exists or Equal (the default).')),
      value: pb(3, string('Taint value to match with Equal; empty with Exists.')),
      effect: pb(4, string('Taint effect to match: NoSchedule, PreferNoSchedule or NoExecute; empty matches all.')),
      tolerationSeconds: pb(5, int64('How long a NoExecute taint is tolerated before eviction; forever when absent.'), 'optional'),
    }),
  );

const podAffinityTerm = (): Schema =>
  named(
    coreV1('PodAffinityTerm'),
    'Pods a pod should (or should not) run near, in one topology domain.',
    object(
      {
        labelSelector: pb(1, describe(labelSelector(), 'Labels of the pods to match.'), 'optional'),
        namespaces: pb(2, describe(atomicArray(string()), 'Namespaces of the pods to match; the pod’s own when empty.')),
        topologyKey: pb(3, string('Node label whose value defines a domain, such as kubernetes.io/hostname.'), 'keepZero'),
        namespaceSelector: pb(4, describe(labelSelector(), 'Labels of the namespaces of the pods to match.'), 'optional'),
        matchLabelKeys: pb(5, describe(atomicArray(string()), 'Label keys whose values on the incoming pod are added to labelSelector with In.')),
        mismatchLabelKeys: pb(6, describe(atomicArray(string()), 'Label keys whose values on the incoming pod are added to labelSelector with NotIn.')),
      },
      ['topologyKey'],
    ),
  );

const weightedPodAffinityTerm = (): Schema =>
  named(
    coreV1('WeightedPodAffinityTerm'),
    'A preferred pod affinity term with its weight.',
    object(
      {
        weight: pb(1, int32('Weight of the term, 1 to 100.'), 'keepZero'),
        podAffinityTerm: pb(2, describe(podAffinityTerm(), 'The pod affinity term the weight applies to.')),
      },
      ['weight', 'podAffinityTerm'],
    ),
  );

const podAffinityFields = (what: string): Record<string, Schema> => ({
  requiredDuringSchedulingIgnoredDuringExecution: pb(1, describe(atomicArray(podAffinityTerm()), `Terms the pod must meet to be scheduled ${what}.`)),
  preferredDuringSchedulingIgnoredDuringExecution: pb(
    2,
    describe(atomicArray(weightedPodAffinityTerm()), `Terms the scheduler prefers, to place the pod ${what}.`),
  ),
});

const affinity = (): Schema =>
  named(
    coreV1('Affinity'),
    'Scheduling constraints of a pod.',
    object({
      nodeAffinity: pb(
        1,
        describe(
          named(
            coreV1('NodeAffinity'),
            'Nodes a pod should run on.',
            object({
              requiredDuringSchedulingIgnoredDuringExecution: pb(1, describe(nodeSelector(), 'Nodes the pod may be scheduled on.'), 'optional'),
              preferredDuringSchedulingIgnoredDuringExecution: pb(
                2,
                describe(
                  atomicArray(
                    named(
                      coreV1('PreferredSchedulingTerm'),
                      'A preferred node selector term with its weight.',
                      object(
                        {
                          weight: pb(1, int32('Weight of the term, 1 to 100.'), 'keepZero'),
                          preference: pb(2, describe(nodeSelectorTerm(), 'The node selector term the weight applies to.')),
                        },
                        ['weight', 'preference'],
                      ),
                    ),
                  ),
                  'Nodes the scheduler prefers.',
                ),
              ),
            }),
          ),
          'Nodes the pod should run on.',
        ),
        'optional',
      ),
      podAffinity: pb(
        2,
        describe(named(coreV1('PodAffinity'), 'Pods a pod should run near.', object(podAffinityFields('near matching pods'))), 'Pods to run near.'),
        'optional',
      ),
      podAntiAffinity: pb(
        3,
        describe(
          named(coreV1('PodAntiAffinity'), 'Pods a pod should run away from.', object(podAffinityFields('away from matching pods'))),
          'Pods to run away from.',
        ),
        'optional',
      ),
    }),
  );

const podSecurityContext = (): Schema =>
  named(
    coreV1('PodSecurityContext'),
    'Security settings of a pod, defaults of its containers’ own.',
    object({
      seLinuxOptions: pb(1, describe(seLinuxOptions(), 'SELinux context of every container.'), 'optional'),
      windowsOptions: pb(8, describe(windowsOptions(), 'Windows-specific settings of every container.'), 'optional'),
      runAsUser: pb(2, int64('UID to run the entrypoints as.'), 'optional'),
      runAsGroup: pb(6, int64('GID to run the entrypoints as.'), 'optional'),
      runAsNonRoot: pb(3, boolean('Whether containers must run as non-root users.'), 'optional'),
      supplementalGroups: pb(4, describe(atomicArray(int64()), 'Groups added to the first process of every container.')),
      supplementalGroupsPolicy: pb(12, string('Merge (the default) or Strict: whether groups of the image are added too.'), 'optional'),
      fsGroup: pb(5, int64('Group that owns the pod’s volumes and is added to every container.'), 'optional'),
      sysctls: pb(
        7,
        describe(
          atomicArray(
            named(
              coreV1('Sysctl'),
              'A kernel parameter.',
              object({ name: pb(1, string('Name of the parameter.'), 'keepZero'), value: pb(2, string('Value of the parameter.'), 'keepZero') }, [
                'name',
                'value',
              ]),
            ),
          ),
          'Namespaced kernel parameters of the pod.',
        ),
      ),
      fsGroupChangePolicy: pb(9, string('OnRootMismatch or Always: when volume ownership is changed to fsGroup.'), 'optional'),
      seccompProfile: pb(10, describe(seccompProfile(), 'Seccomp profile of every container.'), 'optional'),
      appArmorProfile: pb(11, describe(appArmorProfile(), 'AppArmor profile of every container.'), 'optional'),
      seLinuxChangePolicy: pb(13, string('MountOption or Recursive: how SELinux labels are applied to volumes.'), 'optional'),
    }),
  );

const hostAlias = (): Schema =>
  named(
    coreV1('HostAlias'),
    'An entry of the pod’s /etc/hosts.',
    object(
      {
        ip: pb(1, string('IP address of the entry.'), 'keepZero'),
        hostnames: pb(2, describe(atomicArray(string()), 'Host names of the IP address.')),
      },
      ['ip'],
    ),
  );

const podDNSConfig = (): Schema =>
  named(
    coreV1('PodDNSConfig'),
    'DNS settings of a pod, merged with those dnsPolicy yields.',
    object({
      nameservers: pb(1, describe(atomicArray(string()), 'Name server IP addresses, at most 3 in all.')),
      searches: pb(2, describe(atomicArray(string()), 'Search domains.')),
      options: pb(
        3,
        describe(
          atomicArray(
            named(
              coreV1('PodDNSConfigOption'),
              'A resolver option.',
              object({ name: pb(1, string('Name of the option; required.')), value: pb(2, string('Value of the option.'), 'optional') }),
            ),
          ),
          'Resolver options.',
        ),
      ),
    }),
  );

const topologySpreadConstraint = (): Schema =>
  named(
    coreV1('TopologySpreadConstraint'),
    'How evenly matching pods must be spread over topology domains.',
    object(
      {
        maxSkew: pb(1, int32('Largest allowed difference of matching pods between two domains; at least 1.'), 'keepZero'),
        topologyKey: pb(2, string('Node label whose value defines a domain.'), 'keepZero'),
        whenUnsatisfiable: pb(3, string('DoNotSchedule or ScheduleAnyway.'), 'keepZero'),
        labelSelector: pb(4, describe(labelSelector(), 'Labels of the pods counted.'), 'optional'),
        minDomains: pb(5, int32('Least number of eligible domains, with DoNotSchedule.'), 'optional'),
        nodeAffinityPolicy: pb(6, string('Honor (the default) or Ignore the pod’s node affinity when counting.'), 'optional'),
        nodeTaintsPolicy: pb(7, string('Honor or Ignore (the default) node taints when counting.'), 'optional'),
        matchLabelKeys: pb(8, describe(atomicArray(string()), 'Label keys whose values on the incoming pod narrow the pods counted.')),
      },
      ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
    ),
  );

/** The scheduling and sandbox fields of PodSpec, with their field numbers there. */
export const podSchedulingFields = (): Record<string, Schema> => ({
  securityContext: pb(14, describe(podSecurityContext(), 'Security settings of the pod. Defaults to empty.'), 'optional'),
  affinity: pb(18, describe(affinity(), 'Scheduling constraints of the pod.'), 'optional'),
  tolerations: pb(22, describe(atomicArray(toleration()), 'Taints the pod tolerates.')),
  hostAliases: pb(23, describe(patchMerge(keyedArray(hostAlias(), ['ip']), 'ip'), 'Entries added to the pod’s /etc/hosts.')),
  dnsConfig: pb(26, describe(podDNSConfig(), 'DNS settings merged with those of dnsPolicy.'), 'optional'),
  readinessGates: pb(
    28,
    describe(
      atomicArray(
        named(
          coreV1('PodReadinessGate'),
          'A pod condition that must be True for the pod to be ready.',
          object({ conditionType: pb(1, string('Type of the condition.'), 'keepZero') }, ['conditionType']),
        ),
      ),
      'Conditions that must be True, beyond the containers’ readiness, for the pod to be ready.',
    ),
  ),
  topologySpreadConstraints: pb(
    33,
    describe(
      patchMerge(keyedArray(topologySpreadConstraint(), ['topologyKey', 'whenUnsatisfiable']), 'topologyKey'),
      'How the pod is spread over topology domains.',
    ),
  ),
  os: pb(
    36,
    describe(
      named(coreV1('PodOS'), 'The operating system of a pod.', object({ name: pb(1, string('linux or windows.'), 'keepZero') }, ['name'])),
      'Operating system the containers need; validated against it.',
    ),
    'optional',
  ),
  schedulingGates: pb(
    38,
    describe(
      patchMerge(
        keyedArray(
          named(
            coreV1('PodSchedulingGate'),
            'A gate that holds a pod back from scheduling.',
            object({ name: pb(1, string('Name of the gate, unique within the pod.'), 'keepZero') }, ['name']),
          ),
          ['name'],
        ),
        'name',
      ),
      'Gates that hold the pod back from scheduling until removed; only on create.',
    ),
  ),
  resourceClaims: pb(
    39,
    describe(
      {
        ...keyedArray(
          named(
            coreV1('PodResourceClaim'),
            'A resource claim the pod uses, by its own name.',
            object(
              {
                name: pb(1, string('Name of the claim within the pod, a DNS label.'), 'keepZero'),
                resourceClaimName: pb(3, string('Name of an existing ResourceClaim.'), 'optional'),
                resourceClaimTemplateName: pb(4, string('Name of a ResourceClaimTemplate to create a claim from.'), 'optional'),
              },
              ['name'],
            ),
          ),
          ['name'],
        ),
        'x-kubernetes-patch-strategy': 'merge,retainKeys',
        'x-kubernetes-patch-merge-key': 'name',
      },
      'Resource claims the containers may use (DynamicResourceAllocation).',
    ),
  ),
});
