/**
 * Mirror pods: the API's copy of each static pod, so that the cluster sees what runs on the node
 * (pkg/kubelet/pod/mirror_client.go, and the mirror pod steps of the kubelet's syncPod and
 * HandlePodCleanups).
 *
 * A mirror pod is the static pod with the `kubernetes.io/config.mirror` annotation set to the
 * static pod's config hash and one owner reference to the Node (v1 Node, name, UID, controller
 * true: the NodeRestriction admission plugin requires it). Its UID, resourceVersion and status are
 * the API server's.
 *
 * reconcileMirrorPods is level-based and idempotent: it compares the static pods with the mirror
 * pods bound to this node and
 * - deletes a mirror pod that is being deleted or whose hash is not its static pod's, then creates
 *   it afresh (AlreadyExists: someone was faster, the next pass looks again);
 * - creates a missing mirror pod, unless the Node is unknown, has no UID, or is being deleted
 *   (upstream: "No need to create a mirror pod");
 * - deletes mirror pods whose static pod is gone, once every static pod source has been read.
 * Deletes are upstream's: gracePeriodSeconds 0 with a UID precondition; NotFound and Conflict
 * (another pod by that name now) are not errors. Upstream deletes orphans without the precondition;
 * corral keeps it there too, so that a pass working from a stale cache cannot delete a newer pod.
 */
import type { Logger } from 'pino';
import { isStatusError } from '../../shared/api/errors.ts';
import { deepCopy, type KubeObject } from '../../shared/api/types.ts';
import type { ApiClient } from '../../shared/client/api-client.ts';
import { configHashAnnotation, configMirrorAnnotation, isMirrorPod, podFullName, type Pod } from './pod.ts';
import { podPath } from './status-manager.ts';

export interface MirrorPodInputs {
  /** The valid static pods (StaticPodSet.pods). */
  staticPods: readonly Pod[];
  /** Every static pod source has been read once (StaticPodSet.ready): only then are orphans deleted. */
  sourcesReady: boolean;
  /** Pods bound to this node (the informer's); those with the mirror annotation are looked at. */
  nodePods: readonly Pod[];
  /** The agent's Node, or undefined when it cannot be read. */
  node: KubeObject | undefined;
}

/** What a pass did, as `namespace/name` lists. */
export interface MirrorPodActions {
  created: string[];
  deleted: string[];
  failed: string[];
}

/** The mirror pod of `staticPod` on `node`. */
export function buildMirrorPod(staticPod: Pod, node: { name: string; uid: string }): Pod {
  const copy = deepCopy(staticPod);
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...metadata } = copy.metadata;
  const { status: _status, ...rest } = copy;
  return {
    ...rest,
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...metadata,
      annotations: { ...(metadata.annotations ?? {}), [configMirrorAnnotation]: staticPod.metadata.annotations?.[configHashAnnotation] ?? '' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid, controller: true }],
    },
  };
}

/** Upstream's IsMirrorPodOf: same name and namespace, and the mirror's hash is the static pod's config hash. */
export function isMirrorPodOf(mirror: Pod, staticPod: Pod): boolean {
  if (mirror.metadata.name !== staticPod.metadata.name || mirror.metadata.namespace !== staticPod.metadata.namespace) return false;
  const hash = mirror.metadata.annotations?.[configMirrorAnnotation];
  return hash !== undefined && hash === staticPod.metadata.annotations?.[configHashAnnotation];
}

/** One level-based pass; failures are logged and listed, never thrown, so that one pod cannot block the others. */
export async function reconcileMirrorPods(api: ApiClient, logger: Logger, inputs: MirrorPodInputs): Promise<MirrorPodActions> {
  const actions: MirrorPodActions = { created: [], deleted: [], failed: [] };
  const mirrors = new Map<string, Pod>();
  for (const pod of inputs.nodePods) if (isMirrorPod(pod)) mirrors.set(podFullName(pod), pod);
  const node = inputs.node;
  const nodeName = node?.metadata.name;
  const nodeUid = node?.metadata.uid;

  for (const staticPod of inputs.staticPods) {
    const mirror = mirrors.get(podFullName(staticPod));
    let deleted = false;
    if (mirror && (mirror.metadata.deletionTimestamp || !isMirrorPodOf(mirror, staticPod))) {
      deleted = await deleteMirrorPod(api, logger, mirror, actions);
      if (deleted) logger.info({ pod: key(mirror) }, 'Deleted mirror pod because it is outdated');
    }
    if (mirror && !deleted) continue;
    if (!nodeName || !nodeUid) {
      logger.debug({ node: nodeName }, 'No need to create a mirror pod, since failed to get node info from the cluster');
      continue;
    }
    if (node.metadata.deletionTimestamp) {
      logger.debug({ node: nodeName }, 'No need to create a mirror pod, since node has been removed from the cluster');
      continue;
    }
    const body = buildMirrorPod(staticPod, { name: nodeName, uid: nodeUid });
    try {
      await api.create(podPath(staticPod.metadata.namespace ?? ''), body);
      actions.created.push(key(staticPod));
    } catch (err) {
      if (isStatusError(err, 'AlreadyExists')) continue;
      actions.failed.push(key(staticPod));
      logger.error({ err: err instanceof Error ? err.message : String(err), pod: key(staticPod) }, 'Failed creating a mirror pod');
    }
  }

  if (!inputs.sourcesReady) return actions;
  const wanted = new Set(inputs.staticPods.map(podFullName));
  for (const [fullName, mirror] of mirrors) {
    if (wanted.has(fullName)) continue;
    await deleteMirrorPod(api, logger, mirror, actions);
  }
  return actions;
}

/** Upstream's DeleteMirrorPod: whether the pod was deleted by this call. */
async function deleteMirrorPod(api: ApiClient, logger: Logger, mirror: Pod, actions: MirrorPodActions): Promise<boolean> {
  const uid = mirror.metadata.uid;
  logger.info({ pod: key(mirror), podUID: uid }, 'Deleting a mirror pod');
  try {
    await api.delete(podPath(mirror.metadata.namespace ?? '', mirror.metadata.name ?? ''), {
      gracePeriodSeconds: 0,
      ...(uid ? { preconditions: { uid } } : {}),
    });
    actions.deleted.push(key(mirror));
    return true;
  } catch (err) {
    if (!isStatusError(err, 'NotFound') && !isStatusError(err, 'Conflict')) {
      actions.failed.push(key(mirror));
      logger.warn({ err: err instanceof Error ? err.message : String(err), pod: key(mirror) }, 'Failed deleting a mirror pod');
    }
    return false;
  }
}

function key(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}
