/**
 * The node agent's pod loop: what the kubelet's syncLoop does for pods, minus starting containers.
 *
 * Inputs: the pods bound to this node (an informer on `spec.nodeName=<node>`, which includes the
 * mirror pods) and the static pod set. Work, level-based, one item at a time:
 * - a pod added or changed: its status (or its final deletion) through PodStatusManager;
 * - the static pod set changed: reconcileMirrorPods;
 * - every syncFrequency: both for everything (upstream resyncs pods every syncFrequency and
 *   cleans up mirror pods every housekeeping period, 2 s; corral does both on the resync).
 * A failed item is logged and looked at again at the next resync. Work is never run twice at once;
 * what arrives during a pass is done right after it.
 */
import type { Logger } from 'pino';
import { isObject, type KubeObject } from '../../shared/api/types.ts';
import type { ApiClient } from '../../shared/client/api-client.ts';
import type { Clock } from '../../shared/client/clock.ts';
import { objectKey, type Informer, type InformerOptions } from '../../shared/client/informer.ts';
import type { ContainerRuntime } from '../runtime/runtime.ts';
import { reconcileMirrorPods } from './mirror.ts';
import type { Pod } from './pod.ts';
import type { StaticPodSet } from './static-pod-source.ts';
import { PodStatusManager } from './status-manager.ts';

/** The informer options that select the pods bound to `nodeName`. */
export function boundPodsInformerOptions(nodeName: string): InformerOptions {
  return { fieldSelector: `spec.nodeName=${nodeName}` };
}

/**
 * The node's addresses for hostIP/hostIPs, as upstream's GetNodeHostIPs picks them: InternalIP
 * addresses (ExternalIP when there are none), the first of each IP family, the first family first.
 */
export function hostIPsOf(node: KubeObject | undefined): string[] {
  const status = isObject(node?.['status']) ? node['status'] : {};
  const addresses = Array.isArray(status['addresses']) ? (status['addresses'] as { type?: string; address?: string }[]) : [];
  const of = (type: string): string[] => addresses.filter((a) => a.type === type && typeof a.address === 'string').map((a) => a.address ?? '');
  const candidates = of('InternalIP').length > 0 ? of('InternalIP') : of('ExternalIP');
  const first = candidates[0];
  if (first === undefined) return [];
  const other = candidates.find((ip) => ip.includes(':') !== first.includes(':'));
  return other === undefined ? [first] : [first, other];
}

/** What the loop needs of the static pod source (StaticPodSource satisfies it). */
export interface StaticPods {
  onChange(listener: (set: StaticPodSet) => void): void;
  current(): StaticPodSet;
}

export interface NodePodsOptions {
  api: ApiClient;
  runtime: ContainerRuntime;
  clock: Clock;
  logger: Logger;
  /** Pods bound to this node: make it with boundPodsInformerOptions. */
  pods: Informer<Pod>;
  staticPods: StaticPods;
  /** The agent's Node as last seen (for mirror pods' owner reference). */
  node: () => KubeObject | undefined;
  /** The node's addresses, primary first. */
  hostIPs: () => readonly string[];
  /** KubeletConfiguration syncFrequency, in milliseconds. */
  syncFrequencyMs: number;
}

export class NodePods {
  readonly status: PodStatusManager;
  private readonly dirty = new Set<string>();
  private mirrorsDirty = false;
  private running: Promise<void> | undefined;
  private cancelResync: (() => void) | undefined;
  private stopped = true;

  constructor(private readonly options: NodePodsOptions) {
    this.status = new PodStatusManager(options);
  }

  start(): void {
    this.stopped = false;
    const enqueue = (pod: Pod): void => this.enqueue(objectKey(pod));
    this.options.pods.on({
      add: enqueue,
      update: enqueue,
      delete: (pod) => {
        this.status.forget(pod.metadata.uid ?? '');
        // A deleted mirror pod is recreated by the mirror pass.
        this.mirrorsDirty = true;
        this.kick();
      },
    });
    this.options.staticPods.onChange(() => {
      this.mirrorsDirty = true;
      this.kick();
    });
    this.scheduleResync();
  }

  stop(): void {
    this.stopped = true;
    this.cancelResync?.();
  }

  /** Resolves once the work queued so far is done: for tests and orderly shutdown. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Queues everything: every bound pod and a mirror pass. */
  resync(): void {
    for (const pod of this.options.pods.list()) this.dirty.add(objectKey(pod));
    this.mirrorsDirty = true;
    this.kick();
  }

  private enqueue(key: string): void {
    this.dirty.add(key);
    this.kick();
  }

  private scheduleResync(): void {
    if (this.stopped) return;
    this.cancelResync = this.options.clock.after(this.options.syncFrequencyMs, () => {
      this.resync();
      this.scheduleResync();
    });
  }

  private kick(): void {
    if (this.running || this.stopped) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (!this.stopped && (this.mirrorsDirty || this.dirty.size > 0)) this.kick();
    });
  }

  private async drain(): Promise<void> {
    const { logger } = this.options;
    while (!this.stopped && (this.mirrorsDirty || this.dirty.size > 0)) {
      if (this.mirrorsDirty) {
        this.mirrorsDirty = false;
        const set = this.options.staticPods.current();
        await reconcileMirrorPods(this.options.api, logger, {
          staticPods: set.pods,
          sourcesReady: set.ready,
          nodePods: this.options.pods.list(),
          node: this.options.node(),
        });
        continue;
      }
      const key = this.dirty.values().next().value;
      if (key === undefined) break;
      this.dirty.delete(key);
      const pod = this.options.pods.get(key);
      if (!pod) continue;
      try {
        await this.status.syncPod(pod);
      } catch (err) {
        logger.error({ err: err instanceof Error ? err.message : String(err), pod: key }, 'pod sync failed; retrying at the next resync');
      }
    }
  }
}
