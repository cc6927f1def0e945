/**
 * The runtime of a node agent that has none: corral's agent starts no containers, and says so
 * truthfully wherever a kubelet would report containers.
 *
 * Every container of every pod is reported waiting with reason `ContainerRuntimeUnavailable`.
 * Why a reason of its own: upstream's waiting reasons (ContainerCreating, ErrImagePull,
 * CreateContainerError...) each claim that a runtime tried something; none says "there is no
 * runtime". The wording follows upstream's style for runtime problems (PascalCase reason, a message
 * naming the cause), so `kubectl get pods` shows it in the STATUS column as it shows ErrImagePull.
 * No sandbox exists, so pods have no IPs of their own, and nothing is ever running: killing a pod
 * is done at once and no pods are listed.
 */
import { allContainers, type Pod } from '../pods/pod.ts';
import type { ContainerRuntime, PodRuntimeStatus, RunningPod, RuntimeCondition, RuntimeVersion } from './runtime.ts';

/** The waiting reason of every container on a node without a runtime. */
export const noRuntimeReason = 'ContainerRuntimeUnavailable';
/** The waiting message that goes with it. */
export const noRuntimeMessage = "corral's node agent has no container runtime: containers are not started";

export class NoRuntime implements ContainerRuntime {
  async version(): Promise<RuntimeVersion> {
    return { runtimeName: 'none', runtimeVersion: '0.0.0', runtimeApiVersion: 'v1' };
  }

  async status(): Promise<RuntimeCondition> {
    return { ready: false, reason: noRuntimeReason, message: noRuntimeMessage };
  }

  async syncPod(pod: Pod): Promise<PodRuntimeStatus> {
    return {
      sandboxReady: false,
      podIPs: [],
      containers: allContainers(pod.spec).map((container) => ({
        name: container.name,
        state: { waiting: { reason: noRuntimeReason, message: noRuntimeMessage } },
        ready: false,
        started: false,
        restartCount: 0,
        imageID: '',
      })),
    };
  }

  async killPod(): Promise<void> {}

  async listPods(): Promise<RunningPod[]> {
    return [];
  }
}
