/**
 * Node conditions as the node lifecycle controller reads and writes them: the Ready condition that
 * tells whether a node's kubelet is alive, and the status a node gets when its kubelet stops
 * reporting (upstream's tryUpdateNodeHealth): Ready, MemoryPressure, DiskPressure and PIDPressure
 * become Unknown. NetworkUnavailable is left alone: the network plugin, not the kubelet, owns it.
 */
import type { Lease } from '../../shared/api/lease.ts';
import type { Node, Taint } from '../../shared/api/node.ts';

export type { Lease, Node, Taint };

export interface NodeCondition {
  type: string;
  status: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
  [field: string]: unknown;
}

export const conditionStatus = { true: 'True', false: 'False', unknown: 'Unknown' } as const;

/** The conditions set to Unknown when the kubelet stops reporting, in upstream's order. */
export const conditionsMarkedUnknown = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

/** Upstream's reasons and messages. */
export const stoppedPosting = { reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' } as const;
export const neverPosted = { reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.' } as const;

/** The node's conditions; malformed entries (not objects, no type or status string) are skipped. */
export function conditionsOf(node: Node): NodeCondition[] {
  return (node.status?.conditions ?? []).filter(
    (c): c is NodeCondition => typeof c === 'object' && c !== null && typeof c.type === 'string' && typeof c.status === 'string',
  );
}

export function conditionOf(node: Node, type: string): NodeCondition | undefined {
  return conditionsOf(node).find((c) => c.type === type);
}

/**
 * The node with every condition of `conditionsMarkedUnknown` Unknown, as upstream writes it at
 * `nowIso`: a condition never posted is added (NodeStatusNeverUpdated, heartbeat at the node's
 * creation), one not yet Unknown changes status, reason, message and transition time (its
 * heartbeat is kept: the controller did not hear from the kubelet). Undefined when the Ready
 * condition would not change, since upstream writes only then.
 */
export function markedUnknown(node: Node, nowIso: string): Node | undefined {
  const before = conditionOf(node, 'Ready');
  const conditions = (node.status?.conditions ?? []).map((c) => ({ ...c }));
  for (const type of conditionsMarkedUnknown) {
    const current = conditions.find((c): c is NodeCondition => c.type === type && typeof c.status === 'string');
    if (!current) {
      conditions.push({
        type,
        status: conditionStatus.unknown,
        reason: neverPosted.reason,
        message: neverPosted.message,
        ...(node.metadata.creationTimestamp ? { lastHeartbeatTime: node.metadata.creationTimestamp } : {}),
        lastTransitionTime: nowIso,
      });
    } else if (current.status !== conditionStatus.unknown) {
      Object.assign(current, { status: conditionStatus.unknown, reason: stoppedPosting.reason, message: stoppedPosting.message, lastTransitionTime: nowIso });
    }
  }
  const after = conditions.find((c) => c.type === 'Ready');
  const same =
    before !== undefined &&
    after !== undefined &&
    before.status === after.status &&
    before.reason === after.reason &&
    before.message === after.message &&
    before.lastTransitionTime === after.lastTransitionTime;
  if (same) return undefined;
  return { ...node, status: { ...node.status, conditions } };
}
