/**
 * core/v1 Volume: a named volume of a pod and its source (exactly one of the VolumeSource fields),
 * with upstream's protobuf field numbers. Volume embeds VolumeSource: inline in JSON, a message of
 * its own under Volume's field 2 in protobuf. Sources that PersistentVolumeSource shares by name
 * (hostPath, nfs, fc...) reuse its schemas, so that the OpenAPI component of each is built once;
 * only their field numbers differ here.
 *
 * The types describe what defaulting, validation, the Node authorizer's graph and the node agent
 * read; the remaining source structs are reached through the index signature.
 */
import type { LabelSelectorObject } from '../selectors/labels.ts';
import { persistentVolumeSourceFields } from './persistent-volume-source.ts';
import {
  atomicArray,
  boolean,
  defaulted,
  describe,
  embedded,
  int32,
  int64,
  labelSelector,
  map,
  named,
  neverOmitted,
  object,
  objectMeta,
  pb,
  quantity,
  string,
  type Schema,
} from './schema.ts';

export interface LocalObjectReference {
  name?: string;
}

export interface KeyToPath {
  key?: string;
  path?: string;
  mode?: number;
}

export interface ObjectFieldSelector {
  apiVersion?: string;
  fieldPath?: string;
}

export interface ResourceFieldSelector {
  containerName?: string;
  resource?: string;
  divisor?: string | number;
}

export interface DownwardAPIVolumeFile {
  path?: string;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  mode?: number;
}

export interface SecretVolumeSource {
  secretName?: string;
  items?: KeyToPath[];
  defaultMode?: number;
  optional?: boolean;
}

export interface ConfigMapVolumeSource extends LocalObjectReference {
  items?: KeyToPath[];
  defaultMode?: number;
  optional?: boolean;
}

export interface DownwardAPIVolumeSource {
  items?: DownwardAPIVolumeFile[];
  defaultMode?: number;
}

export interface ServiceAccountTokenProjection {
  audience?: string;
  expirationSeconds?: number;
  path?: string;
}

export interface ClusterTrustBundleProjection {
  name?: string;
  signerName?: string;
  labelSelector?: LabelSelectorObject;
  optional?: boolean;
  path?: string;
}

export interface VolumeProjection {
  secret?: LocalObjectReference & { items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  configMap?: LocalObjectReference & { items?: KeyToPath[]; optional?: boolean };
  serviceAccountToken?: ServiceAccountTokenProjection;
  clusterTrustBundle?: ClusterTrustBundleProjection;
}

export interface ProjectedVolumeSource {
  sources?: VolumeProjection[];
  defaultMode?: number;
}

export interface CSIVolumeSource {
  driver?: string;
  readOnly?: boolean;
  fsType?: string;
  volumeAttributes?: Record<string, string>;
  nodePublishSecretRef?: LocalObjectReference;
}

export interface PersistentVolumeClaimSpec {
  accessModes?: string[];
  selector?: LabelSelectorObject;
  resources?: { limits?: Record<string, string | number>; requests?: Record<string, string | number> };
  volumeName?: string;
  storageClassName?: string;
  volumeMode?: string;
  dataSource?: { apiGroup?: string; kind?: string; name?: string };
  dataSourceRef?: { apiGroup?: string; kind?: string; name?: string; namespace?: string };
  volumeAttributesClassName?: string;
}

export interface PersistentVolumeClaimTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; [field: string]: unknown };
  spec?: PersistentVolumeClaimSpec;
}

export interface ISCSIVolumeSource {
  targetPortal?: string;
  iqn?: string;
  lun?: number;
  iscsiInterface?: string;
  fsType?: string;
  readOnly?: boolean;
  portals?: string[];
  chapAuthDiscovery?: boolean;
  chapAuthSession?: boolean;
  secretRef?: LocalObjectReference;
  initiatorName?: string;
}

export interface FCVolumeSource {
  targetWWNs?: string[];
  lun?: number;
  fsType?: string;
  readOnly?: boolean;
  wwids?: string[];
}

export interface FlexVolumeSource {
  driver?: string;
  fsType?: string;
  secretRef?: LocalObjectReference;
  readOnly?: boolean;
  options?: Record<string, string>;
}

/** The volume sources, keyed by their JSON names; exactly one is set. */
export interface VolumeSource {
  hostPath?: { path?: string; type?: string };
  emptyDir?: { medium?: string; sizeLimit?: string | number };
  secret?: SecretVolumeSource;
  configMap?: ConfigMapVolumeSource;
  downwardAPI?: DownwardAPIVolumeSource;
  projected?: ProjectedVolumeSource;
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean };
  csi?: CSIVolumeSource;
  ephemeral?: { volumeClaimTemplate?: PersistentVolumeClaimTemplate };
  fc?: FCVolumeSource;
  flexVolume?: FlexVolumeSource;
  flocker?: { datasetName?: string; datasetUUID?: string };
  iscsi?: ISCSIVolumeSource;
  image?: { reference?: string; pullPolicy?: string };
  [source: string]: unknown;
}

export interface Volume extends VolumeSource {
  name?: string;
}

const coreV1 = (type: string): string => `io.k8s.api.core.v1.${type}`;

/** A volume source field: `*XVolumeSource` in Go, upstream's named struct. */
const source = (field: number, type: string, typeDescription: string, fieldDescription: string, schema: Schema): Schema =>
  pb(field, describe(named(coreV1(type), typeDescription, schema), fieldDescription), 'optional');

/** A PersistentVolumeSource struct VolumeSource shares, renumbered for VolumeSource. */
function shared(key: string, field: number): Schema {
  const schema = persistentVolumeSourceFields()[key];
  if (!schema) throw new Error(`no persistent volume source ${key}`);
  return pb(field, schema, 'optional');
}

export const localObjectReference = (): Schema =>
  named(coreV1('LocalObjectReference'), 'Names an object in the same namespace.', {
    ...object({ name: pb(1, defaulted(string('Name of the referent; empty is allowed but rarely meant.'), '')) }),
    'x-kubernetes-map-type': 'atomic',
  });

/** The `name` of a struct that embeds LocalObjectReference (inline in JSON, field 1 in protobuf). */
const embeddedName = (): Record<string, Schema> =>
  embedded(1, { name: pb(1, defaulted(string('Name of the referent in the same namespace; empty is allowed but rarely meant.'), '')) });

/** A `*LocalObjectReference` field. */
export const localReference = (field: number, description: string): Schema => pb(field, describe(localObjectReference(), description), 'optional');

const keyToPath = (): Schema =>
  named(
    coreV1('KeyToPath'),
    'Projects one key of a ConfigMap or Secret to a file.',
    object(
      {
        key: pb(1, neverOmitted(string('The key to project.'))),
        path: pb(2, neverOmitted(string('Relative path of the file to write the value to; may not contain .. nor start with it.'))),
        mode: pb(3, int32('Permission bits of the file, 0000 to 0777 (0 to 511 in JSON); defaultMode of the volume when absent.'), 'optional'),
      },
      ['key', 'path'],
    ),
  );

export const objectFieldSelector = (): Schema =>
  named(coreV1('ObjectFieldSelector'), 'Selects a field of the pod.', {
    ...object(
      {
        apiVersion: pb(1, string('Version of the schema the field path is written in; defaults to v1.')),
        fieldPath: pb(2, neverOmitted(string('Path of the field to select, such as metadata.name or status.podIP.'))),
      },
      ['fieldPath'],
    ),
    'x-kubernetes-map-type': 'atomic',
  });

export const resourceFieldSelector = (): Schema =>
  named(coreV1('ResourceFieldSelector'), 'Selects a resource limit or request of a container.', {
    ...object(
      {
        containerName: pb(1, string('Container whose resources are read; required in volumes, optional in env.')),
        resource: pb(2, neverOmitted(string('Resource to select, such as limits.cpu or requests.memory.'))),
        divisor: pb(3, quantity('Unit the value is expressed in; defaults to 1.')),
      },
      ['resource'],
    ),
    'x-kubernetes-map-type': 'atomic',
  });

const downwardAPIVolumeFile = (): Schema =>
  named(
    coreV1('DownwardAPIVolumeFile'),
    'One file of a downward API volume: a field of the pod or a resource of a container.',
    object(
      {
        path: pb(1, neverOmitted(string('Relative path of the file to create; may not contain .. nor start with it.'))),
        fieldRef: pb(2, describe(objectFieldSelector(), 'The pod field to write: metadata annotations, labels, name, namespace or uid.'), 'optional'),
        resourceFieldRef: pb(3, describe(resourceFieldSelector(), 'The container resource to write: limits and requests of cpu and memory.'), 'optional'),
        mode: pb(4, int32('Permission bits of the file, 0000 to 0777 (0 to 511 in JSON); defaultMode of the volume when absent.'), 'optional'),
      },
      ['path'],
    ),
  );

const items = (field: number, what: string): Schema =>
  pb(field, describe(atomicArray(keyToPath()), `Keys of the ${what} to project, each to its own path; all keys when absent.`));

const defaultMode = (field: number): Schema =>
  pb(field, int32('Permission bits of the created files, 0000 to 0777 (0 to 511 in JSON); defaults to 0644.'), 'optional');

const optionalFlag = (field: number, what: string): Schema => pb(field, boolean(`Whether the ${what} or its keys may be missing.`), 'optional');

const labelSelectorField = (field: number, description: string): Schema => pb(field, describe(labelSelector(), description), 'optional');

const typedLocalObjectReference = (): Schema =>
  named(coreV1('TypedLocalObjectReference'), 'Names an object of any kind in the same namespace.', {
    ...object(
      {
        apiGroup: pb(1, string('API group of the referent; empty for the core group.'), 'optional'),
        kind: pb(2, neverOmitted(string('Kind of the referent.'))),
        name: pb(3, neverOmitted(string('Name of the referent.'))),
      },
      ['kind', 'name'],
    ),
    'x-kubernetes-map-type': 'atomic',
  });

const typedObjectReference = (): Schema =>
  named(
    coreV1('TypedObjectReference'),
    'Names an object of any kind, possibly in another namespace.',
    object(
      {
        apiGroup: pb(1, string('API group of the referent; empty for the core group.'), 'optional'),
        kind: pb(2, neverOmitted(string('Kind of the referent.'))),
        name: pb(3, neverOmitted(string('Name of the referent.'))),
        namespace: pb(4, string('Namespace of the referent, when not the claim’s own (needs CrossNamespaceVolumeDataSource).'), 'optional'),
      },
      ['kind', 'name'],
    ),
  );

const volumeResourceRequirements = (): Schema =>
  named(
    coreV1('VolumeResourceRequirements'),
    'Storage a claim asks for and may at most use.',
    object({
      limits: pb(1, map(quantity(), 'Most storage the volume may use.')),
      requests: pb(2, map(quantity(), 'Least storage the volume must offer.')),
    }),
  );

/** core/v1 PersistentVolumeClaimSpec, as an ephemeral volume's claim template carries it. */
export const persistentVolumeClaimSpec = (): Schema =>
  named(
    coreV1('PersistentVolumeClaimSpec'),
    'What a claim asks of a persistent volume: access modes, size, class and data source.',
    object({
      accessModes: pb(1, describe(atomicArray(string()), 'How the volume must be mountable: ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod.')),
      selector: labelSelectorField(4, 'Labels a pre-provisioned volume must carry to bind.'),
      resources: pb(2, describe(volumeResourceRequirements(), 'Storage the claim asks for.')),
      volumeName: pb(3, string('Name of the persistent volume to bind to.')),
      storageClassName: pb(5, string('Storage class the volume must belong to.'), 'optional'),
      volumeMode: pb(6, string('Filesystem (the default) or Block.'), 'optional'),
      dataSource: pb(7, describe(typedLocalObjectReference(), 'An existing snapshot or claim to fill the new volume from.'), 'optional'),
      dataSourceRef: pb(8, describe(typedObjectReference(), 'An object to fill the new volume from; supersedes dataSource.'), 'optional'),
      volumeAttributesClassName: pb(9, string('VolumeAttributesClass of the claim (beta, off by default).'), 'optional'),
    }),
  );

const persistentVolumeClaimTemplate = (): Schema =>
  named(
    coreV1('PersistentVolumeClaimTemplate'),
    'The claim an ephemeral volume creates: its labels and annotations, and its spec.',
    object(
      {
        metadata: pb(1, describe(objectMeta(), 'Labels and annotations copied to the claim; other fields are rejected.')),
        spec: pb(2, describe(persistentVolumeClaimSpec(), 'Spec copied unchanged into the claim.')),
      },
      ['spec'],
    ),
  );

const projection = (field: number, type: string, typeDescription: string, fieldDescription: string, schema: Schema): Schema =>
  pb(field, describe(named(coreV1(type), typeDescription, schema), fieldDescription), 'optional');

const volumeProjection = (): Schema =>
  named(
    coreV1('VolumeProjection'),
    'One source of a projected volume; exactly one field is set.',
    object({
      secret: projection(
        1,
        'SecretProjection',
        'Keys of a Secret projected into a projected volume.',
        'A Secret to project.',
        object({ ...embeddedName(), items: items(2, 'Secret'), optional: optionalFlag(4, 'Secret') }),
      ),
      downwardAPI: projection(
        2,
        'DownwardAPIProjection',
        'Pod fields and container resources projected into a projected volume.',
        'Downward API files to project.',
        object({ items: pb(1, describe(atomicArray(downwardAPIVolumeFile()), 'The files to write.')) }),
      ),
      configMap: projection(
        3,
        'ConfigMapProjection',
        'Keys of a ConfigMap projected into a projected volume.',
        'A ConfigMap to project.',
        object({ ...embeddedName(), items: items(2, 'ConfigMap'), optional: optionalFlag(4, 'ConfigMap') }),
      ),
      serviceAccountToken: projection(
        4,
        'ServiceAccountTokenProjection',
        "A token of the pod's service account, refreshed by the kubelet.",
        'A service account token to project.',
        object(
          {
            audience: pb(1, string('Audience the token is for; the API server’s identifier when empty.')),
            expirationSeconds: pb(2, int64('Requested lifetime in seconds, at least 600; defaults to one hour.'), 'optional'),
            path: pb(3, neverOmitted(string('Path of the token file, relative to the mount point.'))),
          },
          ['path'],
        ),
      ),
      clusterTrustBundle: projection(
        5,
        'ClusterTrustBundleProjection',
        'Trust anchors of ClusterTrustBundles written to a file.',
        'Trust anchors to project (alpha).',
        object(
          {
            name: pb(1, string('Name of one ClusterTrustBundle; excludes signerName and labelSelector.'), 'optional'),
            signerName: pb(2, string('Signer whose ClusterTrustBundles are selected.'), 'optional'),
            labelSelector: labelSelectorField(3, 'Labels the selected bundles of the signer must carry.'),
            optional: pb(5, boolean('Whether the pod starts when no bundle is found.'), 'optional'),
            path: pb(4, neverOmitted(string('Path of the file, relative to the mount point.'))),
          },
          ['path'],
        ),
      ),
    }),
  );

/** The fields of core/v1 VolumeSource, each a source; Volume embeds them under its field 2. */
export const volumeSourceFields = (): Record<string, Schema> => ({
  hostPath: shared('hostPath', 1),
  emptyDir: source(
    2,
    'EmptyDirVolumeSource',
    'A directory that lives as long as the pod.',
    'An empty directory shared by the containers of the pod, removed with it.',
    object({
      medium: pb(1, string('Storage medium: empty for the node default, Memory for tmpfs.')),
      sizeLimit: pb(2, quantity('Most storage the directory may use.'), 'optional'),
    }),
  ),
  gcePersistentDisk: shared('gcePersistentDisk', 3),
  awsElasticBlockStore: shared('awsElasticBlockStore', 4),
  gitRepo: source(
    5,
    'GitRepoVolumeSource',
    'A directory filled with a clone of a git repository.',
    'Deprecated: a git repository cloned into an empty directory.',
    object(
      {
        repository: pb(1, neverOmitted(string('URL of the repository.'))),
        revision: pb(2, string('Commit hash to check out.')),
        directory: pb(3, string('Directory to clone into; . clones into the volume itself.')),
      },
      ['repository'],
    ),
  ),
  secret: source(
    6,
    'SecretVolumeSource',
    "A Secret's keys as files.",
    'A Secret of the pod’s namespace, one file per key.',
    object({
      secretName: pb(1, string('Name of the Secret in the pod’s namespace.')),
      items: items(2, 'Secret'),
      defaultMode: defaultMode(3),
      optional: optionalFlag(4, 'Secret'),
    }),
  ),
  nfs: shared('nfs', 7),
  iscsi: source(
    8,
    'ISCSIVolumeSource',
    'An iSCSI disk.',
    "An iSCSI target's disk.",
    object(
      {
        targetPortal: pb(1, neverOmitted(string('Target portal as IP or host, with the port when not 3260.'))),
        iqn: pb(2, neverOmitted(string('iSCSI qualified name of the target.'))),
        lun: pb(3, neverOmitted(int32('Logical unit number of the disk on the target.'))),
        iscsiInterface: pb(4, defaulted(string('iSCSI interface to use for the connection.'), 'default')),
        fsType: pb(5, string('Filesystem to mount the volume as, such as ext4.')),
        readOnly: pb(6, boolean('Whether the volume is mounted read-only.')),
        portals: pb(7, describe(atomicArray(string()), 'More target portals (multipath).')),
        chapAuthDiscovery: pb(8, boolean('Whether discovery uses CHAP authentication.')),
        chapAuthSession: pb(11, boolean('Whether the session uses CHAP authentication.')),
        secretRef: localReference(10, 'Secret holding the CHAP credentials.'),
        initiatorName: pb(12, string('Custom initiator name; a new interface <portal>:<name> is created.'), 'optional'),
      },
      ['targetPortal', 'iqn', 'lun'],
    ),
  ),
  glusterfs: source(
    9,
    'GlusterfsVolumeSource',
    'A GlusterFS volume.',
    'Deprecated: a GlusterFS volume, no longer supported.',
    object(
      {
        endpoints: pb(1, neverOmitted(string('Name of the Endpoints object listing the Gluster servers.'))),
        path: pb(2, neverOmitted(string('Name of the Gluster volume.'))),
        readOnly: pb(3, boolean('Whether the volume is mounted read-only.')),
      },
      ['endpoints', 'path'],
    ),
  ),
  persistentVolumeClaim: source(
    10,
    'PersistentVolumeClaimVolumeSource',
    'A reference to a claim in the pod’s namespace.',
    'The volume bound to a PersistentVolumeClaim.',
    object(
      {
        claimName: pb(1, neverOmitted(string('Name of the claim in the pod’s namespace.'))),
        readOnly: pb(2, boolean('Whether the volume is mounted read-only.')),
      },
      ['claimName'],
    ),
  ),
  rbd: source(
    11,
    'RBDVolumeSource',
    'A Ceph RADOS block device.',
    'Deprecated: a Ceph RBD image.',
    object(
      {
        monitors: pb(1, describe(atomicArray(string()), 'Addresses of the Ceph monitors.')),
        image: pb(2, neverOmitted(string('Name of the RADOS image.'))),
        fsType: pb(3, string('Filesystem to mount the volume as, such as ext4.')),
        pool: pb(4, defaulted(string('RADOS pool of the image.'), 'rbd')),
        user: pb(5, defaulted(string('RADOS user to authenticate as.'), 'admin')),
        keyring: pb(6, defaulted(string('Path of the keyring of the user on the node.'), '/etc/ceph/keyring')),
        secretRef: localReference(7, "Secret holding the user's key; overrides keyring."),
        readOnly: pb(8, boolean('Whether the volume is mounted read-only.')),
      },
      ['monitors', 'image'],
    ),
  ),
  flexVolume: source(
    12,
    'FlexVolumeSource',
    'A volume served by a FlexVolume driver installed on the node.',
    'Deprecated: a volume of a FlexVolume driver.',
    object(
      {
        driver: pb(1, neverOmitted(string('Name of the FlexVolume driver.'))),
        fsType: pb(2, string('Filesystem to mount the volume as; the driver picks when empty.')),
        secretRef: localReference(3, "Secret passed to the driver's scripts."),
        readOnly: pb(4, boolean('Whether the volume is mounted read-only.')),
        options: pb(5, map(string(), 'Extra options passed to the driver.')),
      },
      ['driver'],
    ),
  ),
  cinder: source(
    13,
    'CinderVolumeSource',
    'An OpenStack Cinder volume.',
    'Deprecated: an OpenStack Cinder volume.',
    object(
      {
        volumeID: pb(1, neverOmitted(string('ID of the Cinder volume.'))),
        fsType: pb(2, string('Filesystem to mount the volume as, such as ext4.')),
        readOnly: pb(3, boolean('Whether the volume is mounted read-only.')),
        secretRef: localReference(4, 'Secret holding the OpenStack connection parameters.'),
      },
      ['volumeID'],
    ),
  ),
  cephfs: source(
    14,
    'CephFSVolumeSource',
    'A CephFS file system.',
    'Deprecated: a CephFS mount.',
    object(
      {
        monitors: pb(1, describe(atomicArray(string()), 'Addresses of the Ceph monitors.')),
        path: pb(2, string('Path within the file system to mount; defaults to /.')),
        user: pb(3, string('RADOS user to authenticate as; defaults to admin.')),
        secretFile: pb(4, string("Path of the user's keyring on the node.")),
        secretRef: localReference(5, "Secret holding the user's key; overrides secretFile."),
        readOnly: pb(6, boolean('Whether the volume is mounted read-only.')),
      },
      ['monitors'],
    ),
  ),
  flocker: shared('flocker', 15),
  downwardAPI: source(
    16,
    'DownwardAPIVolumeSource',
    'Fields of the pod and resources of its containers as files.',
    'Files holding pod fields and container resources.',
    object({ items: pb(1, describe(atomicArray(downwardAPIVolumeFile()), 'The files to write.')), defaultMode: defaultMode(2) }),
  ),
  fc: shared('fc', 17),
  azureFile: source(
    18,
    'AzureFileVolumeSource',
    'An Azure File share.',
    'Deprecated: an Azure File share.',
    object(
      {
        secretName: pb(1, neverOmitted(string('Secret holding the storage account name and key.'))),
        shareName: pb(2, neverOmitted(string('Name of the share.'))),
        readOnly: pb(3, boolean('Whether the volume is mounted read-only.')),
      },
      ['secretName', 'shareName'],
    ),
  ),
  configMap: source(
    19,
    'ConfigMapVolumeSource',
    "A ConfigMap's keys as files.",
    'A ConfigMap of the pod’s namespace, one file per key.',
    object({ ...embeddedName(), items: items(2, 'ConfigMap'), defaultMode: defaultMode(3), optional: optionalFlag(4, 'ConfigMap') }),
  ),
  vsphereVolume: shared('vsphereVolume', 20),
  quobyte: shared('quobyte', 21),
  azureDisk: shared('azureDisk', 22),
  photonPersistentDisk: shared('photonPersistentDisk', 23),
  projected: source(
    26,
    'ProjectedVolumeSource',
    'Several sources projected into one directory.',
    'Secrets, ConfigMaps, downward API files and service account tokens in one directory.',
    object({ sources: pb(1, describe(atomicArray(volumeProjection()), 'The sources to project.')), defaultMode: defaultMode(2) }),
  ),
  portworxVolume: shared('portworxVolume', 24),
  scaleIO: source(
    25,
    'ScaleIOVolumeSource',
    'A ScaleIO volume.',
    'Deprecated: a ScaleIO volume.',
    object(
      {
        gateway: pb(1, neverOmitted(string('Address of the ScaleIO API gateway.'))),
        system: pb(2, neverOmitted(string('Name of the ScaleIO storage system.'))),
        secretRef: localReference(3, "Secret holding the ScaleIO user's credentials."),
        sslEnabled: pb(4, boolean('Whether the gateway is reached over SSL.')),
        protectionDomain: pb(5, string('ScaleIO protection domain of the storage.')),
        storagePool: pb(6, string('ScaleIO storage pool of the protection domain.')),
        storageMode: pb(7, defaulted(string('ThickProvisioned or ThinProvisioned.'), 'ThinProvisioned')),
        volumeName: pb(8, string('Name of a volume already created in the ScaleIO system.')),
        fsType: pb(9, defaulted(string('Filesystem to mount the volume as.'), 'xfs')),
        readOnly: pb(10, boolean('Whether the volume is mounted read-only.')),
      },
      ['gateway', 'system', 'secretRef'],
    ),
  ),
  storageos: source(
    27,
    'StorageOSVolumeSource',
    'A StorageOS volume.',
    'Deprecated: a StorageOS volume.',
    object({
      volumeName: pb(1, string('Name of the volume in its StorageOS namespace.')),
      volumeNamespace: pb(2, string("StorageOS namespace of the volume; the pod's namespace when empty.")),
      fsType: pb(3, string('Filesystem to mount the volume as, such as ext4.')),
      readOnly: pb(4, boolean('Whether the volume is mounted read-only.')),
      secretRef: localReference(5, 'Secret holding the StorageOS API credentials.'),
    }),
  ),
  csi: source(
    28,
    'CSIVolumeSource',
    'An ephemeral volume of a CSI driver.',
    'An inline volume served by a CSI driver.',
    object(
      {
        driver: pb(1, neverOmitted(string('Name of the CSI driver, as in its CSIDriver object.'))),
        readOnly: pb(2, boolean('Whether the volume is published read-only. Defaults to false.'), 'optional'),
        fsType: pb(3, string('Filesystem to mount the volume as; empty leaves it to the driver.'), 'optional'),
        volumeAttributes: pb(4, map(string(), 'Driver-specific attributes of the volume.')),
        nodePublishSecretRef: localReference(5, "Secret passed to the driver's NodePublishVolume and NodeUnpublishVolume calls."),
      },
      ['driver'],
    ),
  ),
  ephemeral: source(
    29,
    'EphemeralVolumeSource',
    'A volume of a claim created for the pod and deleted with it.',
    'A per-pod claim created from a template.',
    object({
      volumeClaimTemplate: pb(
        1,
        describe(persistentVolumeClaimTemplate(), 'The claim to create, named <pod>-<volume> and owned by the pod. Required.'),
        'optional',
      ),
    }),
  ),
  image: source(
    30,
    'ImageVolumeSource',
    'The content of an OCI image or artifact, read-only.',
    'An OCI image or artifact mounted read-only (alpha).',
    object({
      reference: pb(1, string('Image or artifact reference, as a container image is named.')),
      pullPolicy: pb(2, string('Always, Never or IfNotPresent; Always for :latest or no tag, else IfNotPresent.')),
    }),
  ),
});

/** core/v1 Volume: a name and one source. */
export const volumeSchema = (): Schema =>
  named(
    coreV1('Volume'),
    'A named volume the containers of a pod may mount.',
    object(
      {
        name: pb(1, string('Name of the volume, a DNS label unique within the pod.'), 'keepZero'),
        ...embedded(2, volumeSourceFields()),
      },
      ['name'],
    ),
  );
