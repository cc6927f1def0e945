/**
 * The namespace controller in a running controller manager against a real API server, driven by
 * kubectl: a deleted namespace is emptied of ConfigMaps, Secrets, Roles and Events, reports what
 * keeps it (a ConfigMap held by a finalizer) in its status conditions, and disappears once that is
 * released.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../shared/api/types.ts';
import type { Namespace } from '../apiserver/registry/core/namespace.ts';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { startControllerManager, type ControllerManagerProcess } from './controller-manager.ts';
import { startCluster, succeeded, type Cluster } from './harness.ts';

describe('namespace controller', () => {
  let cluster: Cluster;
  let manager: ControllerManagerProcess;
  before(async () => {
    cluster = await startCluster();
    manager = await startControllerManager(cluster, { args: ['--controllers=namespace', '--leader-elect=false'] });
  });
  after(async () => {
    await manager?.stop();
    await cluster?.stop();
  });

  const detail = (): string => manager.log().split('\n').slice(-20).join('\n');

  const apply = async (objects: KubeObject[]): Promise<void> => {
    succeeded(await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) }));
  };

  const namespaceObject = async (name: string): Promise<Namespace | undefined> => {
    const result = await cluster.kubectl(['get', 'namespace', name, '-o', 'json']);
    if (result.code !== 0 && /NotFound|not found/.test(result.stderr)) return undefined;
    return JSON.parse(succeeded(result)) as Namespace;
  };

  const content = async (namespace: string): Promise<string[]> =>
    succeeded(await cluster.kubectl(['get', 'configmaps,secrets,roles,events', '-n', namespace, '-o', 'name']))
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('configmap/kube-root-ca.crt'));

  const contentOf = (namespace: string): KubeObject[] => [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace }, data: { a: '1' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret', namespace }, stringData: { k: 'v' } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'role', namespace }, rules: [] },
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'event', namespace },
      involvedObject: { kind: 'ConfigMap', name: 'cm', namespace },
      reason: 'Test',
      message: 'an event',
      type: 'Normal',
    },
  ];

  it('kubectl delete namespace: the content goes, then the namespace', async () => {
    succeeded(await cluster.kubectl(['create', 'namespace', 'doomed']));
    await apply(contentOf('doomed'));
    assert.equal((await content('doomed')).length, 4);
    succeeded(await cluster.kubectl(['delete', 'namespace', 'doomed', '--wait=false']));
    await waitFor('namespace doomed to disappear', async () => (await namespaceObject('doomed')) === undefined, { intervalMs: 250, detail });
    assert.deepEqual(await content('doomed'), []);
  });

  it('reports content held by a finalizer in its conditions, and goes once it is released', async () => {
    succeeded(await cluster.kubectl(['create', 'namespace', 'held']));
    await apply([
      ...contentOf('held'),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hold', namespace: 'held', finalizers: ['example.com/hold'] } },
    ]);
    succeeded(await cluster.kubectl(['delete', 'namespace', 'held', '--wait=false']));
    const conditions = await waitFor(
      'the NamespaceFinalizersRemaining condition',
      async () => {
        const found = (await namespaceObject('held'))?.status?.conditions;
        return found?.some((c) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True') ? found : undefined;
      },
      { intervalMs: 250, detail },
    );
    const byType = new Map(conditions.map((c) => [c.type, c]));
    assert.equal(byType.get('NamespaceContentRemaining')?.message, 'Some resources are remaining: configmaps. has 1 resource instances');
    assert.equal(
      byType.get('NamespaceFinalizersRemaining')?.message,
      'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
    );
    assert.equal(byType.get('NamespaceDeletionDiscoveryFailure')?.reason, 'ResourcesDiscovered');
    assert.equal((await namespaceObject('held'))?.status?.phase, 'Terminating');
    assert.deepEqual(await content('held'), ['configmap/hold']);
    succeeded(await cluster.kubectl(['patch', 'configmap', 'hold', '-n', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']));
    await waitFor('namespace held to disappear', async () => (await namespaceObject('held')) === undefined, { intervalMs: 250, detail });
  });

  it('a plain kubectl delete namespace returns once the namespace is gone', async () => {
    succeeded(await cluster.kubectl(['create', 'namespace', 'waited']));
    await apply(contentOf('waited'));
    succeeded(await cluster.kubectl(['delete', 'namespace', 'waited', '--timeout=120s']));
    assert.equal(await namespaceObject('waited'), undefined);
  });
});
