/**
 * Keeps the API's view of each pod bound to this node truthful, as the kubelet's status manager
 * (pkg/kubelet/status/status_manager.go) does for the pods it runs:
 *
 * - the status is generated from what the container runtime reports (status.ts) and written to
 *   the `status` subresource (PUT, with the resourceVersion read) only when it differs from the
 *   status the API holds, or from the one this manager last wrote for that resourceVersion (so a
 *   cache that has not caught up with our own write causes no second write);
 * - 404: the pod is gone, nothing to do; 409: the pod changed meanwhile: it is read again and the
 *   status written once more against the fresh copy; a second 409 is left to the next sync;
 * - a pod in a terminal phase (Succeeded, Failed) is never written back to another phase;
 * - a pod being deleted (deletionTimestamp set) is killed in the runtime and then deleted for good:
 *   DELETE with gracePeriodSeconds 0 and a UID precondition, as the status manager does once a
 *   pod's containers have stopped (with no runtime, nothing ever started). NotFound and Conflict
 *   (another pod under that name now) count as done.
 *
 * Mirror pods get the status of their static pod (their specs are the same), written to the mirror
 * pod; their deletion is the mirror reconciler's (mirror.ts), which recreates them.
 */
import type { Logger } from 'pino';
import { isStatusError } from '../../shared/api/errors.ts';
import { isObject } from '../../shared/api/types.ts';
import { resourcePath, type ApiClient, type ResourceRef } from '../../shared/client/api-client.ts';
import type { Clock } from '../../shared/client/clock.ts';
import type { ContainerRuntime } from '../runtime/runtime.ts';
import { isMirrorPod, type Pod, type PodStatus } from './pod.ts';
import { sortKeys } from './static-pod.ts';
import { generatePodStatus } from './status.ts';

export interface PodStatusManagerOptions {
  api: ApiClient;
  runtime: ContainerRuntime;
  clock: Clock;
  logger: Logger;
  /** The node's addresses, primary first (hostIP/hostIPs). */
  hostIPs: () => readonly string[];
}

/** Pods on the API (core v1). */
export const podsResource: ResourceRef = { group: '', version: 'v1', resource: 'pods', namespaced: true };

/** What one sync did. */
export type PodSyncOutcome = 'written' | 'unchanged' | 'conflict' | 'gone' | 'deleted' | 'terminal' | 'skipped';

/** `/api/v1/namespaces/{ns}/pods[/{name}[/{subresource}]]`. */
export function podPath(namespace: string, name?: string, subresource?: string): string {
  return resourcePath(podsResource, namespace, name, subresource);
}

export class PodStatusManager {
  /** The status last written per pod UID, and the resourceVersion it was written against. */
  private readonly written = new Map<string, { resourceVersion: string; status: PodStatus; text: string }>();

  constructor(private readonly options: PodStatusManagerOptions) {}

  /** Brings the API's view of `pod` (as the informer has it) in line with the runtime. */
  async syncPod(pod: Pod): Promise<PodSyncOutcome> {
    const { metadata } = pod;
    const namespace = metadata.namespace ?? '';
    const name = metadata.name ?? '';
    if (metadata.deletionTimestamp) {
      if (isMirrorPod(pod)) return 'skipped';
      return this.finalizeDeletion(pod);
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return 'terminal';
    let current = pod;
    for (let attempt = 0; ; attempt++) {
      const status = await this.desiredStatus(current);
      if (!this.needsWrite(current, status)) return 'unchanged';
      try {
        await this.options.api.update(podPath(namespace, name, 'status'), { ...current, status });
        this.written.set(current.metadata.uid ?? '', { resourceVersion: current.metadata.resourceVersion ?? '', status, text: canonical(status) });
        return 'written';
      } catch (err) {
        if (isStatusError(err, 'NotFound')) return this.forgetGone(current);
        if (!isStatusError(err, 'Conflict')) throw err;
        if (attempt > 0) {
          this.options.logger.info({ pod: `${namespace}/${name}` }, 'pod status update conflicted twice; retrying at the next sync');
          return 'conflict';
        }
      }
      try {
        current = await this.options.api.get<Pod>(podPath(namespace, name));
      } catch (err) {
        if (isStatusError(err, 'NotFound')) return this.forgetGone(pod);
        throw err;
      }
      if (current.metadata.uid !== pod.metadata.uid) {
        this.options.logger.info({ pod: `${namespace}/${name}` }, 'Pod was deleted and then recreated, skipping status update');
        return this.forgetGone(pod);
      }
    }
  }

  /** Drops what is remembered of a pod that is gone. */
  forget(uid: string): void {
    this.written.delete(uid);
  }

  /**
   * The status to write. Its base (kept fields, transition times, startTime) is what the API holds,
   * or, while the cache still shows the version our last write went against, what we wrote then,
   * as upstream's status manager works from its own copy of the statuses it wrote.
   */
  private async desiredStatus(pod: Pod): Promise<PodStatus> {
    const runtime = await this.options.runtime.syncPod(pod);
    const last = this.written.get(pod.metadata.uid ?? '');
    const base = last && last.resourceVersion === (pod.metadata.resourceVersion ?? '') ? { ...pod, status: last.status } : pod;
    return generatePodStatus({ pod: base, runtime, hostIPs: this.options.hostIPs(), now: this.options.clock.now() });
  }

  private needsWrite(pod: Pod, status: PodStatus): boolean {
    const wanted = canonical(status);
    if (canonical(pod.status ?? {}) === wanted) return false;
    const last = this.written.get(pod.metadata.uid ?? '');
    return !(last && last.text === wanted && last.resourceVersion === (pod.metadata.resourceVersion ?? ''));
  }

  private async finalizeDeletion(pod: Pod): Promise<PodSyncOutcome> {
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const uid = pod.metadata.uid;
    await this.options.runtime.killPod(pod, 0);
    try {
      await this.options.api.delete(podPath(namespace, name), { gracePeriodSeconds: 0, ...(uid ? { preconditions: { uid } } : {}) });
      this.options.logger.info({ pod: `${namespace}/${name}`, podUID: uid }, 'Pod fully terminated and removed from etcd');
    } catch (err) {
      if (!isStatusError(err, 'NotFound') && !isStatusError(err, 'Conflict')) throw err;
    }
    this.forget(uid ?? '');
    return 'deleted';
  }

  private forgetGone(pod: Pod): PodSyncOutcome {
    this.forget(pod.metadata.uid ?? '');
    return 'gone';
  }
}

/** A status as comparable text: keys sorted, nulls dropped (a server may drop `lastProbeTime: null`). */
function canonical(status: PodStatus): string {
  return JSON.stringify(sortKeys(dropNulls(status)));
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== null && v !== undefined) out[key] = dropNulls(v);
  return out;
}
