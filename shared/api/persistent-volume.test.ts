import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { persistentVolumeSpec } from './persistent-volume.ts';

describe('persistentVolumeSpec', () => {
  it('describes every persistent volume source inline, with upstream list and map types', () => {
    const pv = persistentVolumeSpec();
    for (const source of ['csi', 'nfs', 'hostPath', 'iscsi', 'rbd', 'local', 'cephfs', 'fc', 'flexVolume', 'azureDisk', 'storageos']) {
      assert.equal(pv.properties?.[source]?.type, 'object', source);
    }
    assert.deepEqual(pv.properties?.csi?.required, ['driver', 'volumeHandle']);
    assert.equal(pv.properties?.csi?.properties?.nodePublishSecretRef?.['x-kubernetes-map-type'], 'atomic');
    assert.equal(pv.properties?.accessModes?.['x-kubernetes-list-type'], 'atomic');
    assert.equal(pv.properties?.claimRef?.['x-kubernetes-map-type'], 'granular');
  });
});
