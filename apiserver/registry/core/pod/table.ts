/**
 * Pod's Table (kubectl get pods), as upstream's printer: Name, Ready (ready/total containers,
 * sidecars counted), Status (upstream's reason computation: phase or reason, init container
 * progress, the last waiting or terminated reason of the containers, Terminating while a deletion
 * is pending), Restarts (with the time of the last restart), Age; with -o wide IP, Node,
 * Nominated Node and Readiness Gates.
 */
import type { Container } from '../../../../shared/api/pod-container.ts';
import type { ContainerStatus, PodStatus } from '../../../../shared/api/pod-status.ts';
import type { Pod } from '../../../../shared/api/pod.ts';
import type { TableDefinition } from '../../definition.ts';
import { age, ageColumn, nameColumn, timeSince, timestampMillis } from '../../table.ts';

/** The pod status reason the node lifecycle controller sets on pods of an unreachable node. */
const nodeUnreachablePodReason = 'NodeLost';

const isRestartable = (container: Container | undefined): boolean => container?.restartPolicy === 'Always';

const conditionTrue = (status: PodStatus, type: string): boolean => (status.conditions ?? []).some((c) => c.type === type && c.status === 'True');

/** The later of a restart time so far and a container's last termination. */
function laterRestart(current: number | null, status: ContainerStatus): number | null {
  const finished = timestampMillis(status.lastState?.terminated?.finishedAt);
  if (finished === null) return current;
  return current === null || finished > current ? finished : current;
}

interface PodRow {
  ready: string;
  reason: string;
  restarts: string;
}

/** upstream's printPod, for the cells that need more than a field. */
export function podRow(pod: Pod, now: Date): PodRow {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const phase = status.phase ?? '';
  let reason = status.reason || phase;
  if ((status.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  const initContainers = new Map((spec.initContainers ?? []).map((c) => [c.name ?? '', c]));
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | null = null;
  let lastSidecarRestart: number | null = null;
  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const container = initStatuses[i] ?? {};
    const sidecar = isRestartable(initContainers.get(container.name ?? ''));
    restarts += container.restartCount ?? 0;
    lastRestart = laterRestart(lastRestart, container);
    if (sidecar) {
      sidecarRestarts += container.restartCount ?? 0;
      lastSidecarRestart = laterRestart(lastSidecarRestart, container);
    }
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (sidecar && container.started === true) {
      if (container.ready) ready++;
      continue;
    }
    if (terminated) {
      if (terminated.reason) reason = `Init:${terminated.reason}`;
      else reason = terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode ?? 0}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(status, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i] ?? {};
      restarts += container.restartCount ?? 0;
      lastRestart = laterRestart(lastRestart, container);
      const waiting = container.state?.waiting;
      const terminated = container.state?.terminated;
      if (waiting?.reason) reason = waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
      else if (container.ready && container.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    // A pod with a container still running is not Completed.
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(status, 'Ready') ? 'Running' : 'NotReady';
  }

  if (pod.metadata.deletionTimestamp && status.reason === nodeUnreachablePodReason) reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestart !== null) restartsText = `${restarts} (${timeSince(new Date(lastRestart).toISOString(), now)} ago)`;
  const total = (spec.containers ?? []).length + (spec.initContainers ?? []).filter(isRestartable).length;
  return { ready: `${ready}/${total}`, reason, restarts: restartsText };
}

/** `true/total` of the readiness gates whose condition is True, or `<none>`. */
function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const conditions = pod.status?.conditions ?? [];
  const met = gates.filter((gate) => conditions.find((c) => c.type === gate.conditionType)?.status === 'True').length;
  return `${met}/${gates.length}`;
}

export const podTable: TableDefinition<Pod> = {
  columns: [
    nameColumn,
    { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.' },
    { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.' },
    {
      name: 'Restarts',
      type: 'string',
      description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    },
    ageColumn,
    { name: 'IP', type: 'string', priority: 1, description: 'The IP address of the pod, routable at least within the cluster; empty until one is allocated.' },
    { name: 'Node', type: 'string', priority: 1, description: 'The node the pod is scheduled to; empty while it waits for its scheduler.' },
    {
      name: 'Nominated Node',
      type: 'string',
      priority: 1,
      description: 'The node on which the pod preempted other pods and may be scheduled once they are gone; no guarantee of placement.',
    },
    {
      name: 'Readiness Gates',
      type: 'string',
      priority: 1,
      description: 'Extra pod conditions that must be True, beyond ready containers, for the pod to be ready.',
    },
  ],
  cells: (pod, now) => {
    const row = podRow(pod, now);
    return [
      pod.metadata.name,
      row.ready,
      row.reason,
      row.restarts,
      age(pod, now),
      pod.status?.podIPs?.[0]?.ip || '<none>',
      pod.spec?.nodeName || '<none>',
      pod.status?.nominatedNodeName || '<none>',
      readinessGates(pod),
    ];
  },
};
