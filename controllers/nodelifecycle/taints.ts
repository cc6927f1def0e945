/**
 * The taints the node lifecycle controller owns (upstream's node_lifecycle_controller.go and
 * controller_utils' SwapNodeControllerTaint):
 *
 * - NoSchedule taints mirroring conditions (doNoScheduleTaintingPass): Ready False → not-ready,
 *   Ready Unknown → unreachable, MemoryPressure/DiskPressure/PIDPressure/NetworkUnavailable True →
 *   their pressure taint, `spec.unschedulable` → unschedulable. New pods stay off such a node.
 * - NoExecute taints for eviction (the tainting pass): not-ready when Ready is False, unreachable
 *   when it is Unknown, never both; pods without a toleration are evicted by the taint-eviction
 *   controller after their tolerationSeconds.
 *
 * Taints are matched by key and effect; those the controller adds carry `timeAdded`, as upstream's
 * do. Taints of anyone else are never touched.
 */
import { conditionOf, conditionsOf, conditionStatus, type Node, type Taint } from './node-conditions.ts';

export const taintKeys = {
  notReady: 'node.kubernetes.io/not-ready',
  unreachable: 'node.kubernetes.io/unreachable',
  unschedulable: 'node.kubernetes.io/unschedulable',
  memoryPressure: 'node.kubernetes.io/memory-pressure',
  diskPressure: 'node.kubernetes.io/disk-pressure',
  pidPressure: 'node.kubernetes.io/pid-pressure',
  networkUnavailable: 'node.kubernetes.io/network-unavailable',
} as const;

export const noSchedule = 'NoSchedule';
export const noExecute = 'NoExecute';

/** Which taint key a condition's status calls for (upstream's nodeConditionToTaintKeyStatusMap). */
const conditionTaints: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { [conditionStatus.false]: taintKeys.notReady, [conditionStatus.unknown]: taintKeys.unreachable },
  MemoryPressure: { [conditionStatus.true]: taintKeys.memoryPressure },
  DiskPressure: { [conditionStatus.true]: taintKeys.diskPressure },
  NetworkUnavailable: { [conditionStatus.true]: taintKeys.networkUnavailable },
  PIDPressure: { [conditionStatus.true]: taintKeys.pidPressure },
};

const conditionTaintKeys = new Set<string>([...Object.values(conditionTaints).flatMap((m) => Object.values(m)), taintKeys.unschedulable]);

export interface TaintRef {
  key: string;
  effect: string;
}

const matches = (a: TaintRef, b: TaintRef): boolean => a.key === b.key && a.effect === b.effect;

export function hasTaint(node: Node, taint: TaintRef): boolean {
  return (node.spec?.taints ?? []).some((t) => matches(t, taint));
}

/** The NoSchedule taints the node's conditions and `spec.unschedulable` call for. */
export function conditionNoScheduleTaints(node: Node): TaintRef[] {
  const wanted: TaintRef[] = [];
  for (const condition of conditionsOf(node)) {
    const key = conditionTaints[condition.type]?.[condition.status];
    if (key) wanted.push({ key, effect: noSchedule });
  }
  if (node.spec?.unschedulable) wanted.push({ key: taintKeys.unschedulable, effect: noSchedule });
  return wanted;
}

/** The changes that make the node's condition NoSchedule taints exactly `conditionNoScheduleTaints`. */
export function noScheduleChanges(node: Node): { add: TaintRef[]; remove: TaintRef[] } {
  const wanted = conditionNoScheduleTaints(node);
  const owned = (node.spec?.taints ?? []).filter((t) => t.effect === noSchedule && conditionTaintKeys.has(t.key));
  return { add: wanted.filter((w) => !owned.some((o) => matches(o, w))), remove: owned.filter((o) => !wanted.some((w) => matches(o, w))) };
}

/** The NoExecute taint the Ready condition calls for, and its opposite; undefined when Ready is True, absent or odd. */
export function noExecuteFor(node: Node): { want: TaintRef; opposite: TaintRef } | undefined {
  const status = conditionOf(node, 'Ready')?.status;
  const notReady = { key: taintKeys.notReady, effect: noExecute };
  const unreachable = { key: taintKeys.unreachable, effect: noExecute };
  if (status === conditionStatus.false) return { want: notReady, opposite: unreachable };
  if (status === conditionStatus.unknown) return { want: unreachable, opposite: notReady };
  return undefined;
}

export const noExecuteTaints: readonly TaintRef[] = [
  { key: taintKeys.unreachable, effect: noExecute },
  { key: taintKeys.notReady, effect: noExecute },
];

/**
 * The node's taints with `remove` dropped and `add` appended (those not already there) with
 * `timeAdded` = `nowIso`; undefined when that changes nothing.
 */
export function changedTaints(node: Node, add: readonly TaintRef[], remove: readonly TaintRef[], nowIso: string): Taint[] | undefined {
  const current = node.spec?.taints ?? [];
  const kept = current.filter((t) => !remove.some((r) => matches(t, r)));
  const added = add.filter((a) => !kept.some((t) => matches(t, a))).map((a) => ({ key: a.key, effect: a.effect, timeAdded: nowIso }));
  if (added.length === 0 && kept.length === current.length) return undefined;
  return [...kept, ...added];
}
