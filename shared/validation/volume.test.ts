import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FieldPath, fieldErrorString } from '../api/field.ts';
import type { Volume } from '../api/pod-volume.ts';
import { fileModeErrorMessage, validateVolumes } from './volume.ts';

const check = (volumes: Volume[], podName?: string): string[] =>
  validateVolumes(volumes, FieldPath.root('spec').child('volumes'), podName).errors.map(fieldErrorString);
const one = (volume: Omit<Volume, 'name'>, podName?: string): string[] => check([{ name: 'v', ...volume }], podName);

describe('validateVolumes', () => {
  it('accepts every source of the spec in a valid form', () => {
    assert.deepEqual(
      check([
        { name: 'a', configMap: { name: 'cm', items: [{ key: 'k', path: 'dir/file' }], defaultMode: 0o644 } },
        { name: 'b', secret: { secretName: 's', optional: true } },
        { name: 'c', downwardAPI: { items: [{ path: 'labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' } }] } },
        { name: 'd', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 600 } }, { configMap: { name: 'cm' } }] } },
        { name: 'e', csi: { driver: 'csi.example.com' } },
        { name: 'f', fc: { wwids: ['w'] } },
        { name: 'g', fc: { targetWWNs: ['t'], lun: 0 } },
        { name: 'h', flocker: { datasetName: 'ds' } },
        { name: 'i', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } },
        { name: 'j', hostPath: { path: '/var/log' } },
        { name: 'k', emptyDir: {} },
        { name: 'l', persistentVolumeClaim: { claimName: 'data' } },
        { name: 'm', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
        { name: 'n', flexVolume: { driver: 'example/driver' } },
      ]),
      [],
    );
  });

  it('wants unique DNS label names and exactly one source', () => {
    assert.deepEqual(check([{ name: 'a', emptyDir: {} }, { name: 'a', emptyDir: {} }, { name: 'B_', emptyDir: {} }, { name: '' }]), [
      'spec.volumes[1].name: Duplicate value: "a"',
      `spec.volumes[2].name: Invalid value: "B_": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'spec.volumes[3]: Required value: must specify a volume type',
      'spec.volumes[3].name: Required value',
    ]);
    assert.deepEqual(one({ emptyDir: {}, hostPath: { path: '/x' }, cephfs: { monitors: ['m'] }, downwardAPI: {} }), [
      'spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type',
      'spec.volumes[0].cephFS: Forbidden: may not specify more than 1 volume type',
      'spec.volumes[0].downwarAPI: Forbidden: may not specify more than 1 volume type',
    ]);
  });

  it('checks modes and item paths', () => {
    assert.deepEqual(
      one({
        configMap: {
          name: 'cm',
          defaultMode: 0o1000,
          items: [
            { key: 'k', path: '/abs', mode: -1 },
            { key: '', path: '..hidden' },
            { key: 'k', path: 'a/../b' },
          ],
        },
      }),
      [
        `spec.volumes[0].configMap.defaultMode: Invalid value: 512: ${fileModeErrorMessage}`,
        'spec.volumes[0].configMap.items[0].path: Invalid value: "/abs": must be a relative path',
        `spec.volumes[0].configMap.items[0].mode: Invalid value: -1: ${fileModeErrorMessage}`,
        'spec.volumes[0].configMap.items[1].key: Required value',
        `spec.volumes[0].configMap.items[1].path: Invalid value: "..hidden": must not start with '..'`,
        `spec.volumes[0].configMap.items[2].path: Invalid value: "a/../b": must not contain '..'`,
      ],
    );
    assert.deepEqual(one({ secret: {} }), ['spec.volumes[0].secret.secretName: Required value']);
  });

  it('checks service account token projections', () => {
    assert.deepEqual(
      one({
        projected: {
          sources: [{ serviceAccountToken: { path: '', expirationSeconds: 60 } }, { serviceAccountToken: { path: 't', expirationSeconds: 2 ** 33 } }],
        },
      }),
      [
        'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
        'spec.volumes[0].projected.path: Required value',
        'spec.volumes[0].projected.sources[1].serviceAccountToken.expirationSeconds: Invalid value: 8589934592: may not specify a duration larger than 2^32 seconds',
      ],
    );
    assert.deepEqual(one({ projected: { sources: [{ secret: { name: 's' }, configMap: { name: 'c' } }] } }), [
      'spec.volumes[0].projected.sources[0]: Forbidden: may not specify more than 1 volume type',
    ]);
  });

  it('checks csi, fc, flocker and iscsi', () => {
    assert.deepEqual(one({ csi: { driver: '' } }), [
      'spec.volumes[0].csi.driver: Required value',
      `spec.volumes[0].csi.driver: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    assert.deepEqual(one({ fc: {} }), ['spec.volumes[0].fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both']);
    assert.deepEqual(one({ fc: { targetWWNs: ['t'], wwids: ['w'] } }), [
      'spec.volumes[0].fc.targetWWNs: Invalid value: ["t"]: targetWWNs and wwids can not be specified simultaneously',
      'spec.volumes[0].fc.lun: Required value: lun is required if targetWWNs is specified',
    ]);
    assert.deepEqual(one({ fc: { targetWWNs: ['t'], lun: 256 } }), ['spec.volumes[0].fc.lun: Invalid value: 256: must be between 0 and 255, inclusive']);
    assert.deepEqual(one({ flocker: {} }), ['spec.volumes[0].flocker: Required value: one of datasetName and datasetUUID is required']);
    assert.deepEqual(one({ flocker: { datasetName: 'a/b', datasetUUID: 'u' } }), [
      'spec.volumes[0].flocker: Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously',
      `spec.volumes[0].flocker.datasetName: Invalid value: "a/b": must not contain '/'`,
    ]);
    assert.deepEqual(one({ iscsi: { lun: 300, chapAuthSession: true } }), [
      'spec.volumes[0].iscsi.targetPortal: Required value',
      'spec.volumes[0].iscsi.iqn: Required value',
      'spec.volumes[0].iscsi.lun: Invalid value: 300: must be between 0 and 255, inclusive',
      'spec.volumes[0].iscsi.secretRef: Required value',
    ]);
    assert.deepEqual(one({ iscsi: { targetPortal: 'p', iqn: 'foo' } }), [
      'spec.volumes[0].iscsi.iqn: Invalid value: "foo": must be valid format starting with iqn, eui, or naa',
    ]);
    assert.deepEqual(one({ iscsi: { targetPortal: 'p', iqn: 'iqn.bad' } }), ['spec.volumes[0].iscsi.iqn: Invalid value: "iqn.bad": must be valid format']);
  });

  it('checks ephemeral claim templates and the claims they create', () => {
    assert.deepEqual(one({ ephemeral: {} }), ['spec.volumes[0].ephemeral.volumeClaimTemplate: Required value']);
    assert.deepEqual(one({ ephemeral: { volumeClaimTemplate: { metadata: { name: 'x' }, spec: {} } } }), [
      'spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.Name: Forbidden: cannot be set',
      'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at least 1 access mode is required',
      'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources[storage]: Required value',
    ]);
    const ephemeral: Volume = {
      name: 'scratch',
      ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } },
    };
    assert.deepEqual(check([ephemeral, { name: 'claim', persistentVolumeClaim: { claimName: 'web-scratch' } }], 'web'), [
      'spec.volumes[1].persistentVolumeClaim.claimName: Invalid value: "web-scratch": must not reference a PVC that gets created for an ephemeral volume',
    ]);
  });
});
