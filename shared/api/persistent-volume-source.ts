/**
 * core/v1 PersistentVolumeSource: the volume types a persistent volume can be, each upstream's named
 * struct with its protobuf field numbers. PersistentVolumeSpec (persistent-volume.ts) embeds them:
 * inline in JSON, but in protobuf a message of its own under the spec's field 2, so the field
 * numbers here count within that message. Types describe only what validation reads.
 */
import { atomicArray, boolean, defaulted, describe, int32, map, named, neverOmitted, object, objectReference, pb, string, type Schema } from './schema.ts';

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

/** The OpenAPI name of a core/v1 type. */
const coreV1 = (type: string): string => `io.k8s.api.core.v1.${type}`;

/** A `*SecretReference` field of a volume source: field number `field` and what the secret is for. */
const secretReference = (field: number, description: string): Schema =>
  pb(
    field,
    describe(
      named(coreV1('SecretReference'), 'Names a secret in any namespace.', {
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
export const persistentVolumeSourceFields = (): Record<string, Schema> => {
  const source = (field: number, type: string, typeDescription: string, fieldDescription: string, schema: Schema): Schema =>
    pb(field, describe(named(coreV1(type), typeDescription, schema), fieldDescription), 'optional');
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
      "A file or directory on the node's own filesystem.",
      'A path on the node, for single-node testing only.',
      object(
        {
          path: pb(1, neverOmitted(string('Path on the node; a symbolic link is followed. Required.'))),
          type: pb(
            2,
            string('What must be at the path: empty (no check), DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice.'),
            'optional',
          ),
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
          endpointsNamespace: pb(4, string("Namespace of the Endpoints object; defaults to the claim's namespace."), 'optional'),
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
          secretRef: secretReference(7, "Secret holding the user's key; overrides keyring."),
          readOnly: readOnly(8),
        },
        ['monitors', 'image'],
      ),
    ),
    iscsi: source(
      7,
      'ISCSIPersistentVolumeSource',
      'An iSCSI disk.',
      "An iSCSI target's disk.",
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
          secretFile: pb(4, string("Path of the user's keyring on the node; defaults to /etc/ceph/user.secret.")),
          secretRef: secretReference(5, "Secret holding the user's key; overrides secretFile."),
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
          secretRef: secretReference(3, "Secret passed to the driver's scripts, if any."),
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
          secretNamespace: pb(4, string("Namespace of the secret; defaults to the pod's."), 'optional'),
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
          kind: pb(
            6,
            defaulted(string('Shared (several disks per storage account), Dedicated (one per account) or Managed (an Azure managed disk).'), 'Shared'),
            'optional',
          ),
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
          secretRef: secretReference(3, "Secret holding the ScaleIO user's credentials. Required."),
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
        volumeNamespace: pb(2, string("StorageOS namespace of the volume; defaults to the pod's namespace, default when that is not set.")),
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
          controllerPublishSecretRef: secretReference(6, "Secret passed to the driver's ControllerPublishVolume and ControllerUnpublishVolume calls."),
          nodeStageSecretRef: secretReference(7, "Secret passed to the driver's NodeStageVolume and NodeUnstageVolume calls."),
          nodePublishSecretRef: secretReference(8, "Secret passed to the driver's NodePublishVolume and NodeUnpublishVolume calls."),
          controllerExpandSecretRef: secretReference(9, "Secret passed to the driver's ControllerExpandVolume call."),
          nodeExpandSecretRef: secretReference(10, "Secret passed to the driver's NodeExpandVolume call."),
        },
        ['driver', 'volumeHandle'],
      ),
    ),
  };
};
