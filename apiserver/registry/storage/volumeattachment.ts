/**
 * VolumeAttachment (storage.k8s.io/v1): the intent to attach one volume to one node, and the
 * attacher's report of it in status. The spec never changes after creation; status is written
 * only through the status subresource.
 */
import { posix } from 'node:path';
import { FieldPath, forbidden, invalid, notSupported, required, tooLong, type FieldError } from '../../../shared/api/field.ts';
import {
  atomicArray,
  boolean,
  defaulted,
  describe,
  embedded,
  int32,
  kindSchema,
  map,
  named,
  neverOmitted,
  nodeSelector,
  object,
  objectReference,
  pb,
  quantity,
  string,
  time,
  type Schema,
} from '../../../shared/api/schema.ts';
import type { KubeObject, ObjectMeta } from '../../../shared/api/types.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../shared/validation/names.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../../endpoints/table.ts';
import { validateImmutableField } from '../core/shared-validation.ts';
import { semanticEqual, validateCSIDriverName } from './validation.ts';
import { append } from '../../../shared/api/append.ts';

export interface SecretReference {
  name?: string;
  namespace?: string;
}

export interface CSIPersistentVolumeSource {
  driver?: string;
  volumeHandle?: string;
  controllerPublishSecretRef?: SecretReference;
  controllerExpandSecretRef?: SecretReference;
  nodePublishSecretRef?: SecretReference;
  nodeExpandSecretRef?: SecretReference;
  nodeStageSecretRef?: SecretReference;
  [field: string]: unknown;
}

/** The fields of a PersistentVolumeSpec that inline validation reads; volume sources are keyed by name. */
export interface PersistentVolumeSpec {
  accessModes?: string[];
  capacity?: Record<string, string | number>;
  claimRef?: Record<string, unknown>;
  csi?: CSIPersistentVolumeSource;
  hostPath?: { path?: string };
  nodeAffinity?: Record<string, unknown>;
  persistentVolumeReclaimPolicy?: string;
  storageClassName?: string;
  volumeMode?: string;
  [field: string]: unknown;
}

export interface VolumeError {
  time?: string;
  message?: string;
}

export interface VolumeAttachment extends KubeObject {
  spec?: {
    attacher?: string;
    source?: { persistentVolumeName?: string; inlineVolumeSpec?: PersistentVolumeSpec };
    nodeName?: string;
  };
  status?: {
    attached?: boolean;
    attachmentMetadata?: Record<string, string>;
    attachError?: VolumeError;
    detachError?: VolumeError;
  };
}

const maxAttachedVolumeMetadataSize = 256 * 1024;
const maxVolumeErrorMessageSize = 1024;

const specPath = FieldPath.root('spec');
const statusPath = FieldPath.root('status');

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

/**
 * upstream's ValidatePersistentVolumeSpec for an inline volume (a CSI volume migrated from a pod).
 * Of the volume sources only csi is validated field by field; the others are counted.
 */
function validateInlineVolumeSpec(spec: PersistentVolumeSpec, path: FieldPath): FieldError[] {
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

function validateVolumeError(error: VolumeError | undefined, path: FieldPath): FieldError[] {
  // Upstream names the metadata size limit, not the message limit, in this error.
  if (error && Buffer.byteLength(error.message ?? '') > maxVolumeErrorMessageSize) {
    return [tooLong(path.child('message'), '', maxAttachedVolumeMetadataSize)];
  }
  return [];
}

/** upstream's ValidateVolumeAttachment: the checks of every write. */
function validateVolumeAttachment(obj: VolumeAttachment): FieldError[] {
  const spec = obj.spec ?? {};
  const errs: FieldError[] = [];
  if (!spec.attacher) errs.push(required(specPath.child('attacher')));
  const sourcePath = specPath.child('source');
  const source = spec.source ?? {};
  const exactlyOne = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
  const inlineSpec = source.inlineVolumeSpec ?? undefined;
  const pvName = source.persistentVolumeName ?? undefined;
  if (inlineSpec === undefined && pvName === undefined) {
    errs.push(required(sourcePath, exactlyOne));
  } else if (inlineSpec !== undefined && pvName !== undefined) {
    errs.push(forbidden(sourcePath, exactlyOne));
  } else if (pvName !== undefined) {
    if (pvName === '') errs.push(required(sourcePath.child('persistentVolumeName'), 'must specify non empty persistentVolumeName'));
  } else if (inlineSpec !== undefined) {
    append(errs, validateInlineVolumeSpec(inlineSpec, sourcePath.child('inlineVolumeSpec')));
  }
  const nodeName = spec.nodeName ?? '';
  for (const msg of isDNS1123Subdomain(nodeName)) errs.push(invalid(specPath.child('nodeName'), nodeName, msg));

  const status = obj.status ?? {};
  let metadataSize = 0;
  for (const [k, v] of Object.entries(status.attachmentMetadata ?? {})) metadataSize += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (metadataSize > maxAttachedVolumeMetadataSize) {
    errs.push(tooLong(statusPath.child('attachmentMetadata'), '', maxAttachedVolumeMetadataSize));
  }
  append(errs, validateVolumeError(status.attachError, statusPath.child('attachError')));
  append(errs, validateVolumeError(status.detachError, statusPath.child('detachError')));
  return errs;
}

/** upstream's ValidateVolumeAttachmentV1: the stricter checks applied on create only. */
function validateVolumeAttachmentV1(obj: VolumeAttachment): FieldError[] {
  const errs = validateCSIDriverName(obj.spec?.attacher, specPath.child('attacher'));
  const pvName = obj.spec?.source?.persistentVolumeName ?? undefined;
  if (pvName !== undefined) {
    const path = specPath.child('source', 'persistentVolumeName');
    for (const msg of isDNS1123Subdomain(pvName)) errs.push(invalid(path, pvName, msg));
  }
  return errs;
}

/**
 * Upstream's update validation runs the object checks twice (the strategy and
 * ValidateVolumeAttachmentUpdate both do), so each problem appears twice among the causes.
 */
function validateVolumeAttachmentUpdate(obj: VolumeAttachment, old: VolumeAttachment): FieldError[] {
  const errs = [...validateVolumeAttachment(obj), ...validateVolumeAttachment(obj)];
  append(errs, validateImmutableField(obj.spec ?? {}, old.spec ?? {}, specPath, semanticEqual));
  return errs;
}

function keepMetadataField<K extends keyof ObjectMeta>(meta: ObjectMeta, old: ObjectMeta, key: K): void {
  const value = old[key];
  if (value === undefined) delete meta[key];
  else meta[key] = structuredClone(value);
}

/** A status write keeps the metadata as stored (upstream's ResetObjectMetaForStatus). */
function keepMetadataForStatus(meta: ObjectMeta, old: ObjectMeta): void {
  keepMetadataField(meta, old, 'labels');
  keepMetadataField(meta, old, 'annotations');
  keepMetadataField(meta, old, 'finalizers');
  keepMetadataField(meta, old, 'ownerReferences');
}

const core = (type: string): string => `io.k8s.api.core.v1.${type}`;

/** A `*SecretReference` field of a volume source: field number `field` and what the secret is for. */
const secretReference = (field: number, description: string): Schema =>
  pb(
    field,
    describe(
      named(core('SecretReference'), 'Names a secret in any namespace.', {
        ...object({
          name: pb(1, string('Name of the secret.')),
          namespace: pb(2, string('Namespace of the secret.')),
        }),
        'x-kubernetes-map-type': 'atomic',
      }),
      description,
    ),
    'optional',
  );

const fsType = (field: number, options: { default?: string; optional?: true } = {}): Schema => {
  const schema = string('Filesystem to mount the volume as, such as ext4 or xfs; the host must support it.');
  return pb(field, options.default === undefined ? schema : defaulted(schema, options.default), options.optional ? 'optional' : undefined);
};
const readOnly = (field: number, presence?: 'optional'): Schema => pb(field, boolean('Whether the volume is mounted read-only. Defaults to false.'), presence);

/**
 * The fields of core/v1 PersistentVolumeSource, which PersistentVolumeSpec embeds: inline in JSON,
 * but in protobuf a message of its own under PersistentVolumeSpec's field 2, so the field numbers
 * below count within that message, not within the spec's. Each volume type is upstream's named struct.
 */
const persistentVolumeSourceFields = (): Record<string, Schema> => {
  const source = (field: number, type: string, typeDescription: string, fieldDescription: string, schema: Schema): Schema =>
    pb(field, describe(named(core(type), typeDescription, schema), fieldDescription), 'optional');
  return {
    gcePersistentDisk: source(
      1,
      'GCEPersistentDiskVolumeSource',
      'A Google Compute Engine persistent disk.',
      'Deprecated: a GCE persistent disk; the pd.csi.storage.gke.io CSI driver serves it now.',
      object(
        {
          pdName: pb(1, neverOmitted(string('Name of the persistent disk in GCE. Required.'))),
          fsType: fsType(2),
          partition: pb(3, int32('Partition of the disk to mount, such as 1 for /dev/sda1; 0 or absent mounts the whole disk.')),
          readOnly: readOnly(4),
        },
        ['pdName'],
      ),
    ),
    awsElasticBlockStore: source(
      2,
      'AWSElasticBlockStoreVolumeSource',
      'An Amazon EBS volume.',
      'Deprecated: an AWS EBS volume; the ebs.csi.aws.com CSI driver serves it now.',
      object(
        {
          volumeID: pb(1, neverOmitted(string('ID of the EBS volume. Required.'))),
          fsType: fsType(2),
          partition: pb(3, int32('Partition of the volume to mount; 0 or absent mounts the whole volume.')),
          readOnly: readOnly(4),
        },
        ['volumeID'],
      ),
    ),
    hostPath: source(
      3,
      'HostPathVolumeSource',
      'A file or directory on the node\'s own filesystem.',
      'A path on the node, for single-node testing only.',
      object(
        {
          path: pb(1, neverOmitted(string('Path on the node; a symbolic link is followed. Required.'))),
          type: pb(2, string('What must be at the path: empty (no check), DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice.'), 'optional'),
        },
        ['path'],
      ),
    ),
    glusterfs: source(
      4,
      'GlusterfsPersistentVolumeSource',
      'A GlusterFS volume.',
      'Deprecated: a GlusterFS volume, no longer supported.',
      object(
        {
          endpoints: pb(1, neverOmitted(string('Name of the Endpoints object listing the Gluster servers. Required.'))),
          path: pb(2, neverOmitted(string('Name of the Gluster volume. Required.'))),
          readOnly: readOnly(3),
          endpointsNamespace: pb(4, string('Namespace of the Endpoints object; defaults to the claim\'s namespace.'), 'optional'),
        },
        ['endpoints', 'path'],
      ),
    ),
    nfs: source(
      5,
      'NFSVolumeSource',
      'An NFS export.',
      'An NFS export.',
      object(
        {
          server: pb(1, neverOmitted(string('Host name or IP address of the NFS server. Required.'))),
          path: pb(2, neverOmitted(string('Path of the export on the server. Required.'))),
          readOnly: readOnly(3),
        },
        ['server', 'path'],
      ),
    ),
    rbd: source(
      6,
      'RBDPersistentVolumeSource',
      'A Ceph RADOS block device.',
      'Deprecated: a Ceph RBD image; the Ceph CSI driver serves it now.',
      object(
        {
          monitors: pb(1, describe(atomicArray(string()), 'Addresses of the Ceph monitors. Required.')),
          image: pb(2, neverOmitted(string('Name of the RADOS image. Required.'))),
          fsType: fsType(3),
          pool: pb(4, defaulted(string('RADOS pool of the image.'), 'rbd')),
          user: pb(5, defaulted(string('RADOS user to authenticate as.'), 'admin')),
          keyring: pb(6, defaulted(string('Path of the keyring file of the user on the node.'), '/etc/ceph/keyring')),
          secretRef: secretReference(7, 'Secret holding the user\'s key; overrides keyring.'),
          readOnly: readOnly(8),
        },
        ['monitors', 'image'],
      ),
    ),
    iscsi: source(
      7,
      'ISCSIPersistentVolumeSource',
      'An iSCSI disk.',
      'An iSCSI target\'s disk.',
      object(
        {
          targetPortal: pb(1, neverOmitted(string('Target portal as IP or host, with the port when not 3260. Required.'))),
          iqn: pb(2, neverOmitted(string('iSCSI qualified name of the target. Required.'))),
          lun: pb(3, neverOmitted(int32('Logical unit number of the disk on the target. Required.'))),
          iscsiInterface: pb(4, defaulted(string('iSCSI interface to use for the connection.'), 'default')),
          fsType: fsType(5),
          readOnly: readOnly(6),
          portals: pb(7, describe(atomicArray(string()), 'More target portals to reach the target through (multipath).')),
          chapAuthDiscovery: pb(8, boolean('Whether iSCSI discovery uses CHAP authentication.')),
          chapAuthSession: pb(11, boolean('Whether the iSCSI session uses CHAP authentication.')),
          secretRef: secretReference(10, 'Secret holding the CHAP credentials.'),
          initiatorName: pb(12, string('Custom initiator name; a new interface <portal>:<name> is created for the connection.'), 'optional'),
        },
        ['targetPortal', 'iqn', 'lun'],
      ),
    ),
    cinder: source(
      8,
      'CinderPersistentVolumeSource',
      'An OpenStack Cinder volume.',
      'Deprecated: an OpenStack Cinder volume; the cinder.csi.openstack.org CSI driver serves it now.',
      object(
        {
          volumeID: pb(1, neverOmitted(string('ID of the Cinder volume. Required.'))),
          fsType: fsType(2),
          readOnly: readOnly(3),
          secretRef: secretReference(4, 'Secret holding the parameters to connect to OpenStack.'),
        },
        ['volumeID'],
      ),
    ),
    cephfs: source(
      9,
      'CephFSPersistentVolumeSource',
      'A CephFS file system.',
      'Deprecated: a CephFS mount; the Ceph CSI driver serves it now.',
      object(
        {
          monitors: pb(1, describe(atomicArray(string()), 'Addresses of the Ceph monitors. Required.')),
          path: pb(2, string('Path within the file system to mount; defaults to /.')),
          user: pb(3, string('RADOS user to authenticate as; defaults to admin.')),
          secretFile: pb(4, string('Path of the user\'s keyring on the node; defaults to /etc/ceph/user.secret.')),
          secretRef: secretReference(5, 'Secret holding the user\'s key; overrides secretFile.'),
          readOnly: readOnly(6),
        },
        ['monitors'],
      ),
    ),
    fc: source(
      10,
      'FCVolumeSource',
      'A Fibre Channel disk.',
      'A Fibre Channel disk.',
      object({
        targetWWNs: pb(1, describe(atomicArray(string()), 'World wide names of the targets; give either these with lun, or wwids.')),
        lun: pb(2, int32('Logical unit number of the disk on the targets.'), 'optional'),
        fsType: fsType(3),
        readOnly: readOnly(4),
        wwids: pb(5, describe(atomicArray(string()), 'World wide identifiers of the volume; give either these, or targetWWNs with lun.')),
      }),
    ),
    flocker: source(
      11,
      'FlockerVolumeSource',
      'A dataset of the Flocker control service.',
      'Deprecated: a Flocker dataset, no longer supported.',
      object({
        datasetName: pb(1, string('Name of the dataset, kept as its metadata; give this or datasetUUID.')),
        datasetUUID: pb(2, string('UUID of the dataset; give this or datasetName.')),
      }),
    ),
    flexVolume: source(
      12,
      'FlexPersistentVolumeSource',
      'A volume served by a FlexVolume driver installed on the nodes.',
      'Deprecated: a volume of a FlexVolume driver; CSI drivers replace them.',
      object(
        {
          driver: pb(1, neverOmitted(string('Name of the FlexVolume driver. Required.'))),
          fsType: fsType(2),
          secretRef: secretReference(3, 'Secret passed to the driver\'s scripts, if any.'),
          readOnly: readOnly(4),
          options: pb(5, map(string(), 'Extra options passed to the driver.')),
        },
        ['driver'],
      ),
    ),
    azureFile: source(
      13,
      'AzureFilePersistentVolumeSource',
      'An Azure File share.',
      'Deprecated: an Azure File share; the file.csi.azure.com CSI driver serves it now.',
      object(
        {
          secretName: pb(1, neverOmitted(string('Secret holding the storage account name and key. Required.'))),
          shareName: pb(2, neverOmitted(string('Name of the share. Required.'))),
          readOnly: readOnly(3),
          secretNamespace: pb(4, string('Namespace of the secret; defaults to the pod\'s.'), 'optional'),
        },
        ['secretName', 'shareName'],
      ),
    ),
    vsphereVolume: source(
      14,
      'VsphereVirtualDiskVolumeSource',
      'A vSphere virtual disk.',
      'Deprecated: a vSphere VMDK; the csi.vsphere.vmware.com CSI driver serves it now.',
      object(
        {
          volumePath: pb(1, neverOmitted(string('Path of the VMDK identifying the disk. Required.'))),
          fsType: fsType(2),
          storagePolicyName: pb(3, string('Name of the storage policy (SPBM profile) of the disk.')),
          storagePolicyID: pb(4, string('ID of the storage policy of the disk.')),
        },
        ['volumePath'],
      ),
    ),
    quobyte: source(
      15,
      'QuobyteVolumeSource',
      'A Quobyte volume.',
      'Deprecated: a Quobyte volume, no longer supported.',
      object(
        {
          registry: pb(1, neverOmitted(string('Quobyte registries as host:port pairs, comma separated. Required.'))),
          volume: pb(2, neverOmitted(string('Name of the Quobyte volume. Required.'))),
          readOnly: readOnly(3),
          user: pb(4, string('User to map volume access to; defaults to the service account user.')),
          group: pb(5, string('Group to map volume access to; defaults to none.')),
          tenant: pb(6, string('Tenant owning the volume in the backend.')),
        },
        ['registry', 'volume'],
      ),
    ),
    azureDisk: source(
      16,
      'AzureDiskVolumeSource',
      'An Azure data disk.',
      'Deprecated: an Azure data disk; the disk.csi.azure.com CSI driver serves it now.',
      object(
        {
          diskName: pb(1, neverOmitted(string('Name of the disk in blob storage. Required.'))),
          diskURI: pb(2, neverOmitted(string('URI of the disk in blob storage. Required.'))),
          cachingMode: pb(3, defaulted(string('Host caching mode: None, ReadOnly or ReadWrite.'), 'ReadWrite'), 'optional'),
          fsType: fsType(4, { default: 'ext4', optional: true }),
          readOnly: pb(5, defaulted(boolean('Whether the volume is mounted read-only.'), false), 'optional'),
          kind: pb(6, defaulted(string('Shared (several disks per storage account), Dedicated (one per account) or Managed (an Azure managed disk).'), 'Shared'), 'optional'),
        },
        ['diskName', 'diskURI'],
      ),
    ),
    photonPersistentDisk: source(
      17,
      'PhotonPersistentDiskVolumeSource',
      'A Photon Controller persistent disk.',
      'Deprecated: a Photon Controller disk, no longer supported.',
      object({ pdID: pb(1, neverOmitted(string('ID of the persistent disk. Required.'))), fsType: fsType(2) }, ['pdID']),
    ),
    portworxVolume: source(
      18,
      'PortworxVolumeSource',
      'A Portworx volume.',
      'Deprecated: a Portworx volume; the pxd.portworx.com CSI driver serves it now.',
      object({ volumeID: pb(1, neverOmitted(string('ID of the Portworx volume. Required.'))), fsType: fsType(2), readOnly: readOnly(3) }, ['volumeID']),
    ),
    scaleIO: source(
      19,
      'ScaleIOPersistentVolumeSource',
      'A ScaleIO volume.',
      'Deprecated: a ScaleIO volume, no longer supported.',
      object(
        {
          gateway: pb(1, neverOmitted(string('Address of the ScaleIO API gateway. Required.'))),
          system: pb(2, neverOmitted(string('Name of the ScaleIO storage system. Required.'))),
          secretRef: secretReference(3, 'Secret holding the ScaleIO user\'s credentials. Required.'),
          sslEnabled: pb(4, boolean('Whether the gateway is reached over SSL. Defaults to false.')),
          protectionDomain: pb(5, string('ScaleIO protection domain of the storage.')),
          storagePool: pb(6, string('ScaleIO storage pool of the protection domain.')),
          storageMode: pb(7, defaulted(string('ThickProvisioned or ThinProvisioned.'), 'ThinProvisioned')),
          volumeName: pb(8, string('Name of a volume already created in the ScaleIO system.')),
          fsType: fsType(9, { default: 'xfs' }),
          readOnly: readOnly(10),
        },
        ['gateway', 'system', 'secretRef'],
      ),
    ),
    local: source(
      20,
      'LocalVolumeSource',
      'A disk, partition or directory local to one node.',
      'Storage attached to one node; the volume needs nodeAffinity to that node.',
      object(
        {
          path: pb(1, neverOmitted(string('Full path of the disk, partition or directory on the node. Required.'))),
          fsType: pb(2, string('Filesystem of a block device path, such as ext4; detected automatically when absent. Ignored for directories.'), 'optional'),
        },
        ['path'],
      ),
    ),
    storageos: source(
      21,
      'StorageOSPersistentVolumeSource',
      'A StorageOS volume.',
      'Deprecated: a StorageOS volume, no longer supported.',
      object({
        volumeName: pb(1, string('Name of the volume in its StorageOS namespace.')),
        volumeNamespace: pb(2, string('StorageOS namespace of the volume; defaults to the pod\'s namespace, default when that is not set.')),
        fsType: fsType(3),
        readOnly: readOnly(4),
        secretRef: pb(5, describe(objectReference(), 'Secret holding the StorageOS API credentials.'), 'optional'),
      }),
    ),
    csi: source(
      22,
      'CSIPersistentVolumeSource',
      'A volume of a Container Storage Interface driver.',
      'A volume served by a CSI driver.',
      object(
        {
          driver: pb(1, neverOmitted(string('Name of the CSI driver, as in its CSIDriver object. Required.'))),
          volumeHandle: pb(2, neverOmitted(string('Identifier the driver gave the volume, sent back in every call about it. Required.'))),
          readOnly: pb(3, boolean('Whether the volume is published read-only (ControllerPublishVolume). Defaults to false.')),
          fsType: fsType(4),
          volumeAttributes: pb(5, map(string(), 'Driver-specific attributes of the volume, passed to the driver.')),
          controllerPublishSecretRef: secretReference(6, 'Secret passed to the driver\'s ControllerPublishVolume and ControllerUnpublishVolume calls.'),
          nodeStageSecretRef: secretReference(7, 'Secret passed to the driver\'s NodeStageVolume and NodeUnstageVolume calls.'),
          nodePublishSecretRef: secretReference(8, 'Secret passed to the driver\'s NodePublishVolume and NodeUnpublishVolume calls.'),
          controllerExpandSecretRef: secretReference(9, 'Secret passed to the driver\'s ControllerExpandVolume call.'),
          nodeExpandSecretRef: secretReference(10, 'Secret passed to the driver\'s NodeExpandVolume call.'),
        },
        ['driver', 'volumeHandle'],
      ),
    ),
  };
};

/** core/v1 PersistentVolumeSpec with every volume source, as the inline volume of an attachment. */
const persistentVolumeSpec = (): Schema =>
  named(
    core('PersistentVolumeSpec'),
    'A persistent volume: its storage (exactly one volume source), capacity, access modes and what happens to it after release.',
    object({
      capacity: pb(1, map(quantity(), 'Size of the volume, as the storage resource.')),
      ...embedded(2, persistentVolumeSourceFields()),
      accessModes: pb(3, describe(atomicArray(string()), 'How the volume can be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.')),
      claimRef: pb(
        4,
        describe({ ...objectReference(), 'x-kubernetes-map-type': 'granular' }, 'The claim the volume is bound to; set by the binder, or in advance to reserve it.'),
        'optional',
      ),
      persistentVolumeReclaimPolicy: pb(5, string('What happens to the volume when its claim is deleted: Retain, Delete or Recycle (deprecated).')),
      storageClassName: pb(6, string('Storage class the volume belongs to; only claims of that class bind it. Empty for no class.')),
      mountOptions: pb(7, describe(atomicArray(string()), 'Mount options applied when the volume is mounted; not validated.')),
      volumeMode: pb(8, string('Filesystem (the default) or Block (a raw block device).'), 'optional'),
      nodeAffinity: pb(
        9,
        describe(
          named(
            core('VolumeNodeAffinity'),
            'The nodes a volume can be used from.',
            object({ required: pb(1, describe(nodeSelector(), 'Nodes the volume is reachable from; pods using it are scheduled there.'), 'optional') }),
          ),
          'The nodes the volume can be used from.',
        ),
        'optional',
      ),
      volumeAttributesClassName: pb(10, string('VolumeAttributesClass the volume belongs to, which sets its mutable attributes. Beta, off by default.'), 'optional'),
    }),
  );

const volumeError = (field: number, description: string): Schema =>
  pb(
    field,
    describe(
      named(
        'io.k8s.api.storage.v1.VolumeError',
        'An error met while attaching or detaching a volume.',
        object({
          time: pb(1, time('When the error occurred.')),
          message: pb(2, string('What went wrong; may be logged and therefore should not hold secrets.')),
        }),
      ),
      description,
    ),
    'optional',
  );

const volumeAttachmentSpec = (): Schema =>
  named(
    'io.k8s.api.storage.v1.VolumeAttachmentSpec',
    'Which volume to attach to which node, and which driver does it.',
    object(
      {
        attacher: pb(1, string('Name of the CSI driver that must attach the volume, as in its CSIDriver object. Required.'), 'keepZero'),
        source: pb(
          2,
          describe(
            named(
              'io.k8s.api.storage.v1.VolumeAttachmentSource',
              'The volume to attach: a persistent volume by name, or a volume given inline. Exactly one is set.',
              object({
                persistentVolumeName: pb(1, string('Name of the persistent volume to attach.'), 'optional'),
                inlineVolumeSpec: pb(
                  2,
                  describe(persistentVolumeSpec(), 'A CSI volume given inline in a pod and migrated to CSI, spelled as a persistent volume spec.'),
                  'optional',
                ),
              }),
            ),
            'The volume to attach. Required.',
          ),
        ),
        nodeName: pb(3, string('Node to attach the volume to. Required.'), 'keepZero'),
      },
      ['attacher', 'source', 'nodeName'],
    ),
  );

const volumeAttachmentStatus = (): Schema =>
  named(
    'io.k8s.api.storage.v1.VolumeAttachmentStatus',
    'How attaching or detaching a volume went, as the attacher reports it.',
    object(
      {
        attached: pb(1, boolean('Whether the volume is attached; set by the attacher only. Required.'), 'keepZero'),
        attachmentMetadata: pb(2, map(string(), 'What the attach step returned, passed on to later calls for the volume; set by the attacher only.')),
        attachError: volumeError(3, 'The last error of attaching; cleared once attaching succeeds.'),
        detachError: volumeError(4, 'The last error of detaching; cleared once detaching succeeds.'),
      },
      ['attached'],
    ),
  );

export const volumeAttachmentDefinition = defineResource<VolumeAttachment>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'VolumeAttachment',
  plural: 'volumeattachments',
  singular: 'volumeattachment',
  namespaced: false,
  verbs: allVerbs,
  deleteReturnsObject: true,
  schema: describe(
    kindSchema(
      {
        spec: pb(2, describe(volumeAttachmentSpec(), 'The volume and node to attach it to; cannot change. Required.')),
        status: pb(3, describe(volumeAttachmentStatus(), 'How the attachment went; written by the attacher through status.')),
      },
      ['spec'],
    ),
    'The intent to attach one volume to one node, which the external attacher of the CSI driver carries out and reports on.',
  ),
  strategy: {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    prepareForCreate(obj) {
      // Upstream resets status to its zero value, whose `attached` is always serialized.
      obj.status = { attached: false };
    },
    validate(obj) {
      return [...validateVolumeAttachment(obj), ...validateVolumeAttachmentV1(obj)];
    },
    prepareForUpdate(obj, old) {
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
    },
    validateUpdate: validateVolumeAttachmentUpdate,
  },
  subresources: {
    status: {
      verbs: ['get', 'update', 'patch'],
      prepareForUpdate(obj, old) {
        if (old.spec === undefined) delete obj.spec;
        else obj.spec = structuredClone(old.spec);
        keepMetadataForStatus(obj.metadata, old.metadata);
      },
      validateUpdate: validateVolumeAttachmentUpdate,
    },
  },
  table: {
    columns: [
      nameColumn,
      {
        name: 'Attacher',
        type: 'string',
        format: 'name',
        description: 'attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().',
      },
      { name: 'PV', type: 'string', description: 'persistentVolumeName represents the name of the persistent volume to attach.' },
      { name: 'Node', type: 'string', description: 'nodeName represents the node that the volume should be attached to.' },
      {
        name: 'Attached',
        type: 'boolean',
        description:
          'attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.',
      },
      ageColumn,
    ],
    cells: (va, now) => [
      va.metadata.name,
      va.spec?.attacher ?? '',
      va.spec?.source?.persistentVolumeName ?? '',
      va.spec?.nodeName ?? '',
      va.status?.attached ?? false,
      age(va, now),
    ],
  },
});
