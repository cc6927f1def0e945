/**
 * core/v1 PodStatus: phase, conditions, IPs and the state of every container, as the kubelet and
 * the scheduler report them, with upstream's protobuf field numbers.
 */
import { resourceRequirements, type ResourceList, type ResourceRequirements } from './pod-container.ts';
import { atomicArray, boolean, describe, int32, int64, keyedArray, map, named, object, patchMerge, pb, quantity, string, time, type Schema } from './schema.ts';

export interface PodCondition {
  type?: string;
  status?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

export interface ContainerStateWaiting {
  reason?: string;
  message?: string;
}

export interface ContainerStateTerminated {
  exitCode?: number;
  signal?: number;
  reason?: string;
  message?: string;
  startedAt?: string | null;
  finishedAt?: string | null;
  containerID?: string;
}

export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: { startedAt?: string | null };
  terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
  name?: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready?: boolean;
  restartCount?: number;
  image?: string;
  imageID?: string;
  containerID?: string;
  started?: boolean;
  allocatedResources?: ResourceList;
  resources?: ResourceRequirements;
  [field: string]: unknown;
}

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface PodStatus {
  /** A PodPhase; any string on the wire. */
  phase?: string;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  nominatedNodeName?: string;
  hostIP?: string;
  hostIPs?: { ip?: string }[];
  podIP?: string;
  podIPs?: { ip?: string }[];
  startTime?: string | null;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  qosClass?: string;
  ephemeralContainerStatuses?: ContainerStatus[];
  resize?: string;
  resourceClaimStatuses?: { name?: string; resourceClaimName?: string }[];
}

const coreV1 = (type: string): string => `io.k8s.api.core.v1.${type}`;

const podCondition = (): Schema =>
  named(
    coreV1('PodCondition'),
    'One aspect of a pod’s state: PodScheduled, Initialized, ContainersReady, Ready and others.',
    object(
      {
        type: pb(1, string('Type of the condition.'), 'keepZero'),
        status: pb(2, string('True, False or Unknown.'), 'keepZero'),
        lastProbeTime: pb(3, time('When the condition was last probed.')),
        lastTransitionTime: pb(4, time('When status last changed.')),
        reason: pb(5, string('Machine-readable reason of the last transition, in CamelCase.')),
        message: pb(6, string('Human-readable details of the last transition.')),
      },
      ['type', 'status'],
    ),
  );

const ipEntry = (type: string, description: string): Schema =>
  named(coreV1(type), description, object({ ip: pb(1, string('The IP address.'), 'keepZero') }, ['ip']));

const containerState = (): Schema =>
  named(
    coreV1('ContainerState'),
    'The state of a container: at most one of waiting, running and terminated; waiting when none.',
    object({
      waiting: pb(
        1,
        describe(
          named(
            coreV1('ContainerStateWaiting'),
            'A container not yet running.',
            object({
              reason: pb(1, string('Why it is not running yet, such as ContainerCreating or CrashLoopBackOff.')),
              message: pb(2, string('Details of why it is not running yet.')),
            }),
          ),
          'The container is waiting to run.',
        ),
        'optional',
      ),
      running: pb(
        2,
        describe(
          named(coreV1('ContainerStateRunning'), 'A running container.', object({ startedAt: pb(1, time('When the container last (re)started.')) })),
          'The container is running.',
        ),
        'optional',
      ),
      terminated: pb(
        3,
        describe(
          named(
            coreV1('ContainerStateTerminated'),
            'A container that ran and stopped.',
            object(
              {
                exitCode: pb(1, int32('Exit status of its last run.'), 'keepZero'),
                signal: pb(2, int32('Signal that stopped it.')),
                reason: pb(3, string('Why it stopped, such as Completed, Error or OOMKilled.')),
                message: pb(4, string('Details of why it stopped.')),
                startedAt: pb(5, time('When its last run started.')),
                finishedAt: pb(6, time('When its last run ended.')),
                containerID: pb(7, string('ID of the container, as <type>://<id>.')),
              },
              ['exitCode'],
            ),
          ),
          'The container has stopped.',
        ),
        'optional',
      ),
    }),
  );

const volumeMountStatus = (): Schema =>
  named(
    coreV1('VolumeMountStatus'),
    'A volume mount of a running container.',
    object(
      {
        name: pb(1, string('Name of the volume mount.'), 'keepZero'),
        mountPath: pb(2, string('Path of the mount in the container.'), 'keepZero'),
        readOnly: pb(3, boolean('Whether the mount is read-only.')),
        recursiveReadOnly: pb(4, string('Disabled or Enabled: whether submounts are read-only.'), 'optional'),
      },
      ['name', 'mountPath'],
    ),
  );

const containerUser = (): Schema =>
  named(
    coreV1('ContainerUser'),
    'The identity the first process of a container runs as.',
    object({
      linux: pb(
        1,
        describe(
          named(
            coreV1('LinuxContainerUser'),
            'A Linux process identity.',
            object(
              {
                uid: pb(1, int64('User ID of the process.'), 'keepZero'),
                gid: pb(2, int64('Primary group ID.'), 'keepZero'),
                supplementalGroups: pb(3, describe(atomicArray(int64()), 'Supplemental group IDs.')),
              },
              ['uid', 'gid'],
            ),
          ),
          'The identity on Linux.',
        ),
        'optional',
      ),
    }),
  );

const resourceStatus = (): Schema =>
  named(
    coreV1('ResourceStatus'),
    'Health of the devices allocated to a container for one resource.',
    object(
      {
        name: pb(1, string('Name of the resource, such as a device plugin resource or claim:<claim>/<request>.'), 'keepZero'),
        resources: pb(
          2,
          describe(
            keyedArray(
              named(
                coreV1('ResourceHealth'),
                'Health of one device.',
                object(
                  {
                    resourceID: pb(1, string('Identifier of the device.'), 'keepZero'),
                    health: pb(2, string('Healthy, Unhealthy or Unknown.')),
                  },
                  ['resourceID'],
                ),
              ),
              ['resourceID'],
            ),
            'Health of each device.',
          ),
        ),
      },
      ['name'],
    ),
  );

const containerStatus = (): Schema =>
  named(
    coreV1('ContainerStatus'),
    'The state of one container of a pod.',
    object(
      {
        name: pb(1, string('Name of the container, as in the spec.'), 'keepZero'),
        state: pb(2, describe(containerState(), 'Current state.')),
        lastState: pb(3, describe(containerState(), 'State of the previous run, if it ended.')),
        ready: pb(4, boolean('Whether the readiness probe passes.'), 'keepZero'),
        restartCount: pb(5, int32('How often the container restarted.'), 'keepZero'),
        image: pb(6, string('Image the container runs.'), 'keepZero'),
        imageID: pb(7, string('ID of the image the container runs.'), 'keepZero'),
        containerID: pb(8, string('ID of the container, as <type>://<id>.')),
        started: pb(9, boolean('Whether the startup probe passed.'), 'optional'),
        allocatedResources: pb(10, map(quantity(), 'Resources the node allocated to the container.')),
        resources: pb(11, describe(resourceRequirements(), 'Resources the running container has.'), 'optional'),
        volumeMounts: pb(12, describe(patchMerge(keyedArray(volumeMountStatus(), ['mountPath']), 'mountPath'), 'Volume mounts of the container.')),
        user: pb(13, describe(containerUser(), 'Identity of the container’s first process.'), 'optional'),
        allocatedResourcesStatus: pb(14, describe(patchMerge(keyedArray(resourceStatus(), ['name']), 'name'), 'Health of allocated devices.')),
      },
      ['name', 'ready', 'restartCount', 'image', 'imageID'],
    ),
  );

const containerStatuses = (field: number, description: string): Schema => pb(field, describe(atomicArray(containerStatus()), description));

export const podStatusSchema = (): Schema =>
  named(
    coreV1('PodStatus'),
    'The observed state of a pod, which may lag behind its actual state.',
    object({
      phase: pb(1, string('Pending, Running, Succeeded, Failed or Unknown.')),
      conditions: pb(2, describe(patchMerge(keyedArray(podCondition(), ['type']), 'type'), 'Current conditions.')),
      message: pb(3, string('Human-readable reason for the pod’s condition.')),
      reason: pb(4, string('Machine-readable reason for the pod’s state, such as Evicted.')),
      nominatedNodeName: pb(11, string('Node the scheduler preempted pods on to make room for this pod.')),
      hostIP: pb(5, string('IP address of the node the pod runs on.')),
      hostIPs: pb(16, describe(patchMerge(atomicArray(ipEntry('HostIP', 'An IP address of the node.')), 'ip'), 'IP addresses of the node, one per family.')),
      podIP: pb(6, string('IP address of the pod; the first of podIPs.')),
      podIPs: pb(12, describe(patchMerge(keyedArray(ipEntry('PodIP', 'An IP address of the pod.'), ['ip']), 'ip'), 'IP addresses of the pod, one per family.')),
      startTime: pb(7, time('When the kubelet acknowledged the pod, before pulling images.'), 'optional'),
      initContainerStatuses: containerStatuses(10, 'States of the init containers.'),
      containerStatuses: containerStatuses(8, 'States of the containers.'),
      qosClass: pb(9, string('Quality of service class: Guaranteed, Burstable or BestEffort.')),
      ephemeralContainerStatuses: containerStatuses(13, 'States of the ephemeral containers.'),
      resize: pb(14, string('State of a pending resize: Proposed, InProgress, Deferred or Infeasible.')),
      resourceClaimStatuses: pb(
        15,
        describe(
          {
            ...keyedArray(
              named(
                coreV1('PodResourceClaimStatus'),
                'The ResourceClaim created for an entry of spec.resourceClaims.',
                object(
                  {
                    name: pb(1, string('Name of the entry of spec.resourceClaims.'), 'keepZero'),
                    resourceClaimName: pb(2, string('Name of the generated ResourceClaim; absent when none was needed.'), 'optional'),
                  },
                  ['name'],
                ),
              ),
              ['name'],
            ),
            'x-kubernetes-patch-strategy': 'merge,retainKeys',
            'x-kubernetes-patch-merge-key': 'name',
          },
          'Names of the ResourceClaims generated for the pod.',
        ),
      ),
    }),
  );
