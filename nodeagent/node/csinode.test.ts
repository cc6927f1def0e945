import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { alreadyExists, forbidden } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { RecordingApiClient } from '../../shared/client/testing.ts';
import { csiNodeFor, csiNodesPath, ensureCSINode, migratedPluginsAnnotation } from './csinode.ts';

const gr = { group: 'storage.k8s.io', resource: 'csinodes' };

describe('csiNodeFor', () => {
  it('is the CSINode named after the node, owned by it, without drivers', () => {
    const csiNode = csiNodeFor('node-1', 'uid-1');
    assert.equal(csiNode.apiVersion, 'storage.k8s.io/v1');
    assert.equal(csiNode.kind, 'CSINode');
    assert.equal(csiNode.metadata.name, 'node-1');
    assert.deepEqual(csiNode.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'uid-1' }]);
    assert.deepEqual(csiNode['spec'], { drivers: [] });
    assert.equal(migratedPluginsAnnotation, 'storage.alpha.kubernetes.io/migrated-plugins');
  });

  it('lists the migrated in-tree plugins sorted and comma-separated, as setMigrationAnnotation writes them', () => {
    const value = csiNodeFor('node-1', 'uid-1').metadata.annotations?.[migratedPluginsAnnotation] ?? '';
    const plugins = value.split(',');
    assert.deepEqual(plugins, [...plugins].sort());
    for (const plugin of [
      'kubernetes.io/aws-ebs',
      'kubernetes.io/azure-disk',
      'kubernetes.io/azure-file',
      'kubernetes.io/cinder',
      'kubernetes.io/gce-pd',
      'kubernetes.io/vsphere-volume',
    ]) {
      assert.ok(plugins.includes(plugin), plugin);
    }
  });

  it('lists the Portworx plugin too: CSIMigrationPortworx is on by default since 1.31', () => {
    assert.equal(
      csiNodeFor('node-1', 'uid-1').metadata.annotations?.[migratedPluginsAnnotation],
      'kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume,kubernetes.io/vsphere-volume',
    );
  });
});

describe('ensureCSINode', () => {
  it('creates the CSINode', async () => {
    const api = new RecordingApiClient();
    await ensureCSINode(api, 'node-1', 'uid-1');
    assert.deepEqual(api.writes(), [`CREATE ${csiNodesPath}`]);
    assert.equal(csiNodesPath, '/apis/storage.k8s.io/v1/csinodes');
    assert.deepEqual(api.actions[0]?.body, csiNodeFor('node-1', 'uid-1'));
  });

  it('leaves an existing CSINode as it is', async () => {
    const api = new RecordingApiClient();
    api.react((action) => {
      if (action.verb === 'create') throw alreadyExists(gr, (action.body as KubeObject).metadata.name ?? '');
      return undefined;
    });
    await ensureCSINode(api, 'node-1', 'uid-1');
    assert.deepEqual(
      api.actions.map((a) => a.verb),
      ['create'],
    );
  });

  it('passes other errors on', async () => {
    const api = new RecordingApiClient();
    api.react((action) => {
      if (action.verb === 'create') throw forbidden(gr, 'node-1', 'no');
      return undefined;
    });
    await assert.rejects(ensureCSINode(api, 'node-1', 'uid-1'), { message: /forbidden/ });
  });
});
