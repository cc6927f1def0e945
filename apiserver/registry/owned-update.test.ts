import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { deepCopy, type KubeObject } from '../../shared/api/types.ts';
import { configMapDefinition } from './core/configmap.ts';
import { leaseDefinition } from './coordination/lease.ts';
import { nodeDefinition } from './core/node/node.ts';
import type { ResourceDefinition } from './definition.ts';
import type { FieldManagerRequest } from './field-manager.ts';
import { createFieldManager } from './managed-fields.ts';
import { ownedUpdateManagedFields } from './owned-update.ts';

const withShortcut = createFieldManager();
const inFull = createFieldManager({ ownedUpdates: false });
const leaseDef = leaseDefinition as unknown as ResourceDefinition;
const cmDef = configMapDefinition as unknown as ResourceDefinition;
const nodeDef = nodeDefinition as unknown as ResourceDefinition;

function req(manager: string, now: string, definition: ResourceDefinition, subresource = ''): FieldManagerRequest {
  return { definition, manager, subresource, now: new Date(now) };
}

/** What the store does around the field manager: a stored object has a uid and a resourceVersion. */
function stored(obj: KubeObject, resourceVersion = '1'): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, uid: 'uid-1', resourceVersion } };
}

/** Records `updated` over `live` both ways and asserts the same object comes out; returns it. */
async function sameBothWays(live: KubeObject, updated: KubeObject, request: FieldManagerRequest): Promise<KubeObject> {
  const full = await inFull.update(deepCopy(live), deepCopy(updated), request);
  const short = await withShortcut.update(deepCopy(live), deepCopy(updated), request);
  assert.deepEqual(short, full);
  return short;
}

function lease(renewTime: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: 'n1',
      namespace: 'kube-node-lease',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' }],
    },
    spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime, ...extra },
  };
}

describe('updates that rewrite only the writer’s own fields', () => {
  it("records a node's lease renewal as the full recording does, without field sets", async () => {
    const created = stored(await withShortcut.update(null, lease('2026-01-01T00:00:00.000000Z'), req('kubelet', '2026-01-01T00:00:00Z', leaseDef)));
    const renewal = { ...deepCopy(created), spec: { ...(created['spec'] as object), renewTime: '2026-01-01T00:00:10.000000Z' } };
    const writer = { manager: 'kubelet', apiVersion: 'coordination.k8s.io/v1', subresource: '' };
    const entries = ownedUpdateManagedFields(created, renewal, writer, '2026-01-01T00:00:10Z', { subresource: '', resetPaths: [] });
    assert.equal(entries?.[0]?.time, '2026-01-01T00:00:10Z');
    assert.deepEqual(entries?.[0]?.fieldsV1, created.metadata.managedFields?.[0]?.fieldsV1);
    await sameBothWays(created, renewal, req('kubelet', '2026-01-01T00:00:10Z', leaseDef));
    // without managedFields in the request (a client unaware of them), and when nothing changed at all
    const { managedFields: _, ...bare } = renewal.metadata;
    await sameBothWays(created, { ...renewal, metadata: bare }, req('kubelet', '2026-01-01T00:00:10Z', leaseDef));
    await sameBothWays(created, deepCopy(created), req('kubelet', '2026-01-01T00:00:20Z', leaseDef));
  });

  it('leaves to the full recording what it cannot decide alone', async () => {
    const created = stored(await withShortcut.update(null, lease('2026-01-01T00:00:00.000000Z'), req('kubelet', '2026-01-01T00:00:00Z', leaseDef)));
    const writer = { manager: 'kubelet', apiVersion: 'coordination.k8s.io/v1', subresource: '' };
    const decide = (updated: KubeObject, who = writer, resetPaths: string[][] = []): unknown =>
      ownedUpdateManagedFields(created, updated, who, '2026-01-01T00:00:10Z', { subresource: '', resetPaths });
    const renewed = lease('2026-01-01T00:00:10.000000Z');
    const withMeta = (obj: KubeObject): KubeObject => ({ ...obj, metadata: { ...deepCopy(created.metadata), ...obj.metadata } });
    const cases: [string, KubeObject, typeof writer?][] = [
      ['a field added', withMeta(lease('2026-01-01T00:00:10.000000Z', { leaseTransitions: 1 }))],
      ['a list changed', withMeta({ ...renewed, metadata: { ...renewed.metadata, ownerReferences: [] } })],
      ['another writer', withMeta(renewed), { ...writer, manager: 'someone-else' }],
      ['another API version', withMeta(renewed), { ...writer, apiVersion: 'coordination.k8s.io/v1beta1' }],
      ['managedFields reset', { ...withMeta(renewed), metadata: { ...withMeta(renewed).metadata, managedFields: [{}] } }],
    ];
    for (const [name, updated, who] of cases) {
      assert.equal(decide(updated, who), undefined, name);
      await sameBothWays(created, updated, req(who?.manager ?? 'kubelet', '2026-01-01T00:00:10Z', leaseDef));
    }
    assert.equal(decide(withMeta(renewed), writer, [['spec', 'renewTime']]), undefined, 'a change under a reset field');
    assert.equal(decide(withMeta(renewed), writer, [['spec']]), undefined, "reset fields in the writer's entry");
    assert.notEqual(decide(withMeta(renewed), writer, [['status']]), undefined, 'reset fields elsewhere');
  });

  it("agrees with the full recording on a Node's status and labels, whose writes reset spec or status", async () => {
    const info = { kernelVersion: '6.1', osImage: 'Debian', kubeletVersion: 'v1.32.0', containerRuntimeVersion: 'none' };
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', labels: { zone: 'a' } },
      spec: { podCIDR: '10.0.0.0/24' },
      status: { phase: 'Running', nodeInfo: info },
    };
    const created = stored(await inFull.update(null, node, req('kubelet', '2026-01-01T00:00:00Z', nodeDef)));
    const viaStatus = stored(
      await inFull.update(
        created,
        { ...deepCopy(created), status: { phase: 'Pending', nodeInfo: info } },
        req('kubelet', '2026-01-01T00:00:05Z', nodeDef, 'status'),
      ),
      '2',
    );
    // a status write that changes only what the kubelet's status entry owns takes the shortcut
    const phaseOnly = { ...deepCopy(viaStatus), status: { phase: 'Running', nodeInfo: info } };
    const writer = { manager: 'kubelet', apiVersion: 'v1', subresource: 'status' };
    assert.notEqual(
      ownedUpdateManagedFields(viaStatus, phaseOnly, writer, '2026-01-01T00:00:10Z', { subresource: 'status', resetPaths: [['spec']] }),
      undefined,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('kubelet', 'other'),
        fc.constantFrom('', 'status'),
        fc.record({ phase: fc.constantFrom('Running', 'Pending'), kernelVersion: fc.constantFrom('6.1', '6.2'), zone: fc.constantFrom('a', 'b') }),
        async (manager, subresource, change) => {
          const updated = deepCopy(viaStatus);
          updated.metadata.labels = { zone: change.zone };
          updated['status'] = { phase: change.phase, nodeInfo: { ...info, kernelVersion: change.kernelVersion } };
          await sameBothWays(viaStatus, updated, req(manager, '2026-01-01T00:00:10Z', nodeDef, subresource));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('agrees with the full recording on random rewrites of a ConfigMap shared by an updater and an applier', async () => {
    const keys = ['a', 'b', 'c', 'd'];
    const seconds = (n: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString().replace('.000Z', 'Z');
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(keys, { minLength: 1 }),
        fc.dictionary(fc.constantFrom(...keys), fc.constantFrom('1', '2', '3')),
        fc.dictionary(fc.constantFrom('team', 'tier'), fc.constantFrom('x', 'y')),
        fc.constantFrom('updater', 'applier', 'newcomer'),
        fc.integer({ min: 2, max: 4 }),
        async (updaterKeys, rewrite, labels, writer, at) => {
          const data = Object.fromEntries(keys.map((k) => [k, '0']));
          const base: KubeObject = {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'cm', namespace: 'default', labels: { team: 'x', tier: 'x' } },
            data,
          };
          const created = stored(await inFull.update(null, base, req('updater', seconds(0), cmDef)));
          const applied: KubeObject = {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'cm', namespace: 'default' },
            data: Object.fromEntries(keys.filter((k) => !updaterKeys.includes(k)).map((k) => [k, '0'])),
          };
          const live = stored(await inFull.apply(created, applied, { ...req('applier', seconds(1), cmDef), force: true }), '2');
          const updated = deepCopy(live);
          Object.assign(updated['data'] as Record<string, string>, rewrite);
          Object.assign(updated.metadata.labels!, labels);
          await sameBothWays(live, updated, req(writer, seconds(at), cmDef));
        },
      ),
      { numRuns: 300 },
    );
  });
});
