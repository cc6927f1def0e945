/** Node's Table (kubectl get nodes), as upstream's printers: columns, their descriptions and cells. */
import type { TableDefinition } from '../../definition.ts';
import { age, ageColumn, nameColumn } from '../../table.ts';
import type { Node } from '../../../../shared/api/node.ts';

/** NodeStatus.addresses' swagger doc, the description of both IP columns. */
const nodeAddressesDoc =
  "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";

/** The Status cell: the Ready condition as Ready, NotReady or Unknown, then SchedulingDisabled when cordoned. */
function nodeStatusText(node: Node): string {
  // As upstream, the last Ready condition wins when a (malformed) node lists several.
  const ready = (node.status?.conditions ?? []).filter((c) => c.type === 'Ready').at(-1);
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

const nodeRolePrefix = 'node-role.kubernetes.io/';
const nodeRoleLabel = 'kubernetes.io/role';

/** Roles from `node-role.kubernetes.io/<role>` labels and the `kubernetes.io/role` label, sorted; `<none>` without any. */
function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith(nodeRolePrefix)) {
      const role = key.slice(nodeRolePrefix.length);
      if (role) roles.add(role);
    } else if (key === nodeRoleLabel && value) {
      roles.add(value);
    }
  }
  return [...roles].sort().join(',') || '<none>';
}

/** The first address of the given type, or `<none>`. */
function nodeAddress(node: Node, type: string): string {
  return node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';
}

/** A field of status.nodeInfo, or '' when absent. */
function nodeInfo(node: Node, field: string): string {
  const info = node.status?.nodeInfo;
  const value = info && typeof info === 'object' ? (info as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value : '';
}

export const nodeTable: TableDefinition<Node> = {
  columns: [
    nameColumn,
    { name: 'Status', type: 'string', description: 'The status of the node' },
    { name: 'Roles', type: 'string', description: 'The roles of the node' },
    ageColumn,
    { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.' },
    { name: 'Internal-IP', type: 'string', priority: 1, description: nodeAddressesDoc },
    { name: 'External-IP', type: 'string', priority: 1, description: nodeAddressesDoc },
    { name: 'OS-Image', type: 'string', priority: 1, description: 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).' },
    { name: 'Kernel-Version', type: 'string', priority: 1, description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)." },
    {
      name: 'Container-Runtime',
      type: 'string',
      priority: 1,
      description: 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
    },
  ],
  cells: (node, now) => [
    node.metadata.name,
    nodeStatusText(node),
    nodeRoles(node),
    age(node, now),
    nodeInfo(node, 'kubeletVersion'),
    nodeAddress(node, 'InternalIP'),
    nodeAddress(node, 'ExternalIP'),
    nodeInfo(node, 'osImage') || '<unknown>',
    nodeInfo(node, 'kernelVersion') || '<unknown>',
    nodeInfo(node, 'containerRuntimeVersion') || '<unknown>',
  ],
};
