/**
 * Node (v1, cluster scoped). Unlike most kinds a node may carry status on create (the kubelet
 * registers itself with it); afterwards the main resource keeps status and `status` keeps spec.
 * podCIDRs and providerID may be set once; the removed dynamic kubelet configuration
 * (spec.configSource, status.config) is dropped unless an old object still carries it.
 */
import { allVerbs, defineResource } from '../../definition.ts';
import { keepStatus, statusSubresource } from '../../status-subresource.ts';
import { nodeSchema, type Node } from '../../../../shared/api/node.ts';
import { nodeTable } from './table.ts';
import { validateNode, validateNodeUpdate } from './validation.ts';

/**
 * podCIDR and podCIDRs on the wire are one list inside (upstream's conversion): podCIDR wins when
 * the two disagree, fills an empty list, and is always written back as the list's first entry.
 */
function normalizePodCIDRs(node: Node): void {
  const spec = node.spec;
  if (!spec) return;
  const single = spec.podCIDR ?? '';
  const list = spec.podCIDRs ?? [];
  if (single && (list.length === 0 || list[0] !== single)) spec.podCIDRs = [single];
  const first = spec.podCIDRs?.[0];
  if (first) spec.podCIDR = first;
}

function nodeWarnings(node: Node): string[] {
  const warnings: string[] = [];
  if (node.spec?.configSource) warnings.push('spec.configSource: the feature is removed');
  if (node.spec?.externalID) warnings.push('spec.externalID: this field is deprecated, and is unused by Kubernetes');
  return warnings;
}

export const nodeDefinition = defineResource<Node>({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  singular: 'node',
  shortNames: ['no'],
  namespaced: false,
  verbs: allVerbs,
  schema: nodeSchema(),
  strategy: {
    prepareForCreate: (node) => {
      // Nodes may be created with status, but not with the removed dynamic configuration.
      if (node.spec) delete node.spec.configSource;
      if (node.status) delete node.status.config;
      normalizePodCIDRs(node);
    },
    validate: validateNode,
    prepareForUpdate: (node, old) => {
      keepStatus(node, old);
      if (node.spec && !old.spec?.configSource) delete node.spec.configSource;
      normalizePodCIDRs(node);
    },
    validateUpdate: (node, old) => [...validateNode(node), ...validateNodeUpdate(node, old)],
    warnings: nodeWarnings,
    allowCreateOnUpdate: false,
  },
  subresources: {
    status: statusSubresource({
      prepareForUpdate: (node, old) => {
        if (node.status && !old.status?.config) delete node.status.config;
      },
      validateUpdate: validateNodeUpdate,
    }),
  },
  fieldSelectors: { 'spec.unschedulable': (node) => String(node.spec?.unschedulable === true) },
  table: nodeTable,
});
