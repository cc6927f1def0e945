/**
 * Zone disruption, as upstream's node lifecycle controller judges it (handleDisruption,
 * ComputeZoneState): nodes are grouped by zone (topology labels), and the share of not-Ready nodes
 * of a zone decides how fast its nodes may be tainted NoExecute, i.e. how fast pods are evicted:
 *
 * - Normal: --node-eviction-rate nodes a second;
 * - PartialDisruption (at least 3 nodes and --unhealthy-zone-threshold of them not Ready): the
 *   --secondary-node-eviction-rate in zones above --large-cluster-size-threshold nodes, else none:
 *   when many nodes fail at once the fault is more likely the network than the nodes;
 * - FullDisruption (no Ready node): the normal rate, unless every zone is fully disrupted. Then the
 *   controller itself is probably cut off ("master disruption mode"): it removes every NoExecute
 *   taint and evicts nothing; when some node is Ready again it leaves the mode and gives every node
 *   a fresh grace period.
 *
 * Nodes labelled `node.kubernetes.io/exclude-disruption` do not count.
 */
import { conditionOf, conditionStatus, type Node } from './node-conditions.ts';
import { TokenBucket } from '../../shared/client/token-bucket.ts';

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** Upstream's EvictionRateLimiterBurst. */
const evictionBurst = 1;
const excludeDisruptionLabel = 'node.kubernetes.io/exclude-disruption';

export interface DisruptionConfig {
  nodeEvictionRate: number;
  secondaryNodeEvictionRate: number;
  largeClusterSizeThreshold: number;
  unhealthyZoneThreshold: number;
}

/**
 * The zone of a node (component-helpers' GetZoneKey): region and zone from the topology labels
 * (the deprecated failure-domain ones first), joined by ":\0:"; "" without either.
 */
export function zoneKey(node: Node): string {
  const labels = node.metadata.labels ?? {};
  const zone = labels['failure-domain.beta.kubernetes.io/zone'] ?? labels['topology.kubernetes.io/zone'] ?? '';
  const region = labels['failure-domain.beta.kubernetes.io/region'] ?? labels['topology.kubernetes.io/region'] ?? '';
  return region === '' && zone === '' ? '' : `${region}:\0:${zone}`;
}

/** How many of the zone's nodes are not Ready, and the state that makes (ComputeZoneState). */
export function zoneState(readyStatuses: (string | undefined)[], unhealthyZoneThreshold: number): { notReady: number; state: ZoneState } {
  const ready = readyStatuses.filter((s) => s === conditionStatus.true).length;
  const notReady = readyStatuses.length - ready;
  if (ready === 0 && notReady > 0) return { notReady, state: 'FullDisruption' };
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyZoneThreshold) return { notReady, state: 'PartialDisruption' };
  return { notReady, state: 'Normal' };
}

export interface DisruptionChange {
  /** Every zone just became fully disrupted: NoExecute taints go, evictions stop. */
  entered: boolean;
  /** Some node is Ready again after master disruption mode. */
  exited: boolean;
  /** Zones whose state changed otherwise (a zone's first judgement is no change). */
  zones: string[];
}

export class Disruption {
  private readonly states = new Map<string, ZoneState>();
  private readonly limiters = new Map<string, TokenBucket>();

  constructor(private readonly config: DisruptionConfig) {}

  /** Every zone is fully disrupted: the controller evicts nothing. */
  get masterDisruption(): boolean {
    return this.states.size > 0 && [...this.states.values()].every((s) => s === 'FullDisruption');
  }

  state(zone: string): ZoneState | undefined {
    return this.states.get(zone);
  }

  /** Judges the zones from the nodes' Ready conditions at `nowMs`, as one pass of handleDisruption. */
  update(nodes: readonly Node[], nowMs: number): DisruptionChange {
    const statuses = new Map<string, (string | undefined)[]>();
    for (const node of nodes) {
      const zone = zoneKey(node);
      if (!this.limiters.has(zone)) this.limiters.set(zone, new TokenBucket(this.config.nodeEvictionRate, evictionBurst, nowMs));
      if (node.metadata.labels?.[excludeDisruptionLabel] !== undefined) continue;
      statuses.set(zone, [...(statuses.get(zone) ?? []), conditionOf(node, 'Ready')?.status]);
    }
    const next = new Map<string, { state: ZoneState; size: number }>();
    for (const [zone, list] of statuses) {
      next.set(zone, { state: zoneState(list, this.config.unhealthyZoneThreshold).state, size: list.length });
      if (!this.states.has(zone)) this.states.set(zone, 'Initial');
    }
    for (const zone of this.states.keys()) if (!next.has(zone)) this.states.delete(zone);
    const allAre = [...next.values()].every((z) => z.state === 'FullDisruption');
    const allWere = [...this.states.values()].every((s) => s === 'FullDisruption');
    const change: DisruptionChange = { entered: false, exited: false, zones: [] };
    if (allAre && allWere) return change;
    if (allAre) {
      for (const zone of this.states.keys()) {
        this.swapLimiter(zone, 0, nowMs);
        this.states.set(zone, 'FullDisruption');
      }
      return { ...change, entered: true };
    }
    for (const [zone, { state, size }] of next) {
      const previous = this.states.get(zone);
      if (!allWere && previous === state) continue;
      this.swapLimiter(zone, this.rateFor(state, size), nowMs);
      this.states.set(zone, state);
      if (previous !== 'Initial') change.zones.push(zone);
    }
    return { ...change, exited: allWere };
  }

  /**
   * Takes the zone's permission to taint one node NoExecute now; otherwise how long to wait for it
   * (undefined: not while the zone's rate is 0).
   */
  tryTaint(zone: string, nowMs: number): { granted: true } | { granted: false; waitMs: number | undefined } {
    let limiter = this.limiters.get(zone);
    if (!limiter) {
      limiter = new TokenBucket(this.config.nodeEvictionRate, evictionBurst, nowMs);
      this.limiters.set(zone, limiter);
    }
    return limiter.tryAccept(nowMs) ? { granted: true } : { granted: false, waitMs: limiter.waitMs(nowMs) };
  }

  /** Upstream's setLimiterInZone with HealthyQPSFunc and ReducedQPSFunc. */
  private rateFor(state: ZoneState, zoneSize: number): number {
    if (state === 'PartialDisruption') return zoneSize > this.config.largeClusterSizeThreshold ? this.config.secondaryNodeEvictionRate : 0;
    return this.config.nodeEvictionRate;
  }

  /** RateLimitedTimedQueue.SwapLimiter: a new rate; a drained bucket stays drained. */
  private swapLimiter(zone: string, qps: number, nowMs: number): void {
    const old = this.limiters.get(zone);
    if (old?.qps === qps) return;
    const limiter = new TokenBucket(qps, evictionBurst, nowMs);
    if (old && !old.tryAccept(nowMs)) limiter.tryAccept(nowMs);
    this.limiters.set(zone, limiter);
  }
}
