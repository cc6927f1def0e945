/**
 * core/v1 Pod: the type every process shares (the API server serves it, the node agent runs it) and
 * its schema with upstream's protobuf field numbers. Defaults are pod-defaults.ts, validation
 * shared/validation/pod.ts; the parts of the spec live in pod-container.ts, pod-volume.ts and
 * pod-scheduling.ts, the status in pod-status.ts.
 */
import type { KubeObject } from './types.ts';
import {
  containerSchema,
  ephemeralContainerSchema,
  resourceRequirements,
  type Container,
  type EphemeralContainer,
  type ResourceList,
  type ResourceRequirements,
} from './pod-container.ts';
import {
  podSchedulingFields,
  type Affinity,
  type PodDNSConfig,
  type PodSecurityContext,
  type Toleration,
  type TopologySpreadConstraint,
} from './pod-scheduling.ts';
import { podStatusSchema, type PodStatus } from './pod-status.ts';
import { localObjectReference, volumeSchema, type LocalObjectReference, type Volume } from './pod-volume.ts';
import { boolean, describe, int32, int64, keyedArray, kindSchema, map, named, object, patchMerge, pb, quantity, string, type Schema } from './schema.ts';

export type * from './pod-container.ts';
export type * from './pod-scheduling.ts';
export type * from './pod-status.ts';
export type * from './pod-volume.ts';

export interface PodSpec {
  volumes?: Volume[];
  initContainers?: Container[];
  containers?: Container[];
  ephemeralContainers?: EphemeralContainer[];
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: string;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  nodeName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  shareProcessNamespace?: boolean;
  securityContext?: PodSecurityContext;
  imagePullSecrets?: LocalObjectReference[];
  hostname?: string;
  subdomain?: string;
  affinity?: Affinity;
  schedulerName?: string;
  tolerations?: Toleration[];
  hostAliases?: { ip?: string; hostnames?: string[] }[];
  priorityClassName?: string;
  priority?: number;
  dnsConfig?: PodDNSConfig;
  readinessGates?: { conditionType?: string }[];
  runtimeClassName?: string;
  enableServiceLinks?: boolean;
  preemptionPolicy?: string;
  overhead?: ResourceList;
  topologySpreadConstraints?: TopologySpreadConstraint[];
  setHostnameAsFQDN?: boolean;
  os?: { name?: string };
  hostUsers?: boolean;
  schedulingGates?: { name?: string }[];
  resourceClaims?: { name?: string; resourceClaimName?: string; resourceClaimTemplateName?: string }[];
  resources?: ResourceRequirements;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

/** The annotation that marks a mirror pod: the API's copy of a static pod a kubelet runs from a file. */
export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

const coreV1 = (type: string): string => `io.k8s.api.core.v1.${type}`;

const containers = (field: number, description: string): Schema =>
  pb(field, describe(patchMerge(keyedArray(containerSchema(), ['name']), 'name'), description));

export const podSpecSchema = (): Schema =>
  named(
    coreV1('PodSpec'),
    'The desired state of a pod: its containers, volumes and how and where it runs.',
    object(
      {
        volumes: pb(
          1,
          describe(
            { ...keyedArray(volumeSchema(), ['name']), 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' },
            'Volumes the containers may mount.',
          ),
        ),
        initContainers: containers(
          20,
          'Containers run one after another to completion before the app containers start; restartPolicy Always makes one a sidecar.',
        ),
        containers: containers(2, 'The app containers; at least one.'),
        ephemeralContainers: pb(
          34,
          describe(
            patchMerge(keyedArray(ephemeralContainerSchema(), ['name']), 'name'),
            'Debugging containers added to the running pod through the ephemeralcontainers subresource.',
          ),
        ),
        restartPolicy: pb(3, string('When containers are restarted: Always (the default), OnFailure or Never.')),
        terminationGracePeriodSeconds: pb(4, int64('Seconds the pod gets to stop after a graceful deletion request. Defaults to 30.'), 'optional'),
        activeDeadlineSeconds: pb(5, int64('Seconds the pod may be active on a node before it is failed; a positive integer.'), 'optional'),
        dnsPolicy: pb(6, string('ClusterFirst (the default), ClusterFirstWithHostNet, Default or None.')),
        nodeSelector: pb(7, { ...map(string(), 'Labels a node must carry for the pod to be scheduled there.'), 'x-kubernetes-map-type': 'atomic' }),
        serviceAccountName: pb(8, string('Service account the pod runs as.')),
        serviceAccount: pb(9, string('Deprecated alias of serviceAccountName.')),
        automountServiceAccountToken: pb(21, boolean('Whether a service account token is mounted automatically.'), 'optional'),
        nodeName: pb(10, string('Node the pod is bound to; set by the scheduler, or by the client to skip scheduling.')),
        hostNetwork: pb(11, boolean("Whether the pod uses the node's network namespace.")),
        hostPID: pb(12, boolean("Whether the pod uses the node's process ID namespace.")),
        hostIPC: pb(13, boolean("Whether the pod uses the node's IPC namespace.")),
        shareProcessNamespace: pb(27, boolean('Whether the containers share one process namespace.'), 'optional'),
        imagePullSecrets: pb(
          15,
          describe(patchMerge(keyedArray(localObjectReference(), ['name']), 'name'), 'Secrets in the pod’s namespace used to pull images.'),
        ),
        hostname: pb(16, string('Host name of the pod; the pod name when empty.')),
        subdomain: pb(17, string('Subdomain that makes the FQDN <hostname>.<subdomain>.<namespace>.svc.<cluster domain>.')),
        schedulerName: pb(19, string('Scheduler that places the pod. Defaults to default-scheduler.')),
        priorityClassName: pb(24, string('PriorityClass of the pod, which sets its priority.')),
        priority: pb(25, int32('Priority of the pod, filled from priorityClassName by admission.'), 'optional'),
        runtimeClassName: pb(29, string('RuntimeClass the pod runs with.'), 'optional'),
        enableServiceLinks: pb(30, boolean('Whether service environment variables are injected, as Docker links did. Defaults to true.'), 'optional'),
        preemptionPolicy: pb(31, string('PreemptLowerPriority (the default) or Never.'), 'optional'),
        overhead: pb(32, map(quantity(), 'Resources of the pod sandbox, set from its RuntimeClass by admission.')),
        setHostnameAsFQDN: pb(35, boolean('Whether the hostname is the FQDN rather than the short name.'), 'optional'),
        hostUsers: pb(37, boolean('Whether the pod uses the host user namespace. Defaults to true.'), 'optional'),
        resources: pb(40, describe(resourceRequirements(), 'Resources of the pod as a whole (PodLevelResources, alpha).'), 'optional'),
        ...podSchedulingFields(),
      },
      ['containers'],
    ),
  );

export const podSchema = (): Schema =>
  describe(
    kindSchema({
      spec: pb(2, describe(podSpecSchema(), 'The desired state of the pod.')),
      status: pb(3, describe(podStatusSchema(), 'The observed state of the pod, written by the kubelet through status.')),
    }),
    'A group of containers that run together on one node, sharing network and volumes.',
  );
