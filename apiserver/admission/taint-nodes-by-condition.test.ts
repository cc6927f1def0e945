import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../shared/api/types.ts';
import { nodeDefinition } from '../registry/core/node/node.ts';
import type { ResourceDefinition } from '../registry/definition.ts';
import { taintNodesByCondition } from './taint-nodes-by-condition.ts';

const nodes: ResourceDefinition = nodeDefinition;
async function admitted(object: KubeObject, subresource = ''): Promise<KubeObject> {
  await taintNodesByCondition().admit({
    operation: 'CREATE',
    definition: nodes,
    subresource,
    namespace: '',
    name: 'n',
    object,
    dryRun: false,
    context: { user: { username: 'u', groups: [] }, now: new Date() },
  });
  return object;
}

describe('TaintNodesByCondition', () => {
  it('adds the not-ready NoSchedule taint to a new node, once', async () => {
    assert.deepEqual((await admitted({ metadata: { name: 'n' } })).spec, { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] });
    const tainted = {
      metadata: { name: 'n' },
      spec: {
        taints: [
          { key: 'a', effect: 'NoExecute' },
          { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
        ],
      },
    };
    assert.deepEqual((await admitted(structuredClone(tainted))).spec, tainted.spec);
    const other = await admitted({ metadata: { name: 'n' }, spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] } });
    assert.equal((other.spec as { taints: unknown[] }).taints.length, 2, 'another effect is another taint');
  });
});
