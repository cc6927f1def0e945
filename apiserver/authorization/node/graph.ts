/**
 * The Node authorizer's graph (upstream's node graph, fed by informers), read from the watch
 * cache: the node each VolumeAttachment attaches to, the node each pod is bound to, and the
 * Secrets, ConfigMaps and claims the pods bound to each node refer to. The pod index is rebuilt
 * whenever the pods' cache changed since the last question (ResourceCache.changes), so a
 * question costs a lookup and a change costs one pass over the pods at the next question.
 */
import { podReferences } from '../../../shared/api/pod-references.ts';
import type { Pod } from '../../../shared/api/pod.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import type { ResourceCache } from '../../storage/cache/watch-cache.ts';
import type { NodeGraph } from './authorizer.ts';

export type PodReferenceKind = 'secret' | 'configmap' | 'persistentvolumeclaim';

interface PodIndex {
  /** `<namespace>/<name>` → node. */
  podNodes: Map<string, string>;
  /** `<node>` → `<kind>/<namespace>/<name>` of what its pods refer to. */
  references: Map<string, Set<string>>;
}

const specOf = (obj: KubeObject | undefined): Record<string, unknown> | undefined =>
  typeof obj?.spec === 'object' && obj.spec !== null ? (obj.spec as Record<string, unknown>) : undefined;

function buildIndex(pods: ResourceCache): PodIndex {
  const index: PodIndex = { podNodes: new Map(), references: new Map() };
  for (const { object } of pods.list(pods.prefix)) {
    const pod = object as Pod;
    const node = pod.spec?.nodeName;
    if (!node) continue;
    const namespace = pod.metadata.namespace ?? '';
    index.podNodes.set(`${namespace}/${pod.metadata.name ?? ''}`, node);
    const refs = podReferences(pod);
    let set = index.references.get(node);
    if (!set) index.references.set(node, (set = new Set()));
    for (const name of refs.secrets) set.add(`secret/${namespace}/${name}`);
    for (const name of refs.configMaps) set.add(`configmap/${namespace}/${name}`);
    for (const name of refs.persistentVolumeClaims) set.add(`persistentvolumeclaim/${namespace}/${name}`);
  }
  return index;
}

/** The graph as the watch cache holds it; without a pods cache no pod relates to any node. */
export function cachedNodeGraph(volumeAttachments: ResourceCache, pods?: ResourceCache): NodeGraph {
  let index: PodIndex = { podNodes: new Map(), references: new Map() };
  let builtAt = -1;
  const current = (): PodIndex => {
    if (pods && pods.changes !== builtAt) {
      index = buildIndex(pods);
      builtAt = pods.changes;
    }
    return index;
  };
  return {
    volumeAttachmentNode(name) {
      const nodeName = specOf(volumeAttachments.get(volumeAttachments.prefix + name)?.object)?.nodeName;
      return typeof nodeName === 'string' ? nodeName : undefined;
    },
    podNode: (namespace, name) => current().podNodes.get(`${namespace}/${name}`),
    podsOnNodeReference: (node, kind, namespace, name) => current().references.get(node)?.has(`${kind}/${namespace}/${name}`) ?? false,
  };
}
