/**
 * A pod's status as the kubelet writes it (pkg/kubelet/kubelet_pods.go generateAPIPodStatus,
 * pkg/kubelet/status/generate.go, and the status manager's timestamps), from what the container
 * runtime reported. Pure: the caller gives the time.
 *
 * - containerStatuses (sorted by name, as upstream sorts them) and initContainerStatuses (in spec
 *   order): the runtime's state of each container; a container the runtime does not report is
 *   waiting with upstream's default reason (ContainerCreating, or PodInitializing when the pod has
 *   init containers).
 * - conditions: those the kubelet does not own are kept, first; then PodReadyToStartContainers
 *   (a sandbox exists), Initialized, Ready, ContainersReady and PodScheduled True, in upstream's
 *   order, with upstream's reasons and messages (`containers with unready status: [a b]`). A
 *   condition keeps its lastTransitionTime while its status stays (updateLastTransitionTime).
 * - phase: upstream's getPhase for the cases a runtime can report (see podPhase).
 * - hostIP/hostIPs: the node's addresses; podIP/podIPs: the sandbox's, or the node's for a
 *   hostNetwork pod, as upstream fills them; startTime: set once, then kept.
 * - Everything else in the old status (qosClass, which the API server sets; nominatedNodeName...) is kept.
 */
import type { PodRuntimeStatus } from '../runtime/runtime.ts';
import { formatTimeOf } from '../../shared/go/time.ts';
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodSpec, PodStatus } from './pod.ts';

/** Upstream's condition reasons (pkg/kubelet/status/generate.go). */
export const unknownContainerStatusesReason = 'UnknownContainerStatuses';
export const containersNotReadyReason = 'ContainersNotReady';
export const containersNotInitializedReason = 'ContainersNotInitialized';
export const readinessGatesNotReadyReason = 'ReadinessGatesNotReady';
/** Upstream's default waiting reasons for a container not created yet. */
export const containerCreatingReason = 'ContainerCreating';
export const podInitializingReason = 'PodInitializing';

/** Condition types the kubelet owns (kubetypes.PodConditionByKubelet); others are kept as they are. */
const kubeletConditions = new Set(['PodScheduled', 'Ready', 'Initialized', 'ContainersReady', 'PodReadyToStartContainers']);

export interface PodStatusInputs {
  pod: Pod;
  runtime: PodRuntimeStatus;
  /** The node's addresses, primary first. */
  hostIPs: readonly string[];
  /** Milliseconds since the epoch. */
  now: number;
}

/** The status the agent should write for `pod`. */
export function generatePodStatus({ pod, runtime, hostIPs, now }: PodStatusInputs): PodStatus {
  const old = pod.status ?? {};
  const spec = pod.spec ?? {};
  const nowText = formatTimeOf(new Date(now));
  const hasInit = (spec.initContainers ?? []).length > 0;
  const initContainerStatuses = (spec.initContainers ?? []).map((c) => containerStatus(c, runtime, hasInit));
  const containerStatuses = (spec.containers ?? [])
    .map((c) => containerStatus(c, runtime, hasInit))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const all = [...initContainerStatuses, ...containerStatuses];
  const phase = podPhase(spec, initContainerStatuses, containerStatuses);

  const generated: PodCondition[] = [
    { type: 'PodReadyToStartContainers', status: runtime.sandboxReady ? 'True' : 'False' },
    initializedCondition(spec, all, phase),
    readyCondition(spec, old.conditions ?? [], all, phase),
    containersReadyCondition(spec, all, phase),
    { type: 'PodScheduled', status: 'True' },
  ];
  const kept = (old.conditions ?? []).filter((c) => !kubeletConditions.has(c.type));
  const conditions = [
    ...kept,
    ...generated.map((c) => {
      const before = (old.conditions ?? []).find((o) => o.type === c.type);
      const lastTransitionTime = before && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : nowText;
      return {
        type: c.type,
        status: c.status,
        lastProbeTime: null,
        lastTransitionTime,
        ...(c.reason ? { reason: c.reason } : {}),
        ...(c.message ? { message: c.message } : {}),
      };
    }),
  ];

  const status: PodStatus = { ...old, phase, conditions };
  delete status.hostIP;
  delete status.hostIPs;
  delete status.podIP;
  delete status.podIPs;
  if (hostIPs[0] !== undefined) {
    status.hostIP = hostIPs[0];
    status.hostIPs = hostIPs.map((ip) => ({ ip }));
  }
  const podIPs = runtime.podIPs.length > 0 ? runtime.podIPs : spec.hostNetwork ? hostIPs : [];
  if (podIPs[0] !== undefined) {
    status.podIP = podIPs[0];
    status.podIPs = podIPs.map((ip) => ({ ip }));
  }
  status.startTime = old.startTime || nowText;
  status.initContainerStatuses = initContainerStatuses;
  status.containerStatuses = containerStatuses;
  if (initContainerStatuses.length === 0) delete status.initContainerStatuses;
  return status;
}

function containerStatus(container: Container, runtime: PodRuntimeStatus, hasInit: boolean): ContainerStatus {
  const reported = runtime.containers.find((c) => c.name === container.name);
  const state: ContainerState = reported?.state ?? { waiting: { reason: hasInit ? podInitializingReason : containerCreatingReason } };
  return {
    ...(reported?.containerID ? { containerID: reported.containerID } : {}),
    image: container.image ?? '',
    imageID: reported?.imageID ?? '',
    lastState: {},
    name: container.name,
    ready: reported?.ready ?? false,
    restartCount: reported?.restartCount ?? 0,
    started: reported?.started ?? false,
    state,
  };
}

const isRestartable = (c: Container): boolean => c.restartPolicy === 'Always';

/** Go's %s of a []string: `[a b]`. */
const goList = (names: string[]): string => `[${names.join(' ')}]`;

/** GenerateContainersReadyCondition. */
function containersReadyCondition(spec: PodSpec, statuses: ContainerStatus[], phase: string): PodCondition {
  const unknown: string[] = [];
  const unready: string[] = [];
  const check = (c: Container): void => {
    const s = statuses.find((x) => x.name === c.name);
    if (!s) unknown.push(c.name);
    else if (!s.ready) unready.push(c.name);
  };
  (spec.initContainers ?? []).filter(isRestartable).forEach(check);
  (spec.containers ?? []).forEach(check);
  if (phase === 'Succeeded' && unknown.length === 0) return { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { type: 'ContainersReady', status: 'False', reason: 'PodFailed' };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${goList(unready)}`);
  if (messages.length > 0) return { type: 'ContainersReady', status: 'False', reason: containersNotReadyReason, message: messages.join(', ') };
  return { type: 'ContainersReady', status: 'True' };
}

/** GeneratePodReadyCondition: ContainersReady's verdict, then the readiness gates. */
function readyCondition(spec: PodSpec, conditions: PodCondition[], statuses: ContainerStatus[], phase: string): PodCondition {
  const containersReady = containersReadyCondition(spec, statuses, phase);
  if (containersReady.status !== 'True') {
    return {
      type: 'Ready',
      status: containersReady.status,
      ...(containersReady.reason ? { reason: containersReady.reason } : {}),
      ...(containersReady.message ? { message: containersReady.message } : {}),
    };
  }
  const gates = Array.isArray(spec['readinessGates']) ? (spec['readinessGates'] as { conditionType?: string }[]) : [];
  const messages: string[] = [];
  for (const gate of gates) {
    const type = gate.conditionType ?? '';
    const found = conditions.find((c) => c.type === type);
    if (!found) messages.push(`corresponding condition of pod readiness gate ${JSON.stringify(type)} does not exist.`);
    else if (found.status !== 'True') messages.push(`the status of pod readiness gate ${JSON.stringify(type)} is not "True", but ${found.status}`);
  }
  if (messages.length > 0) return { type: 'Ready', status: 'False', reason: readinessGatesNotReadyReason, message: messages.join(', ') };
  return { type: 'Ready', status: 'True' };
}

/** GeneratePodInitializedCondition. */
function initializedCondition(spec: PodSpec, statuses: ContainerStatus[], phase: string): PodCondition {
  const init = spec.initContainers ?? [];
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of init) {
    const s = statuses.find((x) => x.name === c.name);
    if (!s) unknown.push(c.name);
    else if (isRestartable(c) ? !s.started : !s.ready) incomplete.push(c.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  const regular = new Set((spec.containers ?? []).map((c) => c.name));
  if (statuses.some((s) => regular.has(s.name) && (s.state.running || s.state.terminated))) return { type: 'Initialized', status: 'True' };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length > 0) messages.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (messages.length > 0) return { type: 'Initialized', status: 'False', reason: containersNotInitializedReason, message: messages.join(', ') };
  return { type: 'Initialized', status: 'True' };
}

/**
 * Upstream's getPhase for what a runtime can report: Pending while an init container has not
 * completed or every container waits; Running once one runs; once all have terminated, Succeeded
 * or Failed by their exit codes and the restart policy (Running when they will be restarted).
 */
export function podPhase(spec: PodSpec, init: ContainerStatus[], regular: ContainerStatus[]): string {
  const initContainers = spec.initContainers ?? [];
  const pendingInit = init.some((s) => {
    const c = initContainers.find((x) => x.name === s.name);
    if (c && isRestartable(c)) return !s.started;
    return !(s.state.terminated && s.state.terminated.exitCode === 0);
  });
  if (pendingInit) return 'Pending';
  const waiting = regular.filter((s) => s.state.waiting || (!s.state.running && !s.state.terminated)).length;
  const running = regular.filter((s) => s.state.running).length;
  const succeeded = regular.filter((s) => s.state.terminated?.exitCode === 0).length;
  const failed = regular.filter((s) => s.state.terminated && s.state.terminated.exitCode !== 0).length;
  if (regular.length === 0 || waiting === regular.length) return 'Pending';
  if (running > 0) return 'Running';
  if (waiting > 0) return 'Pending';
  const policy = typeof spec['restartPolicy'] === 'string' ? spec['restartPolicy'] : 'Always';
  if (policy === 'Always') return 'Running';
  if (failed > 0) return policy === 'Never' ? 'Failed' : 'Running';
  return succeeded === regular.length ? 'Succeeded' : 'Pending';
}
