/**
 * The garbage collector in a running controller manager against a real API server, driven by
 * kubectl: `kubectl delete --cascade=background|foreground|orphan` over ConfigMaps owning Secrets,
 * a dependent of an owner that never existed, a cluster-scoped owner (ClusterRole) of a namespaced
 * dependent, and a cluster-scoped dependent naming a namespaced owner (a Warning Event, never deleted).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, OwnerReference } from '../shared/api/types.ts';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { startControllerManager, type ControllerManagerProcess } from './controller-manager.ts';
import { startCluster, succeeded, type Cluster } from './harness.ts';

const ns = 'gc-e2e';

describe('garbage collector', () => {
  let cluster: Cluster;
  let manager: ControllerManagerProcess;
  before(async () => {
    cluster = await startCluster();
    manager = await startControllerManager(cluster, { args: ['--controllers=garbagecollector', '--leader-elect=false'] });
    succeeded(await cluster.kubectl(['create', 'namespace', ns]));
  });
  after(async () => {
    await manager?.stop();
    await cluster?.stop();
  });

  const detail = (): string => manager.log().split('\n').slice(-20).join('\n');

  const create = async (obj: KubeObject): Promise<KubeObject> =>
    JSON.parse(succeeded(await cluster.kubectl(['create', '-o', 'json', '-f', '-'], { input: JSON.stringify(obj) }))) as KubeObject;

  const configMap = (name: string, extra: Partial<KubeObject['metadata']> = {}): Promise<KubeObject> =>
    create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...extra }, data: { a: '1' } });

  const secret = (name: string, owners: OwnerReference[], extra: Partial<KubeObject['metadata']> = {}): Promise<KubeObject> =>
    create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns, ownerReferences: owners, ...extra }, stringData: { k: 'v' } });

  const ownedBy = (owner: KubeObject, blockOwnerDeletion?: boolean): OwnerReference => ({
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    ...(blockOwnerDeletion !== undefined ? { blockOwnerDeletion } : {}),
  });

  /** The object as JSON, or undefined once it is gone. */
  const get = async (kind: string, name: string, namespace: string | undefined = ns): Promise<KubeObject | undefined> => {
    const result = await cluster.kubectl(['get', kind, name, '-o', 'json', ...(namespace ? ['-n', namespace] : [])]);
    if (result.code !== 0 && /NotFound|not found/.test(result.stderr)) return undefined;
    return JSON.parse(succeeded(result)) as KubeObject;
  };

  const gone = (kind: string, name: string, namespace?: string): Promise<boolean> =>
    waitFor(`${kind} ${name} to be deleted`, async () => (await get(kind, name, namespace)) === undefined, { intervalMs: 200, detail });

  it('--cascade=background: the owner goes at once, then its dependents', async () => {
    const owner = await configMap('bg-owner');
    await secret('bg-a', [ownedBy(owner)]);
    await secret('bg-b', [ownedBy(owner)]);
    succeeded(await cluster.kubectl(['delete', 'configmap', 'bg-owner', '-n', ns, '--cascade=background']));
    assert.equal(await get('configmap', 'bg-owner'), undefined);
    await gone('secret', 'bg-a');
    await gone('secret', 'bg-b');
  });

  it('--cascade=foreground: the owner waits with foregroundDeletion until its blocking dependents are gone', async () => {
    const owner = await configMap('fg-owner');
    await secret('fg-free', [ownedBy(owner)]);
    // A dependent held by a finalizer of its own keeps the owner until it is released.
    await secret('fg-held', [ownedBy(owner, true)], { finalizers: ['example.com/hold'] });
    succeeded(await cluster.kubectl(['delete', 'configmap', 'fg-owner', '-n', ns, '--cascade=foreground', '--wait=false']));
    await gone('secret', 'fg-free');
    const held = await waitFor('the held dependent to be marked deleted', async () => (await get('secret', 'fg-held'))?.metadata.deletionTimestamp, { detail });
    assert.ok(held);
    const waiting = await get('configmap', 'fg-owner');
    assert.ok(waiting?.metadata.deletionTimestamp, 'the owner is marked deleted');
    assert.deepEqual(waiting.metadata.finalizers, ['foregroundDeletion']);
    succeeded(await cluster.kubectl(['patch', 'secret', 'fg-held', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']));
    await gone('secret', 'fg-held');
    await gone('configmap', 'fg-owner');
  });

  it('--cascade=orphan: the owner goes, its dependents stay without the reference', async () => {
    const owner = await configMap('or-owner');
    const other = await configMap('or-other');
    await secret('or-a', [ownedBy(owner)]);
    await secret('or-b', [ownedBy(owner), ownedBy(other)]);
    succeeded(await cluster.kubectl(['delete', 'configmap', 'or-owner', '-n', ns, '--cascade=orphan']));
    await gone('configmap', 'or-owner');
    const a = await get('secret', 'or-a');
    const b = await get('secret', 'or-b');
    assert.equal(a?.metadata.ownerReferences, undefined);
    assert.deepEqual(
      b?.metadata.ownerReferences?.map((r) => r.name),
      ['or-other'],
    );
  });

  it('collects a dependent whose owner never existed', async () => {
    await secret('dangling', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was', uid: '00000000-0000-0000-0000-000000000001' }]);
    await gone('secret', 'dangling');
  });

  it('a namespaced dependent of a cluster-scoped owner goes with it', async () => {
    const role = await create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-e2e-owner' }, rules: [] });
    const dependent = await configMap('of-cluster-role', { ownerReferences: [ownedBy(role)] });
    assert.ok(dependent.metadata.uid);
    succeeded(await cluster.kubectl(['delete', 'clusterrole', 'gc-e2e-owner']));
    await gone('configmap', 'of-cluster-role');
  });

  it('a cluster-scoped dependent naming a namespaced owner: Warning OwnerRefInvalidNamespace, never deleted', async () => {
    const owner = await configMap('ns-owner');
    await create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'gc-e2e-invalid', ownerReferences: [ownedBy(owner)] },
      rules: [],
    });
    const event = await waitFor(
      'the OwnerRefInvalidNamespace event',
      async () => {
        const list = JSON.parse(
          succeeded(await cluster.kubectl(['get', 'events', '-n', 'default', '--field-selector', 'reason=OwnerRefInvalidNamespace', '-o', 'json'])),
        ) as { items: { involvedObject: { name: string }; message: string; type: string }[] };
        return list.items.find((e) => e.involvedObject.name === 'gc-e2e-invalid');
      },
      { intervalMs: 200, detail },
    );
    assert.equal(event.type, 'Warning');
    assert.match(event.message, /^ownerRef \[v1\/ConfigMap, namespace: , name: ns-owner, uid: [0-9a-f-]+\] does not exist in namespace ""$/);
    // Deleting the owner does not take the invalid dependent with it.
    succeeded(await cluster.kubectl(['delete', 'configmap', 'ns-owner', '-n', ns]));
    await secretProbe();
    assert.ok(await get('clusterrole', 'gc-e2e-invalid', undefined));
  });

  /** A dependent created after the previous steps and collected proves the collector went past them. */
  const secretProbe = async (): Promise<void> => {
    await secret('probe', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was', uid: '00000000-0000-0000-0000-000000000002' }]);
    await gone('secret', 'probe');
  };
});
