/**
 * What the node agent needs from a container runtime: the least of CRI (the kubelet's
 * kubecontainer.Runtime) that pod status and pod lifecycle depend on. The agent asks the runtime
 * to bring a pod to its spec (syncPod) and reports what it answers, container by container; it
 * never makes up a state the runtime did not report.
 *
 * Implementations: NoRuntime (no-runtime.ts), corral's only one today, which runs nothing and says
 * so. A CRI client would implement the same interface over the runtime's socket.
 */
import type { ContainerState, Pod } from '../pods/pod.ts';

/** The runtime's name and versions (CRI's VersionResponse). */
export interface RuntimeVersion {
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

/** Whether the runtime can run pods at all (CRI's RuntimeReady condition). */
export interface RuntimeCondition {
  ready: boolean;
  reason?: string;
  message?: string;
}

/** One container as the runtime reports it after a sync. */
export interface ContainerRuntimeState {
  name: string;
  state: ContainerState;
  ready: boolean;
  started: boolean;
  restartCount: number;
  imageID: string;
  containerID?: string;
}

/** A pod as the runtime reports it after a sync. */
export interface PodRuntimeStatus {
  /** A sandbox with its network exists (PodReadyToStartContainers). */
  sandboxReady: boolean;
  /** The sandbox's IPs, primary first; none without a sandbox. */
  podIPs: string[];
  /** Init containers and containers the runtime knows of; absent ones have not been created. */
  containers: ContainerRuntimeState[];
}

/** A pod with containers running on the node (kubecontainer.Pod). */
export interface RunningPod {
  uid: string;
  name: string;
  namespace: string;
  containers: { name: string; containerID: string }[];
}

export interface ContainerRuntime {
  version(): Promise<RuntimeVersion>;
  /** Whether pods can run; the node's Ready condition reports it. */
  status(): Promise<RuntimeCondition>;
  /** Brings the pod's sandbox and containers towards its spec, then reports them. Must not throw for a pod it cannot run: it reports why instead. */
  syncPod(pod: Pod): Promise<PodRuntimeStatus>;
  /** Stops every container and the sandbox of the pod; done when nothing of it runs. */
  killPod(pod: Pod, gracePeriodSeconds: number): Promise<void>;
  /** Pods with anything running, whether the agent knows them or not. */
  listPods(): Promise<RunningPod[]>;
}
