/**
 * When the controller last heard from each node's kubelet, by its own clock (upstream's
 * nodeHealthMap). A kubelet proves it is alive by renewing its Lease (kube-node-lease/<node>) or
 * by posting a new Ready heartbeat; the controller notes the time *it saw* the renewal (the probe
 * timestamp), never the time written in the object, so that clock skew between machines cannot
 * make a node look dead or alive. A node is overdue once the grace period has passed since the
 * probe timestamp: --node-monitor-grace-period, or --node-startup-grace-period for a node that
 * never posted a Ready condition (counted from its creation).
 *
 * The first sight of a node with a Ready condition counts as a renewal: after a restart or a
 * leader change every node gets a full grace period before anything is marked.
 */
import { tryParseTime } from '../../shared/go/time.ts';
import { conditionOf, type Lease, type Node } from './node-conditions.ts';

interface Observed {
  probeMs: number;
  /** The Ready condition's lastHeartbeatTime as last seen; undefined while the node has none. */
  heartbeat: string | undefined;
  /** The Lease's renewTime as last seen, in microseconds. */
  leaseRenewUs: number | undefined;
}

export interface HealthVerdict {
  probeMs: number;
  gracePeriodMs: number;
  /** When the node becomes overdue: probe + grace period. */
  deadlineMs: number;
  /** `now` is past the deadline. */
  overdue: boolean;
}

function microseconds(text: string | undefined): number | undefined {
  const instant = text ? tryParseTime(text) : null;
  return instant ? instant.seconds * 1e6 + Math.floor(instant.nanos / 1000) : undefined;
}

function heartbeatOf(node: Node): string | undefined {
  const ready = conditionOf(node, 'Ready');
  return ready ? (ready.lastHeartbeatTime ?? '') : undefined;
}

export class NodeHealth {
  private readonly nodes = new Map<string, Observed>();

  constructor(private readonly grace: { monitorMs: number; startupMs: number }) {}

  /** Notes what `node` and its `lease` show at `nowMs` and says whether the node is overdue. */
  observe(node: Node, lease: Lease | undefined, nowMs: number): HealthVerdict {
    const name = node.metadata.name ?? '';
    const saved = this.nodes.get(name);
    const heartbeat = heartbeatOf(node);
    const createdMs = Date.parse(node.metadata.creationTimestamp ?? '') || nowMs;
    let next: Observed;
    if (heartbeat === undefined) {
      // Never posted (or removed its Ready condition): counted from creation, unless seen before.
      next = saved ? { ...saved, heartbeat } : { probeMs: createdMs, heartbeat, leaseRenewUs: undefined };
    } else if (saved?.heartbeat !== heartbeat) {
      // First seen, or a new heartbeat posted.
      next = { probeMs: nowMs, heartbeat, leaseRenewUs: saved?.leaseRenewUs };
    } else {
      next = saved;
    }
    // A renewed Lease always counts, even for a node that never posted its status.
    const renewUs = microseconds(lease?.spec?.renewTime);
    if (renewUs !== undefined && (next.leaseRenewUs === undefined || next.leaseRenewUs < renewUs)) {
      next = { ...next, probeMs: nowMs, leaseRenewUs: renewUs };
    }
    this.nodes.set(name, next);
    const gracePeriodMs = heartbeat !== undefined ? this.grace.monitorMs : this.grace.startupMs;
    const deadlineMs = next.probeMs + gracePeriodMs;
    return { probeMs: next.probeMs, gracePeriodMs, deadlineMs, overdue: nowMs > deadlineMs };
  }

  /** Every node starts a fresh grace period at `nowMs` (leaving master disruption mode). */
  renewAll(nowMs: number): void {
    for (const [name, observed] of this.nodes) this.nodes.set(name, { ...observed, probeMs: nowMs });
  }

  forget(name: string): void {
    this.nodes.delete(name);
  }
}
