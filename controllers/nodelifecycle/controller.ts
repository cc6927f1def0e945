/**
 * The node lifecycle controller (upstream's pkg/controller/nodelifecycle, monitorNodeHealth and
 * its tainting passes), lease-based and level-based: one reconcile per node, run on every change
 * to the node or its Lease (kube-node-lease/<node>), at the node's grace deadline, and at least
 * every --node-monitor-period, as upstream checks every node that often. Each reconcile:
 *
 * 1. notes whether the kubelet renewed the Lease or posted a new Ready heartbeat (node-health.ts);
 * 2. once the grace period has passed without either, writes Ready, MemoryPressure, DiskPressure
 *    and PIDPressure Unknown through nodes/<node>/status (NodeStatusUnknown, "Kubelet stopped
 *    posting node status."), with a NodeNotReady Event; the write comes back through the watch
 *    and the next reconcile goes on from there;
 * 3. makes the node's taints agree with its conditions (taints.ts): the condition NoSchedule taints
 *    at once; the NoExecute taint (not-ready or unreachable) paced per zone (disruption.ts), none
 *    in master disruption mode; both go once the node is Ready again.
 *
 * Taints are written with one strategic merge patch carrying the cached resourceVersion, as
 * upstream's PatchNodeTaints does, so a stale cache yields a Conflict and a retry, never a lost
 * taint. Everything it writes is within system:controller:node-controller (nodes patch,
 * nodes/status update, events). Pod-level work upstream also does here (marking pods NotReady)
 * and taint-based eviction (the taint-eviction controller) are not part of it.
 */
import { formatTimeOf } from '../../shared/go/time.ts';
import type { ControllerManagerConfig } from '../config.ts';
import { resourcePath, type ResourceRef } from '../../shared/client/api-client.ts';
import { newQueue, runWorkers, type ControllerContext, type ReconcileResult } from '../framework/controller.ts';
import type { Informer } from '../../shared/client/informer.ts';
import type { WorkQueue } from '../framework/work-queue.ts';
import type { RegisteredController } from '../registry.ts';
import { Disruption, zoneKey, type DisruptionConfig } from './disruption.ts';
import { conditionOf, conditionStatus, markedUnknown, type Lease, type Node } from './node-conditions.ts';
import { NodeHealth } from './node-health.ts';
import { changedTaints, hasTaint, noExecuteFor, noExecuteTaints, noScheduleChanges, type TaintRef } from './taints.ts';

export type NodeLifecycleConfig = DisruptionConfig &
  Pick<ControllerManagerConfig, 'nodeMonitorPeriodMs' | 'nodeMonitorGracePeriodMs' | 'nodeStartupGracePeriodMs'>;

export const nodesResource: ResourceRef = { group: '', version: 'v1', resource: 'nodes', namespaced: false };
export const leasesResource: ResourceRef = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true };
export const nodeLeaseNamespace = 'kube-node-lease';

/** Upstream's nodeUpdateWorkerSize. */
const workers = 8;

const asNode = (node: Node): Node => ({ ...node, apiVersion: 'v1', kind: 'Node' });

export class NodeLifecycleController {
  private readonly nodes: Informer<Node>;
  private readonly leases: Informer<Lease>;
  private readonly queue: WorkQueue;
  private readonly health: NodeHealth;
  private readonly disruption: Disruption;
  /** Nodes seen, by name, with their UID (for the RemovingNode Event). */
  private readonly known = new Map<string, string>();
  /**
   * Nodes written whose new version the cache has not shown yet, with the resourceVersion the
   * write was based on: until the watch brings the write, a reconcile would act on what it
   * already changed (client-go controllers' "expectations").
   */
  private readonly awaiting = new Map<string, string>();
  /** Bumped on every node event: zones are judged again only when nodes changed. */
  private nodesVersion = 0;
  private judgedVersion = -1;

  constructor(private readonly ctx: ControllerContext<NodeLifecycleConfig>) {
    const { config } = ctx;
    this.nodes = ctx.informers.informer<Node>(nodesResource);
    this.leases = ctx.informers.informer<Lease>(leasesResource, { namespace: nodeLeaseNamespace });
    this.queue = newQueue(ctx, 'node_lifecycle_controller');
    this.health = new NodeHealth({ monitorMs: config.nodeMonitorGracePeriodMs, startupMs: config.nodeStartupGracePeriodMs });
    this.disruption = new Disruption(config);
    const onNode = (node: Node): void => {
      this.nodesVersion++;
      this.queue.add(node.metadata.name ?? '');
    };
    this.nodes.on({ add: onNode, update: onNode, delete: onNode });
    const onLease = (lease: Lease): void => this.queue.add(lease.metadata.name ?? '');
    this.leases.on({ add: onLease, update: onLease });
  }

  /** Runs the workers once both caches have listed (a zone judged on half the nodes would be wrong). */
  async run(): Promise<void> {
    await Promise.all([this.nodes.synced(), this.leases.synced()]);
    await runWorkers(this.queue, workers, (name) => this.reconcile(name), this.ctx.logger);
  }

  async reconcile(name: string): Promise<ReconcileResult> {
    const { ctx } = this;
    const now = ctx.clock.now();
    this.judgeZones(now);
    const node = this.nodes.get(name);
    if (!node) {
      this.forget(name);
      return;
    }
    const base = this.awaiting.get(name);
    if (base !== undefined && base === node.metadata.resourceVersion) return { requeueAfterMs: ctx.config.nodeMonitorPeriodMs };
    this.awaiting.delete(name);
    if (!this.known.has(name)) {
      this.known.set(name, node.metadata.uid ?? '');
      ctx.logger.info({ node: name }, 'controller observed a new Node');
      ctx.events.event(asNode(node), 'Normal', 'RegisteredNode', `Registered Node ${name} in Controller`);
    }
    const verdict = this.health.observe(node, this.leases.get(`${nodeLeaseNamespace}/${name}`), now);
    if (verdict.overdue && (await this.markUnknown(node, now))) return { requeueAfterMs: ctx.config.nodeMonitorPeriodMs };
    const taintWaitMs = await this.reconcileTaints(node, now);
    const waits = [
      ctx.config.nodeMonitorPeriodMs,
      ...(verdict.overdue ? [] : [verdict.deadlineMs - now + 1]),
      ...(taintWaitMs === undefined ? [] : [taintWaitMs]),
    ];
    return { requeueAfterMs: Math.max(1, Math.min(...waits)) };
  }

  /** Writes the Unknown conditions when they change Ready; true when it wrote. */
  private async markUnknown(node: Node, now: number): Promise<boolean> {
    const { ctx } = this;
    const name = node.metadata.name ?? '';
    const marked = markedUnknown(node, formatTimeOf(new Date(now)));
    if (!marked) return false;
    ctx.logger.info({ node: name }, 'node stopped posting status; marking its conditions Unknown');
    this.wrote(node, await ctx.api.update<Node>(resourcePath(nodesResource, undefined, name, 'status'), asNode(marked)));
    if (conditionOf(node, 'Ready')?.status === conditionStatus.true) {
      ctx.events.event(asNode(node), 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
    }
    return true;
  }

  /**
   * Patches the node's taints to agree with its cached conditions; returns how long until the
   * zone allows a NoExecute taint it is waiting for.
   */
  private async reconcileTaints(node: Node, now: number): Promise<number | undefined> {
    const { add, remove } = noScheduleChanges(node);
    let waitMs: number | undefined;
    const noExecute = noExecuteFor(node);
    if (!noExecute) {
      // Ready (or no Ready condition to judge by): reachable.
      if (conditionOf(node, 'Ready')?.status === conditionStatus.true) remove.push(...noExecuteTaints);
    } else if (this.disruption.masterDisruption) {
      remove.push(...noExecuteTaints);
    } else if (hasTaint(node, noExecute.opposite)) {
      // Ready flipped between False and Unknown: the taint follows at once, unpaced.
      add.push(noExecute.want);
      remove.push(noExecute.opposite);
    } else if (!hasTaint(node, noExecute.want)) {
      const permit = this.disruption.tryTaint(zoneKey(node), now);
      if (permit.granted) add.push(noExecute.want);
      else waitMs = permit.waitMs;
    }
    await this.patchTaints(node, add, remove, now);
    return waitMs;
  }

  private async patchTaints(node: Node, add: TaintRef[], remove: TaintRef[], now: number): Promise<void> {
    const taints = changedTaints(node, add, remove, formatTimeOf(new Date(now)));
    if (!taints) return;
    const name = node.metadata.name ?? '';
    this.ctx.logger.info({ node: name, taints: taints.map((t) => `${t.key}:${t.effect}`) }, 'updating node taints');
    const patched = await this.ctx.api.patch<Node>(resourcePath(nodesResource, undefined, name), 'strategic', {
      metadata: { resourceVersion: node.metadata.resourceVersion },
      spec: { taints: taints.length ? taints : null },
    });
    this.wrote(node, patched);
  }

  /** `written` is what the API answered to a write based on `base`; a write that changed nothing keeps its version. */
  private wrote(base: Node, written: Node): void {
    const from = base.metadata.resourceVersion;
    if (from !== undefined && written.metadata.resourceVersion !== from) this.awaiting.set(base.metadata.name ?? '', from);
  }

  /** Judges the zones again when nodes changed, acting on a change of disruption mode or zone state. */
  private judgeZones(now: number): void {
    if (this.judgedVersion === this.nodesVersion) return;
    this.judgedVersion = this.nodesVersion;
    const nodes = this.nodes.list();
    const change = this.disruption.update(nodes, now);
    const { logger } = this.ctx;
    if (change.entered) logger.info('controller detected that all Nodes are not-Ready; entering master disruption mode');
    if (change.exited) {
      logger.info('controller detected that some Nodes are Ready; exiting master disruption mode');
      this.health.renewAll(now);
    }
    for (const zone of change.zones) logger.info({ zone, state: this.disruption.state(zone) }, 'controller detected that zone is now in new state');
    if (change.entered || change.exited) {
      for (const node of nodes) this.queue.add(node.metadata.name ?? '');
    } else if (change.zones.length) {
      for (const node of nodes) if (change.zones.includes(zoneKey(node))) this.queue.add(node.metadata.name ?? '');
    }
  }

  private forget(name: string): void {
    const uid = this.known.get(name);
    this.health.forget(name);
    this.awaiting.delete(name);
    if (uid === undefined) return;
    this.known.delete(name);
    this.ctx.logger.info({ node: name }, 'controller observed a Node deletion');
    this.ctx.events.event({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid } }, 'Normal', 'RemovingNode', `Removing Node ${name} from Controller`);
  }
}

export function startNodeLifecycle(ctx: ControllerContext<NodeLifecycleConfig>): void {
  const controller = new NodeLifecycleController(ctx);
  void controller.run();
}

export const nodeLifecycleController: RegisteredController = {
  name: 'node-lifecycle-controller',
  aliases: ['nodelifecycle'],
  enabledByDefault: true,
  serviceAccount: 'node-controller',
  start: (ctx: ControllerContext<ControllerManagerConfig>) => startNodeLifecycle(ctx),
};
