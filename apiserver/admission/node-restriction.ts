/**
 * NodeRestriction (upstream's admission plugin): what the Node authorizer lets a node write in
 * general, narrowed to the node's own objects:
 *
 * - Nodes: only its own; on create no configSource and no labels outside the kubelet's set; on
 *   update no new configSource, no change of taints, no change of labels outside the kubelet's set;
 * - Leases: only in kube-node-lease and only its own name (create included, which the authorizer
 *   cannot see);
 * - CSINodes: only its own name;
 * - Pods: create only mirror pods (annotation kubernetes.io/config.mirror) bound to itself, with at
 *   most one owner reference, a controller reference to its own Node, and no reference to a
 *   service account, Secret, ConfigMap, ClusterTrustBundle or claim; delete only pods bound to
 *   itself; update the status of pods bound to itself only, without touching their labels or
 *   resource claim statuses. (Upstream also checks the owner reference's UID against the Node
 *   object; corral's plugin reads no objects, so it does not.)
 *
 * A mutating plugin that changes nothing, as upstream's (it runs before the kinds' validation).
 */
import { isDeepStrictEqual } from 'node:util';
import { forbidden } from '../../shared/api/errors.ts';
import { podReferences } from '../../shared/api/pod-references.ts';
import { mirrorPodAnnotation, type Pod } from '../../shared/api/pod.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { nodeIdentity, nodeLeaseNamespace } from '../authorization/node/authorizer.ts';
import type { AdmissionAttributes, MutatingPlugin } from './admission.ts';

/** Labels a node agent may set on its Node (upstream's kubeletapis.IsKubeletLabel). */
const kubeletLabels = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const kubeletLabelNamespaces = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const labelNamespace = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (namespace: string, domain: string): boolean => namespace === domain || namespace.endsWith(`.${domain}`);

function isKubeletLabel(key: string): boolean {
  return kubeletLabels.has(key) || kubeletLabelNamespaces.some((domain) => inNamespace(labelNamespace(key), domain));
}

/** Upstream's getForbiddenLabels: node-restriction labels, and kubernetes.io / k8s.io labels the kubelet does not own; sorted. */
export function forbiddenNodeLabels(modified: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const label of modified) {
    const namespace = labelNamespace(label);
    if (inNamespace(namespace, 'node-restriction.kubernetes.io')) out.add(label);
    const kubernetes = inNamespace(namespace, 'kubernetes.io') || inNamespace(namespace, 'k8s.io');
    if (kubernetes && !isKubeletLabel(label)) out.add(label);
  }
  return [...out].sort();
}

/** Labels added, removed or changed between two label sets. */
function modifiedLabels(labels: Record<string, string> | undefined, old: Record<string, string> | undefined): string[] {
  const keys = new Set([...Object.keys(labels ?? {}), ...Object.keys(old ?? {})]);
  return [...keys].filter((k) => labels?.[k] !== old?.[k]);
}

const specOf = (obj: KubeObject | undefined): Record<string, unknown> => {
  const spec = obj?.spec;
  return typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>) : {};
};

export function nodeRestriction(): MutatingPlugin {
  return {
    name: 'NodeRestriction',
    operations: ['CREATE', 'UPDATE', 'DELETE'],
    async admit(a: AdmissionAttributes): Promise<void> {
      const node = nodeIdentity(a.context.user);
      if (node === undefined) return;
      const refuse = (message: string) => forbidden({ group: a.definition.group, resource: a.definition.plural }, a.name, message);
      if (node === '') throw refuse(`could not determine node from user "${a.context.user.username}"`);
      switch (`${a.definition.group}/${a.definition.plural}`) {
        case '/nodes':
          return admitNode(node, a, refuse);
        case 'coordination.k8s.io/leases':
          if (a.namespace !== nodeLeaseNamespace) throw refuse(`can only access leases in the "${nodeLeaseNamespace}" system namespace`);
          if (nameOf(a) !== node) throw refuse('can only access node lease with the same name as the requesting node');
          return;
        case 'storage.k8s.io/csinodes':
          if (nameOf(a) !== node) throw refuse('can only access CSINode with the same name as the requesting node');
          return;
        case '/pods':
          return admitPod(node, a, refuse);
      }
    },
  };
}

/** The name a write is about: on create, the new object's. */
const nameOf = (a: AdmissionAttributes): string => (a.operation === 'CREATE' ? (a.object?.metadata.name ?? '') : a.name);

function admitNode(node: string, a: AdmissionAttributes, refuse: (message: string) => Error): void {
  const name = nameOf(a);
  if (name !== node) throw refuse(`node "${node}" is not allowed to modify node "${name}"`);
  if (a.operation === 'CREATE') {
    if (specOf(a.object).configSource !== undefined) throw refuse(`node "${node}" is not allowed to create pods with a non-nil configSource`);
    const labels = forbiddenNodeLabels(modifiedLabels(a.object?.metadata.labels, undefined));
    if (labels.length) throw refuse(`node "${node}" is not allowed to set the following labels: ${labels.join(', ')}`);
  }
  if (a.operation === 'UPDATE') {
    const spec = specOf(a.object);
    const oldSpec = specOf(a.oldObject);
    if (spec.configSource !== undefined && !isDeepStrictEqual(spec.configSource, oldSpec.configSource)) {
      throw refuse(`node "${node}" is not allowed to update configSource to a new non-nil configSource`);
    }
    if (!isDeepStrictEqual(spec.taints ?? [], oldSpec.taints ?? [])) throw refuse(`node "${node}" is not allowed to modify taints`);
    const labels = forbiddenNodeLabels(modifiedLabels(a.object?.metadata.labels, a.oldObject?.metadata.labels));
    if (labels.length) throw refuse(`is not allowed to modify labels: ${labels.join(', ')}`);
  }
}

/** Pods by a node: mirror pods of its own, status and deletion of the pods bound to it. */
function admitPod(node: string, a: AdmissionAttributes, refuse: (message: string) => Error): void {
  const pod: Pod | undefined = a.object;
  const old: Pod | undefined = a.oldObject;
  switch (a.subresource) {
    case '':
      if (a.operation === 'CREATE') return admitMirrorPod(node, pod, refuse);
      if (a.operation === 'DELETE') {
        if (old?.spec?.nodeName !== node) throw refuse(`node "${node}" can only delete pods with spec.nodeName set to itself`);
        return;
      }
      throw refuse(`unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`);
    case 'status':
      if (a.operation !== 'UPDATE') throw refuse(`unexpected operation "${a.operation}"`);
      if (old?.spec?.nodeName !== node) throw refuse(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
      if (!isDeepStrictEqual(pod?.metadata.labels ?? {}, old.metadata.labels ?? {})) throw refuse(`node "${node}" cannot update labels through pod status`);
      if (!sameClaimStatuses(pod, old)) throw refuse(`node "${node}" cannot update resource claim statues`);
      return;
    default:
      throw refuse(`unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
  }
}

function sameClaimStatuses(pod: Pod | undefined, old: Pod): boolean {
  const strip = (p: Pod | undefined) => (p?.status?.resourceClaimStatuses ?? []).map((s) => [s.name ?? '', s.resourceClaimName ?? null]);
  return isDeepStrictEqual(strip(pod), strip(old));
}

function admitMirrorPod(node: string, pod: Pod | undefined, refuse: (message: string) => Error): void {
  if (!pod) throw refuse('unexpected type undefined');
  if (!Object.hasOwn(pod.metadata.annotations ?? {}, mirrorPodAnnotation))
    throw refuse(`pod does not have "${mirrorPodAnnotation}" annotation, node "${node}" can only create mirror pods`);
  if (pod.spec?.nodeName !== node) throw refuse(`node "${node}" can only create pods with spec.nodeName set to itself`);
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.length > 1) throw refuse(`node "${node}" can only create pods with a single owner reference set to itself`);
  const owner = owners[0];
  if (owner) {
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node)
      throw refuse(`node "${node}" can only create pods with an owner reference set to itself`);
    if (owner.controller !== true) throw refuse(`node "${node}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw refuse(`node "${node}" must not set blockOwnerDeletion on an owner reference`);
  }
  const refs = podReferences(pod);
  if (refs.serviceAccount) throw refuse(`node "${node}" can not create pods that reference a service account`);
  if (refs.secrets.size > 0) throw refuse(`node "${node}" can not create pods that reference secrets`);
  if (refs.configMaps.size > 0) throw refuse(`node "${node}" can not create pods that reference configmaps`);
  const volumes = pod.spec?.volumes ?? [];
  if (volumes.some((v) => (v.projected?.sources ?? []).some((s) => s.clusterTrustBundle)))
    throw refuse(`node "${node}" can not create pods that reference clustertrustbundles`);
  if (volumes.some((v) => v.persistentVolumeClaim)) throw refuse(`node "${node}" can not create pods that reference persistentvolumeclaims`);
}
