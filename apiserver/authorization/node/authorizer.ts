/**
 * The Node authorizer (upstream's NodeAuthorizer, with 1.32's AuthorizeNodeWithSelectors): a node
 * (`system:node:<name>` in `system:nodes`) may read and write what a node agent needs and no more.
 *
 * - its own Node: get/list/watch only by its own name (upstream compares names so a node agent can
 *   read its Node before creating it); other Node writes by the node rules, narrowed to its own Node
 *   by the NodeRestriction admission plugin;
 * - its own Lease in kube-node-lease and its own CSINode (get, create, update, patch, delete; the
 *   name on create is NodeRestriction's to check);
 * - Pods: get of a pod bound to it; list and watch only with the field selector
 *   `spec.nodeName=<node>` (1.32's AuthorizeNodeWithSelectors, on by default) or of one pod bound to
 *   it by name; create and delete (of mirror pods, which NodeRestriction narrows), update and patch
 *   of status and create of evictions, narrowed to its own pods by NodeRestriction;
 * - Secrets, ConfigMaps and PersistentVolumeClaims only when a pod bound to the node references
 *   them (the graph, built from the watch cache of pods); PersistentVolumes never (corral serves no
 *   claims to bind them);
 * - a VolumeAttachment when it attaches to the node (`spec.nodeName`);
 * - everything else by the static node rules (the bootstrap policy's `system:node` ClusterRole):
 *   events, CSRs, token and access reviews...
 *
 * Users that are not nodes get no opinion; RBAC decides for them. Refusals carry upstream's reasons.
 */
import { nodesGroup, nodeUserPrefix } from '../../../shared/api/node-identity.ts';
import type { PolicyRule } from '../../../shared/api/rbac.ts';
import type { UserInfo } from '../../registry/definition.ts';
import type { PodReferenceKind } from './graph.ts';
import { allow, noOpinion, type AuthorizationAttributes, type AuthorizationResult, type Authorizer } from '../authorizer.ts';
import { rulesAllow } from '../rbac/rules.ts';

export const nodeLeaseNamespace = 'kube-node-lease';

/** Upstream's NodeIdentity: the node's name for a node user, undefined for anyone else. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(nodeUserPrefix) || !user.groups.includes(nodesGroup)) return undefined;
  return user.username.slice(nodeUserPrefix.length);
}

const refuse = (reason: string): AuthorizationResult => ({ decision: 'no-opinion', reason });

/** What the Node authorizer reads (upstream's graph): which node objects relate to. */
export interface NodeGraph {
  volumeAttachmentNode(name: string): string | undefined;
  /** The node the pod is bound to (spec.nodeName), if any. */
  podNode(namespace: string, name: string): string | undefined;
  /** Whether a pod bound to `node` refers to the object. */
  podsOnNodeReference(node: string, kind: PodReferenceKind, namespace: string, name: string): boolean;
}

export { cachedNodeGraph, type PodReferenceKind } from './graph.ts';

export class NodeAuthorizer implements Authorizer {
  constructor(
    private readonly graph: NodeGraph,
    private readonly nodeRules: readonly PolicyRule[],
  ) {}

  authorize(user: UserInfo, a: AuthorizationAttributes): AuthorizationResult {
    const node = nodeIdentity(user);
    if (node === undefined) return noOpinion;
    if (node === '') return refuse(`unknown node for user "${user.username}"`);
    if (a.isResourceRequest) {
      switch (`${a.apiGroup}/${a.resource}`) {
        case '/secrets':
          return this.readNamespacedObject(node, a, 'secret');
        case '/configmaps':
          return this.readNamespacedObject(node, a, 'configmap');
        case '/persistentvolumeclaims':
          return this.getObject(node, a, () => this.graph.podsOnNodeReference(node, 'persistentvolumeclaim', a.namespace, a.name));
        case '/persistentvolumes':
          return this.getObject(node, a, () => false);
        case '/pods':
          return this.pod(node, a);
        case 'storage.k8s.io/volumeattachments':
          return this.getObject(node, a, () => this.graph.volumeAttachmentNode(a.name) === node);
        case '/serviceaccounts':
          return refuse(`no relationship found between node '${node}' and this object`);
        case 'coordination.k8s.io/leases':
          return this.lease(node, a);
        case 'storage.k8s.io/csinodes':
          return this.csiNode(node, a);
        case '/nodes':
          if (a.verb === 'get' || a.verb === 'list' || a.verb === 'watch') return this.readNode(node, a);
          break;
      }
    }
    return rulesAllow(a, this.nodeRules) ? allow : noOpinion;
  }

  private related(node: string, a: AuthorizationAttributes, related: () => boolean): AuthorizationResult {
    if (!a.name) return refuse('No Object name found');
    return related() ? allow : refuse(`no relationship found between node '${node}' and this object`);
  }

  /** Secrets and ConfigMaps: reads of single objects a pod bound to the node references. */
  private readNamespacedObject(node: string, a: AuthorizationAttributes, kind: PodReferenceKind): AuthorizationResult {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return refuse('can only read resources of this type');
    if (a.subresource) return refuse('cannot read subresource');
    if (!a.namespace) return refuse('can only read namespaced object of this type');
    return this.related(node, a, () => this.graph.podsOnNodeReference(node, kind, a.namespace, a.name));
  }

  /** Pods (upstream's authorizePod): reads of its own, writes that NodeRestriction narrows. */
  private pod(node: string, a: AuthorizationAttributes): AuthorizationResult {
    const bound = (): boolean => this.graph.podNode(a.namespace, a.name) === node;
    switch (a.subresource) {
      case '':
        switch (a.verb) {
          case 'get':
            return this.getObject(node, a, bound);
          case 'list':
          case 'watch':
            if ((a.fieldSelector ?? []).some((r) => r.field === 'spec.nodeName' && r.operator === '=' && r.value === node)) return allow;
            if (a.name) return this.related(node, a, bound);
            return refuse('can only list/watch pods with spec.nodeName field selector');
          case 'create':
          case 'delete':
            return allow;
        }
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return allow;
        break;
      case 'eviction':
        if (a.verb === 'create') return allow;
        break;
    }
    return noOpinion;
  }

  private getObject(node: string, a: AuthorizationAttributes, related: () => boolean): AuthorizationResult {
    if (a.verb !== 'get') return refuse('can only get individual resources of this type');
    if (a.subresource) return refuse('cannot get subresource');
    return this.related(node, a, related);
  }

  private lease(node: string, a: AuthorizationAttributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return refuse('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== nodeLeaseNamespace) return refuse(`can only access leases in the "${nodeLeaseNamespace}" system namespace`);
    // On create the name is in the body: NodeRestriction checks it.
    if (a.verb !== 'create' && a.name !== node) return refuse('can only access node lease with the same name as the requesting node');
    return allow;
  }

  private csiNode(node: string, a: AuthorizationAttributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return refuse('can only get, create, update, patch, or delete a CSINode');
    if (a.subresource) return refuse('cannot authorize CSINode subresources');
    if (a.verb !== 'create' && a.name !== node) return refuse('can only access CSINode with the same name as the requesting node');
    return allow;
  }

  /** Reads of Nodes: its own only, by name (a list or watch must select it with metadata.name). */
  private readNode(node: string, a: AuthorizationAttributes): AuthorizationResult {
    if (a.name === node) return allow;
    if (!a.name) return refuse(`node '${node}' cannot read all nodes, only its own Node object`);
    return refuse(`node '${node}' cannot read '${a.name}', only its own Node object`);
  }
}
