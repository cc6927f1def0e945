/**
 * Upstream's ValidatePersistentVolumeSpec (core validation) for an inline volume, the only
 * persistent volume corral serves: a CSI volume migrated from a pod, as a VolumeAttachment carries
 * it. Of the volume sources only csi is validated field by field; the others are counted.
 */
import { posix } from 'node:path';
import { append } from '../api/append.ts';
import { forbidden, invalid, notSupported, required, type FieldError, type FieldPath } from '../api/field.ts';
import type { PersistentVolumeSpec } from '../api/persistent-volume.ts';
import type { CSIPersistentVolumeSource, SecretReference } from '../api/persistent-volume-source.ts';
import { validateCSIDriverName } from './csi-driver-name.ts';
import { isDNS1123Label, isDNS1123Subdomain } from './names.ts';

const supportedAccessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

/**
 * The volume sources of a PersistentVolumeSpec in the order upstream counts them, each with the
 * path its "more than 1 volume type" error names (upstream spells cephfs as `cephFS` there).
 * flexVolume is counted but never reported as an extra type.
 */
const volumeSources: readonly { key: string; reportedAs?: string }[] = [
  { key: 'hostPath' },
  { key: 'gcePersistentDisk' },
  { key: 'awsElasticBlockStore' },
  { key: 'glusterfs' },
  { key: 'flocker' },
  { key: 'nfs' },
  { key: 'rbd' },
  { key: 'quobyte' },
  { key: 'cephfs', reportedAs: 'cephFS' },
  { key: 'iscsi' },
  { key: 'cinder' },
  { key: 'fc' },
  { key: 'flexVolume', reportedAs: '' },
  { key: 'azureFile' },
  { key: 'vsphereVolume' },
  { key: 'photonPersistentDisk' },
  { key: 'portworxVolume' },
  { key: 'azureDisk' },
  { key: 'scaleIO' },
  { key: 'local' },
  { key: 'storageos' },
  { key: 'csi' },
];

function validateSecretReference(ref: SecretReference, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!ref.name) errs.push(required(path.child('name')));
  else for (const msg of isDNS1123Subdomain(ref.name)) errs.push(invalid(path.child('name'), ref.name, msg));
  if (!ref.namespace) errs.push(required(path.child('namespace')));
  else for (const msg of isDNS1123Label(ref.namespace)) errs.push(invalid(path.child('namespace'), ref.namespace, msg));
  return errs;
}

function validateCSISource(csi: CSIPersistentVolumeSource, path: FieldPath): FieldError[] {
  const errs = validateCSIDriverName(csi.driver, path.child('driver'));
  if (!csi.volumeHandle) errs.push(required(path.child('volumeHandle')));
  for (const key of ['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef'] as const) {
    const ref = csi[key];
    if (ref) append(errs, validateSecretReference(ref, path.child(key)));
  }
  return errs;
}

/** The spec of an inline volume at `path`, errors in upstream's order. */
export function validateInlinePersistentVolumeSpec(spec: PersistentVolumeSpec, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const inline = 'may not be specified in the context of inline volumes';
  if (spec.claimRef) errs.push(forbidden(path.child('claimRef'), inline));
  if (Object.keys(spec.capacity ?? {}).length) errs.push(forbidden(path.child('capacity'), inline));
  if (!spec.csi) errs.push(required(path.child('csi'), 'has to be specified in the context of inline volumes'));
  const modes = spec.accessModes ?? [];
  if (!modes.length) errs.push(required(path.child('accessModes')));
  let readWriteOncePod = false;
  let otherMode = false;
  for (const mode of modes) {
    if (!supportedAccessModes.includes(mode)) errs.push(notSupported(path.child('accessModes'), mode, supportedAccessModes));
    if (mode === 'ReadWriteOncePod') readWriteOncePod = true;
    else if (supportedAccessModes.includes(mode)) otherMode = true;
  }
  if (readWriteOncePod && otherMode) errs.push(forbidden(path.child('accessModes'), 'may not use ReadWriteOncePod with other access modes'));
  if (spec.persistentVolumeReclaimPolicy && spec.persistentVolumeReclaimPolicy !== 'Retain') {
    errs.push(forbidden(path.child('persistentVolumeReclaimPolicy'), 'may only be Retain in the context of inline volumes'));
  }
  if (spec.nodeAffinity) errs.push(forbidden(path.child('nodeAffinity'), inline));
  let volumes = 0;
  for (const { key, reportedAs } of volumeSources) {
    const source = spec[key];
    if (source === undefined || source === null) continue;
    if (volumes > 0 && reportedAs !== '') {
      errs.push(forbidden(path.child(reportedAs ?? key), 'may not specify more than 1 volume type'));
      continue;
    }
    volumes++;
    if (key === 'csi' && spec.csi) append(errs, validateCSISource(spec.csi, path.child('csi')));
    // An inline volume never has node affinity, which a local volume needs.
    if (key === 'local') errs.push(required(path.child('nodeAffinity'), 'Local volume requires node affinity'));
  }
  if (volumes === 0) errs.push(required(path, 'must specify a volume type'));
  if (spec.hostPath && posix.normalize(spec.hostPath.path || '.') === '/' && spec.persistentVolumeReclaimPolicy === 'Recycle') {
    errs.push(forbidden(path.child('persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (spec.storageClassName) errs.push(forbidden(path.child('storageClassName'), inline));
  if (spec.volumeMode !== undefined && spec.volumeMode !== 'Filesystem') {
    errs.push(forbidden(path.child('volumeMode'), 'may not specify volumeMode other than Filesystem in the context of inline volumes'));
  }
  return errs;
}
