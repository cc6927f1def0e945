/**
 * Start-up step "cluster-info": what kubeadm's init creates for bootstrap token discovery (its
 * bootstrap-token phase, clusterinfo.go), created by each replica when absent:
 *
 * - the ConfigMap `cluster-info` in kube-public with `kubeconfig`: a kubeconfig holding only the
 *   cluster (the CA certificate's data and the server address) under the empty name, written as
 *   client-go's clientcmd.Write writes it; the bootstrap signer controller then adds one
 *   `jws-kubeconfig-<id>` per signing token (its role may update cluster-info, never create it);
 * - the Role and RoleBinding `kubeadm:bootstrap-signer-clusterinfo` in kube-public letting
 *   `system:anonymous` get that one ConfigMap, so that a joining node with nothing but a token can
 *   read it and check its signature.
 *
 * Only with --enable-bootstrap-token-auth: cluster-info exists for bootstrap token discovery, and
 * kubeadm, the only installer that makes it, always turns bootstrap token authentication on; a
 * cluster run without bootstrap tokens (like one assembled from plain kube-apiserver flags) has
 * none, and exposes nothing to anonymous users.
 *
 * Existing objects are left as they are (an administrator may have changed the kubeconfig's
 * server address to a load balancer's); a lost race with another replica (AlreadyExists) is fine.
 */
import { clusterInfo } from '../../shared/api/bootstrap-token.ts';
import type { Logger } from 'pino';
import { stringify } from 'yaml';
import { isStatusError } from '../../shared/api/errors.ts';
import { rbacGroup, type Role, type RoleBinding } from '../../shared/api/rbac.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import type { ConfigMap } from '../registry/core/configmap.ts';
import type { RequestContext } from '../registry/definition.ts';
import type { Registry } from '../registry/registry.ts';
import type { GenericStore } from '../registry/store.ts';

/** kubeadm's BootstrapSignerClusterRoleName, the name of both the Role and the RoleBinding. */
export const clusterInfoRoleName = 'kubeadm:bootstrap-signer-clusterinfo';

const apiserverUser = { username: 'system:apiserver', groups: ['system:masters'] };
const context = (): RequestContext => ({ user: apiserverUser, now: new Date() });
const manager = 'kube-apiserver';

/** The `kubeconfig` of cluster-info: the cluster alone, unnamed, in clientcmd.Write's form. */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return stringify(
    {
      apiVersion: 'v1',
      clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(caPem, 'utf8').toString('base64'), server }, name: '' }],
      contexts: null,
      'current-context': '',
      kind: 'Config',
      preferences: {},
      users: null,
    },
    { lineWidth: 0, indentSeq: false },
  );
}

/** The three objects of the step, in creation order. */
export function clusterInfoObjects(server: string, caPem: string): { resource: string; group: string; object: KubeObject }[] {
  const configMap: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: clusterInfo.name, namespace: clusterInfo.namespace },
    data: { [clusterInfo.kubeconfigKey]: clusterInfoKubeconfig(server, caPem) },
  };
  const role: Role = {
    apiVersion: `${rbacGroup}/v1`,
    kind: 'Role',
    metadata: { name: clusterInfoRoleName, namespace: clusterInfo.namespace },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [clusterInfo.name] }],
  };
  const binding: RoleBinding = {
    apiVersion: `${rbacGroup}/v1`,
    kind: 'RoleBinding',
    metadata: { name: clusterInfoRoleName, namespace: clusterInfo.namespace },
    roleRef: { apiGroup: rbacGroup, kind: 'Role', name: clusterInfoRoleName },
    subjects: [{ kind: 'User', apiGroup: rbacGroup, name: 'system:anonymous' }],
  };
  return [
    { group: '', resource: 'configmaps', object: configMap },
    { group: rbacGroup, resource: 'roles', object: role },
    { group: rbacGroup, resource: 'rolebindings', object: binding },
  ];
}

/** Where the step writes: the store of a resource of the group's v1, undefined when not served. */
export type StoreLookup = (group: string, resource: string) => Pick<GenericStore, 'create'> | undefined;

/** The stores of `registry`. */
export const registryStores =
  (registry: Registry): StoreLookup =>
  (group, resource) =>
    registry.lookup(group, 'v1', resource)?.store;

async function createIfAbsent(store: Pick<GenericStore, 'create'>, object: KubeObject): Promise<boolean> {
  try {
    await store.create(object.metadata.namespace ?? '', structuredClone(object), context(), { dryRun: false, manager });
    return true;
  } catch (err) {
    if (isStatusError(err, 'AlreadyExists')) return false;
    throw err;
  }
}

/**
 * Creates cluster-info and its anonymous read access where absent; needs kube-public (the
 * bootstrap step's namespaces). Without the RBAC API there is no Role to make.
 */
export async function ensureClusterInfo(stores: StoreLookup, server: string, caPem: string, logger: Logger): Promise<void> {
  for (const { group, resource, object } of clusterInfoObjects(server, caPem)) {
    const store = stores(group, resource);
    if (!store) continue;
    if (await createIfAbsent(store, object)) {
      // `object` as klog's KObj names it: a `name` field would repeat the logger's own in the line.
      logger.info({ kind: object.kind, object: `${clusterInfo.namespace}/${object.metadata.name}` }, 'created for bootstrap token discovery');
    }
  }
}
