/**
 * The node's CSINode (what the kubelet's CSI plugin manager keeps): `storage.k8s.io/v1 CSINode`
 * named after the node, owned by the Node, listing the CSI drivers installed on it (none: corral's
 * agent runs no CSI plugins) and, in the `storage.alpha.kubernetes.io/migrated-plugins`
 * annotation, the in-tree volume plugins whose CSI migration is on in this release, so that the
 * attach/detach controller and the scheduler treat such volumes as CSI. Made once at start; an
 * existing one is left as it is.
 */
import { isStatusError } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import type { ApiClient } from '../../shared/client/api-client.ts';

export const csiNodesPath = '/apis/storage.k8s.io/v1/csinodes';
export const migratedPluginsAnnotation = 'storage.alpha.kubernetes.io/migrated-plugins';

/** The in-tree plugins migrated to CSI by default in 1.32 (the CSIMigration* gates on by default; Portworx's since 1.31). */
export const migratedPlugins = [
  'kubernetes.io/aws-ebs',
  'kubernetes.io/azure-disk',
  'kubernetes.io/azure-file',
  'kubernetes.io/cinder',
  'kubernetes.io/gce-pd',
  'kubernetes.io/portworx-volume',
  'kubernetes.io/vsphere-volume',
];

export function csiNodeFor(nodeName: string, nodeUid: string): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: {
      name: nodeName,
      annotations: { [migratedPluginsAnnotation]: migratedPlugins.join(',') },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid }],
    },
    spec: { drivers: [] },
  };
}

/** Creates the node's CSINode unless it exists. */
export async function ensureCSINode(api: ApiClient, nodeName: string, nodeUid: string): Promise<void> {
  try {
    await api.create(csiNodesPath, csiNodeFor(nodeName, nodeUid));
  } catch (err) {
    if (!isStatusError(err, 'AlreadyExists')) throw err;
  }
}
