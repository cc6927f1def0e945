import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { leaseDefinition } from '../registry/coordination/lease.ts';
import { nodeDefinition } from '../registry/core/node/node.ts';
import { podDefinition } from '../registry/core/pod/pod.ts';
import type { Pod, PodSpec } from '../../shared/api/pod.ts';
import type { ResourceDefinition } from '../registry/definition.ts';
import type { AdmissionAttributes, Operation } from './admission.ts';
import { forbiddenNodeLabels, nodeRestriction } from './node-restriction.ts';

const nodeA = { username: 'system:node:a', groups: ['system:nodes', 'system:authenticated'] };
const nodes: ResourceDefinition = nodeDefinition;
const node = (name: string, labels: Record<string, string> = {}, taints: unknown[] = []): KubeObject => ({ metadata: { name, labels }, spec: { taints } });

function attributes(
  definition: ResourceDefinition,
  operation: Operation,
  name: string,
  object?: KubeObject,
  oldObject?: KubeObject,
  namespace = '',
): AdmissionAttributes {
  return {
    operation,
    definition,
    subresource: '',
    namespace,
    name,
    ...(object ? { object } : {}),
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
    context: { user: nodeA, now: new Date() },
  };
}

async function refusal(a: AdmissionAttributes): Promise<string> {
  try {
    await nodeRestriction().admit(a);
    return 'admitted';
  } catch (err) {
    assert.ok(isStatusError(err, 'Forbidden'));
    return err.status.message ?? '';
  }
}

describe('NodeRestriction', () => {
  it('lets a node write only its own Node', async () => {
    assert.equal(
      await refusal(
        attributes(nodes, 'CREATE', 'a', node('a', { 'kubernetes.io/hostname': 'a', 'node.kubernetes.io/exclude-from-external-load-balancers': '' })),
      ),
      'admitted',
    );
    assert.equal(await refusal(attributes(nodes, 'UPDATE', 'b', node('b'), node('b'))), 'nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    assert.equal(await refusal(attributes(nodes, 'DELETE', 'b', undefined, node('b'))), 'nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
  });

  it("keeps a node from changing its taints and from labels outside the kubelet's set", async () => {
    assert.equal(
      await refusal(attributes(nodes, 'UPDATE', 'a', node('a', {}, []), node('a', {}, [{ key: 'k', effect: 'NoSchedule' }]))),
      'nodes "a" is forbidden: node "a" is not allowed to modify taints',
    );
    assert.equal(
      await refusal(attributes(nodes, 'UPDATE', 'a', node('a', { 'node-role.kubernetes.io/control-plane': '' }), node('a'))),
      'nodes "a" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane',
    );
    assert.equal(
      await refusal(attributes(nodes, 'CREATE', 'a', node('a', { 'node-restriction.kubernetes.io/x': '1', 'example.com/free': '1' }))),
      'nodes "a" is forbidden: node "a" is not allowed to set the following labels: node-restriction.kubernetes.io/x',
    );
    assert.equal(await refusal(attributes(nodes, 'UPDATE', 'a', node('a', { 'example.com/free': '2' }), node('a'))), 'admitted');
  });

  it("keeps node leases to kube-node-lease and the node's own name", async () => {
    const lease = (name: string): KubeObject => ({ metadata: { name, namespace: 'kube-node-lease' } });
    assert.equal(await refusal(attributes(leaseDefinition, 'CREATE', 'a', lease('a'), undefined, 'kube-node-lease')), 'admitted');
    assert.equal(
      await refusal(attributes(leaseDefinition, 'CREATE', 'b', lease('b'), undefined, 'kube-node-lease')),
      'leases.coordination.k8s.io "b" is forbidden: can only access node lease with the same name as the requesting node',
    );
    assert.equal(
      await refusal(attributes(leaseDefinition, 'UPDATE', 'a', lease('a'), lease('a'), 'default')),
      'leases.coordination.k8s.io "a" is forbidden: can only access leases in the "kube-node-lease" system namespace',
    );
  });

  it('leaves other users alone', async () => {
    await nodeRestriction().admit({
      ...attributes(nodes, 'UPDATE', 'b', node('b'), node('b')),
      context: { user: { username: 'admin', groups: ['system:masters'] }, now: new Date() },
    });
  });

  it('names the labels a node may not set, sorted', () => {
    assert.deepEqual(forbiddenNodeLabels(['b.k8s.io/x', 'kubernetes.io/os', 'a.kubernetes.io/y', 'kubelet.kubernetes.io/z', 'other/q']), [
      'a.kubernetes.io/y',
      'b.k8s.io/x',
    ]);
  });
  describe('pods', () => {
    const pods: ResourceDefinition = podDefinition;
    const mirror = (spec: PodSpec = {}, owner: Partial<NonNullable<Pod['metadata']['ownerReferences']>[number]> | null = {}): Pod => ({
      metadata: {
        name: 'static-web-a',
        namespace: 'default',
        annotations: { 'kubernetes.io/config.mirror': 'hash' },
        ...(owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'a', uid: 'u', controller: true, ...owner }] } : {}),
      },
      spec: { nodeName: 'a', containers: [{ name: 'c', image: 'i' }], ...spec },
    });
    const create = (pod: Pod) => refusal(attributes(pods, 'CREATE', pod.metadata.name ?? '', pod, undefined, 'default'));
    const forbiddenPod = (message: string) => `pods "static-web-a" is forbidden: ${message}`;

    it('lets a node create mirror pods bound to itself, owned by its Node or by nothing', async () => {
      assert.equal(await create(mirror()), 'admitted');
      assert.equal(await create(mirror({}, null)), 'admitted');
    });

    it("refuses other pods with upstream's messages", async () => {
      const plain = mirror();
      plain.metadata.annotations = {};
      assert.equal(await create(plain), forbiddenPod('pod does not have "kubernetes.io/config.mirror" annotation, node "a" can only create mirror pods'));
      assert.equal(await create(mirror({ nodeName: 'b' })), forbiddenPod('node "a" can only create pods with spec.nodeName set to itself'));
      assert.equal(await create(mirror({}, { name: 'b' })), forbiddenPod('node "a" can only create pods with an owner reference set to itself'));
      assert.equal(
        await create(mirror({}, { controller: false })),
        forbiddenPod('node "a" can only create pods with a controller owner reference set to itself'),
      );
      assert.equal(await create(mirror({}, { blockOwnerDeletion: true })), forbiddenPod('node "a" must not set blockOwnerDeletion on an owner reference'));
      assert.equal(await create(mirror({ serviceAccountName: 'sa' })), forbiddenPod('node "a" can not create pods that reference a service account'));
      assert.equal(
        await create(mirror({ volumes: [{ name: 'v', secret: { secretName: 's' } }] })),
        forbiddenPod('node "a" can not create pods that reference secrets'),
      );
      assert.equal(
        await create(mirror({ containers: [{ name: 'c', image: 'i', envFrom: [{ configMapRef: { name: 'cm' } }] }] })),
        forbiddenPod('node "a" can not create pods that reference configmaps'),
      );
      assert.equal(
        await create(mirror({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] })),
        forbiddenPod('node "a" can not create pods that reference persistentvolumeclaims'),
      );
    });

    it('lets a node delete and write the status of pods bound to itself only', async () => {
      const bound = mirror();
      const other = mirror({ nodeName: 'b' });
      assert.equal(await refusal(attributes(pods, 'DELETE', 'static-web-a', undefined, bound, 'default')), 'admitted');
      assert.equal(
        await refusal(attributes(pods, 'DELETE', 'static-web-a', undefined, other, 'default')),
        forbiddenPod('node "a" can only delete pods with spec.nodeName set to itself'),
      );
      assert.equal(
        await refusal(attributes(pods, 'UPDATE', 'static-web-a', bound, bound, 'default')),
        forbiddenPod('unexpected operation "UPDATE", node "a" can only create and delete mirror pods'),
      );
      const status = (object: Pod, old: Pod) => ({ ...attributes(pods, 'UPDATE', 'static-web-a', object, old, 'default'), subresource: 'status' });
      assert.equal(await refusal(status(bound, bound)), 'admitted');
      assert.equal(await refusal(status(other, other)), forbiddenPod('node "a" can only update pod status for pods with spec.nodeName set to itself'));
      const relabelled = structuredClone(bound);
      relabelled.metadata.labels = { x: 'y' };
      assert.equal(await refusal(status(relabelled, bound)), forbiddenPod('node "a" cannot update labels through pod status'));
    });
  });
});
