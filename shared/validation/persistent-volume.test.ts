import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldPath, fieldErrorString } from '../api/field.ts';
import type { PersistentVolumeSpec } from '../api/persistent-volume.ts';
import { validateInlinePersistentVolumeSpec } from './persistent-volume.ts';

const p = 'spec.source.inlineVolumeSpec';
const validate = (spec: PersistentVolumeSpec): string[] =>
  validateInlinePersistentVolumeSpec(spec, FieldPath.root('spec').child('source', 'inlineVolumeSpec')).map(fieldErrorString);

const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('validateInlinePersistentVolumeSpec', () => {
  it('accepts an inline CSI volume', () => {
    assert.deepEqual(validate({ accessModes: ['ReadWriteOnce'], csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' } }), []);
  });

  it('forbids what an inline volume may not have, in upstream order', () => {
    const bad: PersistentVolumeSpec = {
      claimRef: { name: 'c' },
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOncePod', 'ReadWriteOnce', 'Sometimes'],
      persistentVolumeReclaimPolicy: 'Delete',
      nodeAffinity: {},
      nfs: { server: 's', path: '/' },
      csi: { driver: '', volumeHandle: '', nodePublishSecretRef: { name: 'Bad' } },
      storageClassName: 'fast',
      volumeMode: 'Block',
    };
    assert.deepEqual(validate(bad), [
      `${p}.claimRef: Forbidden: may not be specified in the context of inline volumes`,
      `${p}.capacity: Forbidden: may not be specified in the context of inline volumes`,
      `${p}.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`,
      `${p}.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes`,
      `${p}.persistentVolumeReclaimPolicy: Forbidden: may only be Retain in the context of inline volumes`,
      `${p}.nodeAffinity: Forbidden: may not be specified in the context of inline volumes`,
      `${p}.csi: Forbidden: may not specify more than 1 volume type`,
      `${p}.storageClassName: Forbidden: may not be specified in the context of inline volumes`,
      `${p}.volumeMode: Forbidden: may not specify volumeMode other than Filesystem in the context of inline volumes`,
    ]);
  });

  it('validates the csi source field by field', () => {
    assert.deepEqual(validate({ csi: { driver: '', volumeHandle: '', nodePublishSecretRef: { name: 'Bad' } } }), [
      `${p}.accessModes: Required value`,
      `${p}.csi.driver: Required value`,
      `${p}.csi.driver: Invalid value: "": ${subdomainMessage}`,
      `${p}.csi.volumeHandle: Required value`,
      `${p}.csi.nodePublishSecretRef.name: Invalid value: "Bad": ${subdomainMessage}`,
      `${p}.csi.nodePublishSecretRef.namespace: Required value`,
    ]);
  });

  it('requires a volume source, csi in particular', () => {
    assert.deepEqual(validate({ accessModes: ['ReadWriteOnce'] }), [
      `${p}.csi: Required value: has to be specified in the context of inline volumes`,
      `${p}: Required value: must specify a volume type`,
    ]);
  });
});
