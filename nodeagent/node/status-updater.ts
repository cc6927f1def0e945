/**
 * Keeping the Node's status current (the kubelet's syncNodeStatus): every nodeStatusUpdateFrequency
 * (stretched by up to 4 % at random, as the kubelet's) the status is computed from the host; it is written when it changed, or when
 * nodeStatusReportFrequency has passed since the last write (the lease is the heartbeat; the status
 * need not be rewritten every ten seconds). The write is a strategic merge patch of the status
 * subresource: conditions and addresses merge by type, so fields other writers own (the node
 * lifecycle controller's, say) are left alone. A failed write is tried again at the next tick; a
 * Node that was deleted is registered again. The Node is created with its status (registration.ts),
 * which counts as the first write.
 */
import type { Logger } from 'pino';
import { isStatusError } from '../../shared/api/errors.ts';
import { isObject, type KubeObject } from '../../shared/api/types.ts';
import type { ApiClient } from '../../shared/client/api-client.ts';
import { jittered, sleep, type Clock } from '../../shared/client/clock.ts';
import { nodesPath } from './registration.ts';
import { statusChanged, type NodeCondition, type NodeStatus } from './status.ts';

export interface StatusUpdaterOptions {
  api: ApiClient;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  updateFrequencyMs: number;
  reportFrequencyMs: number;
  /** The status now, given the conditions last reported. */
  compute: (previous: readonly NodeCondition[]) => NodeStatus;
  /** Registers the Node again (it was deleted). */
  reregister: () => Promise<Registered>;
  /** The Node as the API server returned it after each status write (its addresses feed the serving certificate and pods' hostIPs). */
  written?: (node: KubeObject) => void;
  /** Draws the jitter, in [0, 1) (tests); Math.random by default. */
  random?: () => number;
}

/** The Node as a registration left it. */
export interface Registered {
  node: KubeObject;
  /** The status this registration created the Node with; absent when the Node already existed (its status is an earlier run's). */
  createdWith?: NodeStatus;
}

/** The most a wait between two syncs is stretched, at random (the kubelet's: 0.04). */
export const syncJitter = 0.04;

export class NodeStatusUpdater {
  private reported: NodeStatus | undefined;
  private reportedAt = 0;

  constructor(private readonly options: StatusUpdaterOptions) {}

  /** The status last written. */
  get lastReported(): NodeStatus | undefined {
    return this.reported;
  }

  /**
   * Starts from the Node as registered. A Node this registration created carries the status it
   * was created with, reported now; an existing Node's conditions' transition times carry over and
   * its status is written at the first sync.
   */
  seed({ node, createdWith }: Registered): void {
    if (createdWith) {
      this.reported = createdWith;
      this.reportedAt = this.options.clock.now();
      return;
    }
    const status = isObject(node['status']) ? node['status'] : {};
    const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as NodeCondition[]) : [];
    this.reported = { ...(this.reported ?? emptyStatus()), conditions };
    this.reportedAt = 0;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.sync();
      } catch (err) {
        this.options.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'Error updating node status, will retry');
      }
      await sleep(this.options.clock, jittered(this.options.updateFrequencyMs, syncJitter, this.options.random), signal);
    }
  }

  /** One tick: writes the status if it changed or is due; true when it wrote. */
  async sync(): Promise<boolean> {
    const { api, nodeName, clock } = this.options;
    const status = this.options.compute(this.reported?.conditions ?? []);
    const due = clock.now() - this.reportedAt >= this.options.reportFrequencyMs;
    if (this.reported && this.reportedAt > 0 && !due && !statusChanged(status, this.reported)) return false;
    const path = `${nodesPath}/${encodeURIComponent(nodeName)}/status`;
    let node: KubeObject;
    try {
      node = await api.patch(path, 'strategic', { status });
    } catch (err) {
      if (!isStatusError(err, 'NotFound')) throw err;
      this.options.logger.warn({ node: nodeName }, 'the Node was deleted; registering it again');
      const registered = await this.options.reregister();
      this.seed(registered);
      // Created again with its status: nothing left to write.
      if (registered.createdWith) return true;
      node = await api.patch(path, 'strategic', { status });
    }
    this.options.written?.(node);
    this.reported = status;
    this.reportedAt = clock.now();
    return true;
  }
}

function emptyStatus(): NodeStatus {
  return { capacity: {}, allocatable: {}, conditions: [], addresses: [], daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo: {} };
}
