/**
 * TaintNodesByCondition (upstream's admission plugin, on by default): a new Node gets the taint
 * `node.kubernetes.io/not-ready:NoSchedule` unless it has it already, so that nothing is scheduled
 * to a node before it reports Ready; the node lifecycle controller removes it once the node is.
 */
import type { MutatingPlugin } from './admission.ts';

export const notReadyTaintKey = 'node.kubernetes.io/not-ready';

interface Taint {
  key?: string;
  effect?: string;
}

export function taintNodesByCondition(): MutatingPlugin {
  return {
    name: 'TaintNodesByCondition',
    operations: ['CREATE'],
    async admit(a) {
      if (a.definition.group !== '' || a.definition.plural !== 'nodes' || a.subresource !== '' || !a.object) return;
      const spec = (a.object.spec ??= {}) as { taints?: Taint[] };
      const taints = spec.taints ?? [];
      if (taints.some((t) => t.key === notReadyTaintKey && t.effect === 'NoSchedule')) return;
      spec.taints = [...taints, { key: notReadyTaintKey, effect: 'NoSchedule' }];
    },
  };
}
