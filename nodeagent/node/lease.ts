/**
 * The node's heartbeat (upstream's node lease controller): the Lease `kube-node-lease/<node>`,
 * held by the node, renewed every quarter of nodeLeaseDurationSeconds (10 s for the default 40)
 * after the last renewal, stretched by up to 4 % at random as upstream's (renewJitter),
 * owned by the Node so that it goes when the Node goes. The node lifecycle controller reads its
 * renewTime to tell a live node from a lost one.
 *
 * The lease last written is kept and updated in place (one PUT per renewal, no read); a conflict
 * or a missing lease is read again. It is kept without its managedFields, which an update without
 * them keeps as they are: less for each of a simulation's agents to hold, to encode and to send,
 * and for the API server to decode. A failed renewal is retried after 200 ms, doubling up to 7 s,
 * until it succeeds: an API server restart or fail-over costs a few retries, not the node.
 */
import type { Logger } from 'pino';
import { isStatusError } from '../../shared/api/errors.ts';
import { isObject, withoutManagedFields, type KubeObject } from '../../shared/api/types.ts';
import type { ApiClient } from '../../shared/client/api-client.ts';
import { jittered, sleep, type Clock } from '../../shared/client/clock.ts';
import { formatMicroTimeOf } from '../../shared/go/time.ts';

export const nodeLeaseNamespace = 'kube-node-lease';
const leasesPath = `/apis/coordination.k8s.io/v1/namespaces/${nodeLeaseNamespace}/leases`;

/** upstream's renewIntervalFraction. */
export const renewIntervalFraction = 0.25;

/** The most a wait between renewals is stretched, at random (upstream's lease controller: 0.04). */
export const renewJitter = 0.04;

export interface NodeLeaseOptions {
  api: ApiClient;
  nodeName: string;
  leaseDurationSeconds: number;
  clock: Clock;
  logger: Logger;
  /** The Node's uid once it is known: the lease's owner. */
  nodeUid: () => string | undefined;
  /** Called after each successful renewal with its latency in milliseconds (metrics, the benchmark). */
  renewed?: (latencyMs: number) => void;
  /** Draws the jitter, in [0, 1) (tests); Math.random by default. */
  random?: () => number;
  /**
   * Where in the renew interval this node's renewals fall, as a fraction of it in [0, 1), waited
   * once after the first renewal; 0 (a real agent's) by default. Hosts that start independently
   * renew at independent moments; agents simulated in one process join in waves (their bootstrap
   * CSRs are signed in batches) and, without a phase of their own, would renew in those waves for
   * as long as they run.
   */
  phase?: number;
}

export class NodeLease {
  private lease: KubeObject | undefined;

  constructor(private readonly options: NodeLeaseOptions) {}

  get renewIntervalMs(): number {
    return this.options.leaseDurationSeconds * 1000 * renewIntervalFraction;
  }

  /** Renews until `signal` aborts; never throws. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.options;
    let phaseWait = (this.options.phase ?? 0) * this.renewIntervalMs;
    while (!signal.aborted) {
      let backoff = 200;
      for (;;) {
        try {
          await this.renew();
          break;
        } catch (err) {
          logger.warn({ err: err instanceof Error ? err.message : String(err), retryInMs: backoff }, 'failed to ensure node lease exists, will retry');
          await sleep(clock, backoff, signal);
          if (signal.aborted) return;
          backoff = Math.min(7_000, backoff * 2);
        }
      }
      await sleep(clock, phaseWait + jittered(this.renewIntervalMs, renewJitter, this.options.random), signal);
      phaseWait = 0;
    }
  }

  /** One renewal: update the lease last seen, or read it (creating it if missing) and update that. */
  async renew(): Promise<void> {
    const { api, nodeName, clock } = this.options;
    const started = clock.now();
    try {
      const written = this.lease ? await api.update(`${leasesPath}/${nodeName}`, this.renewed(this.lease)) : await this.getOrCreate();
      this.lease = withoutManagedFields(written);
    } catch (err) {
      // The next attempt reads the lease afresh: someone else wrote it, or it was deleted.
      this.lease = undefined;
      if (isStatusError(err, 'Conflict') || isStatusError(err, 'NotFound')) this.lease = await this.getOrCreate();
      else throw err;
    }
    this.options.renewed?.(clock.now() - started);
  }

  private async getOrCreate(): Promise<KubeObject> {
    const { api, nodeName } = this.options;
    try {
      const existing = await api.get(`${leasesPath}/${nodeName}`);
      return await api.update(`${leasesPath}/${nodeName}`, this.renewed(existing));
    } catch (err) {
      if (!isStatusError(err, 'NotFound')) throw err;
    }
    try {
      return await api.create(
        leasesPath,
        this.renewed({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: nodeName, namespace: nodeLeaseNamespace } }),
      );
    } catch (err) {
      // Made meanwhile (another renewal of this node raced this one): renew that one.
      if (!isStatusError(err, 'AlreadyExists')) throw err;
      return api.update(`${leasesPath}/${nodeName}`, this.renewed(await api.get(`${leasesPath}/${nodeName}`)));
    }
  }

  /** The lease held by the node, renewed now, owned by the Node when its uid is known. */
  private renewed(lease: KubeObject): KubeObject {
    const { nodeName, leaseDurationSeconds, clock } = this.options;
    const uid = this.options.nodeUid();
    const metadata = { ...lease.metadata };
    const owners = Array.isArray(metadata.ownerReferences) ? metadata.ownerReferences : [];
    if (uid && owners.length === 0) metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid }];
    return {
      ...lease,
      metadata,
      spec: {
        ...(isObject(lease['spec']) ? lease['spec'] : {}),
        holderIdentity: nodeName,
        leaseDurationSeconds,
        renewTime: formatMicroTimeOf(new Date(clock.now())),
      },
    };
  }
}
