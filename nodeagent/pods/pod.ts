/**
 * The parts of a Pod the node agent reads and writes, as structural types over the wire JSON, and
 * the kubelet's names for static and mirror pods (pkg/kubelet/types/pod_update.go).
 *
 * Why not the API's Pod type (shared/api/pod.ts): that one follows the wire, where nearly every
 * field may be absent; these name only the fields this folder touches, with the ones the agent
 * always writes (a container status's state, name, image) required, so that what it generates is
 * checked complete. Any wire Pod satisfies them. Tolerations are the API's own.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import type { Toleration } from '../../shared/api/pod.ts';

export type { Toleration };

export interface Container {
  name: string;
  image?: string;
  /** `Always` marks a restartable init container (a sidecar). */
  restartPolicy?: string;
  [field: string]: unknown;
}

export interface PodSpec {
  nodeName?: string;
  containers?: Container[];
  initContainers?: Container[];
  tolerations?: Toleration[];
  hostNetwork?: boolean;
  volumes?: { name?: string; projected?: { sources?: Record<string, unknown>[] }; [field: string]: unknown }[];
  resourceClaims?: unknown[];
  [field: string]: unknown;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode: number; reason?: string; message?: string; startedAt?: string; finishedAt?: string; containerID?: string };
}

export interface ContainerStatus {
  name: string;
  state: ContainerState;
  lastState: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
}

export interface PodStatus {
  phase?: string;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  qosClass?: string;
  [field: string]: unknown;
}

/** A Pod as the agent sees it: any wire Pod fits. */
export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

/** Upstream's config source names (kubetypes.FileSource, HTTPSource, ApiserverSource). */
export type PodSource = 'file' | 'http' | 'api';

/** The source a pod came from: `file`, `http` or `api`. */
export const configSourceAnnotation = 'kubernetes.io/config.source';
/** On a mirror pod: the config hash of the static pod it mirrors. */
export const configMirrorAnnotation = 'kubernetes.io/config.mirror';
/** When the agent first saw the pod (RFC 3339 with nanoseconds). */
export const configFirstSeenAnnotation = 'kubernetes.io/config.seen';
/** The hash (and UID) of a static pod's manifest. */
export const configHashAnnotation = 'kubernetes.io/config.hash';

/** Upstream's kubecontainer.GetPodFullName: `name_namespace`, the key pods are matched by across sources. */
export function podFullName(pod: Pod): string {
  return `${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}`;
}

/** Upstream's format.Pod: `name_namespace(uid)`, as events and logs show a pod. */
export function describePod(pod: Pod): string {
  return `${podFullName(pod)}(${pod.metadata.uid ?? ''})`;
}

/** A pod from a file or URL (kubetypes.IsStaticPod: its source annotation is not `api`). */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata.annotations?.[configSourceAnnotation];
  return source !== undefined && source !== 'api';
}

/** A mirror pod carries the mirror annotation (kubetypes.IsMirrorPod). */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.[configMirrorAnnotation] !== undefined;
}

/** Every container of the spec, init containers first. */
export function allContainers(spec: PodSpec | undefined): Container[] {
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
}
