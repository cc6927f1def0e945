/**
 * The Node object (v1): its TypeScript shape, the schema of its spec (taints, the removed dynamic
 * kubelet configuration source) and the kind's schema, shared by the API server's kind
 * (apiserver/registry/core/node/, which adds validation, strategy and the table) and by clients
 * that encode it (the node agent registers its Node, in protobuf). Field numbers are upstream's
 * generated.proto; NodeConfigSource (node-config-source.ts) is shared with status.config, whose
 * schema is in node-status.ts.
 */
import { array, atomicArray, boolean, describe, kindSchema, named, object, pb, string, time, type Schema } from './schema.ts';
import type { KubeObject } from './types.ts';
import { configSourceSchema, type NodeConfigSource } from './node-config-source.ts';
import { nodeStatus } from './node-status.ts';

export type { ConfigMapNodeConfigSource, NodeConfigSource } from './node-config-source.ts';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface NodeAddress {
  type: string;
  address: string;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
  configSource?: NodeConfigSource;
  externalID?: string;
}

export interface NodeStatus {
  capacity?: Record<string, string | number>;
  allocatable?: Record<string, string | number>;
  phase?: string;
  conditions?: { type: string; status: string; [field: string]: unknown }[];
  addresses?: NodeAddress[];
  config?: { assigned?: NodeConfigSource; active?: NodeConfigSource; lastKnownGood?: NodeConfigSource; error?: string };
  [field: string]: unknown;
}

export interface Node extends KubeObject {
  spec?: NodeSpec;
  status?: NodeStatus;
}

const taint = (): Schema =>
  named(
    'io.k8s.api.core.v1.Taint',
    'A mark on a node that keeps pods off it unless they tolerate it.',
    object(
      {
        key: pb(1, string('Key of the taint, a qualified name such as example.com/dedicated. Required.'), 'keepZero'),
        value: pb(2, string('Value of the taint, matched by tolerations with operator Equal; at most 63 characters.')),
        effect: pb(
          3,
          string('What happens to pods that do not tolerate the taint: NoSchedule, PreferNoSchedule or NoExecute (running pods are evicted too). Required.'),
          'keepZero',
        ),
        timeAdded: pb(4, time('When the taint was added; set for NoExecute taints only.'), 'optional'),
      },
      ['key', 'effect'],
    ),
  );
export const nodeSpec = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeSpec',
    'What a node offers and how pods may be placed on it.',
    object({
      podCIDR: pb(1, string('The IP range, as a CIDR, pods on this node get addresses from; the same as podCIDRs[0]. Set once.')),
      podCIDRs: pb(
        7,
        describe(
          array(string(), { 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' }),
          'The IP ranges, as CIDRs, pods on this node get addresses from: at most one per IP family, the first equal to podCIDR. Set once.',
        ),
      ),
      providerID: pb(3, string("The node's identifier at its cloud provider, as <provider>://<id>. Set once.")),
      unschedulable: pb(4, boolean('When true, no new pods are scheduled onto the node (kubectl cordon); running pods stay.')),
      taints: pb(5, describe(atomicArray(taint()), 'Taints that keep pods without a matching toleration off the node.')),
      configSource: pb(
        6,
        describe(configSourceSchema(), 'Deprecated: the removed dynamic kubelet configuration. Dropped on write unless already set.'),
        'optional',
      ),
      externalID: pb(2, string('Deprecated and unused: an external identifier of the node.')),
    }),
  );

/** The Node kind's schema. */
export const nodeSchema = (): Schema =>
  describe(
    kindSchema({
      spec: pb(2, describe(nodeSpec(), 'How pods may be placed on the node: its pod IP ranges, taints and whether it takes new pods.')),
      status: pb(3, describe(nodeStatus(), 'What the node has and how it is doing; written by its kubelet through status.')),
    }),
    'A machine, physical or virtual, that runs pods: registered by its kubelet, which keeps its status current.',
  );
