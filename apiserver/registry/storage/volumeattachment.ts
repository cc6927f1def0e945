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
  embedded,
  int32,
  kindSchema,
  map,
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
    if (ref) errs.push(...validateSecretReference(ref, path.child(key)));
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
    if (key === 'csi' && spec.csi) errs.push(...validateCSISource(spec.csi, path.child('csi')));
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
    errs.push(...validateInlineVolumeSpec(inlineSpec, sourcePath.child('inlineVolumeSpec')));
  }
  const nodeName = spec.nodeName ?? '';
  for (const msg of isDNS1123Subdomain(nodeName)) errs.push(invalid(specPath.child('nodeName'), nodeName, msg));

  const status = obj.status ?? {};
  let metadataSize = 0;
  for (const [k, v] of Object.entries(status.attachmentMetadata ?? {})) metadataSize += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (metadataSize > maxAttachedVolumeMetadataSize) {
    errs.push(tooLong(statusPath.child('attachmentMetadata'), '', maxAttachedVolumeMetadataSize));
  }
  errs.push(...validateVolumeError(status.attachError, statusPath.child('attachError')));
  errs.push(...validateVolumeError(status.detachError, statusPath.child('detachError')));
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
  errs.push(...validateImmutableField(obj.spec ?? {}, old.spec ?? {}, specPath, semanticEqual));
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

const atomicStruct = (schema: Schema): Schema => ({ ...schema, 'x-kubernetes-map-type': 'atomic' });
/** A `*SecretReference` field of a volume source. */
const secretReference = (field: number): Schema =>
  pb(field, atomicStruct(object({ name: pb(1, string()), namespace: pb(2, string()) })), 'optional');

/**
 * The fields of core/v1 PersistentVolumeSource, which PersistentVolumeSpec embeds: inline in JSON,
 * but in protobuf a message of its own under PersistentVolumeSpec's field 2, so the field numbers
 * below count within that message, not within the spec's.
 */
const persistentVolumeSourceFields = (): Record<string, Schema> => ({
  gcePersistentDisk: pb(
    1,
    object({ pdName: pb(1, string()), fsType: pb(2, string()), partition: pb(3, int32()), readOnly: pb(4, boolean()) }, ['pdName']),
    'optional',
  ),
  awsElasticBlockStore: pb(
    2,
    object({ volumeID: pb(1, string()), fsType: pb(2, string()), partition: pb(3, int32()), readOnly: pb(4, boolean()) }, ['volumeID']),
    'optional',
  ),
  hostPath: pb(3, object({ path: pb(1, string()), type: pb(2, string(), 'optional') }, ['path']), 'optional'),
  glusterfs: pb(
    4,
    object(
      { endpoints: pb(1, string()), path: pb(2, string()), readOnly: pb(3, boolean()), endpointsNamespace: pb(4, string(), 'optional') },
      ['endpoints', 'path'],
    ),
    'optional',
  ),
  nfs: pb(5, object({ server: pb(1, string()), path: pb(2, string()), readOnly: pb(3, boolean()) }, ['server', 'path']), 'optional'),
  rbd: pb(
    6,
    object(
      {
        monitors: pb(1, atomicArray(string())),
        image: pb(2, string()),
        fsType: pb(3, string()),
        pool: pb(4, string()),
        user: pb(5, string()),
        keyring: pb(6, string()),
        secretRef: secretReference(7),
        readOnly: pb(8, boolean()),
      },
      ['monitors', 'image'],
    ),
    'optional',
  ),
  iscsi: pb(
    7,
    object(
      {
        targetPortal: pb(1, string()),
        iqn: pb(2, string()),
        lun: pb(3, int32()),
        iscsiInterface: pb(4, string()),
        fsType: pb(5, string()),
        readOnly: pb(6, boolean()),
        portals: pb(7, atomicArray(string())),
        chapAuthDiscovery: pb(8, boolean()),
        chapAuthSession: pb(11, boolean()),
        secretRef: secretReference(10),
        initiatorName: pb(12, string(), 'optional'),
      },
      ['targetPortal', 'iqn', 'lun'],
    ),
    'optional',
  ),
  cinder: pb(
    8,
    object({ volumeID: pb(1, string()), fsType: pb(2, string()), readOnly: pb(3, boolean()), secretRef: secretReference(4) }, ['volumeID']),
    'optional',
  ),
  cephfs: pb(
    9,
    object(
      {
        monitors: pb(1, atomicArray(string())),
        path: pb(2, string()),
        user: pb(3, string()),
        secretFile: pb(4, string()),
        secretRef: secretReference(5),
        readOnly: pb(6, boolean()),
      },
      ['monitors'],
    ),
    'optional',
  ),
  fc: pb(
    10,
    object({
      targetWWNs: pb(1, atomicArray(string())),
      lun: pb(2, int32(), 'optional'),
      fsType: pb(3, string()),
      readOnly: pb(4, boolean()),
      wwids: pb(5, atomicArray(string())),
    }),
    'optional',
  ),
  flocker: pb(11, object({ datasetName: pb(1, string()), datasetUUID: pb(2, string()) }), 'optional'),
  flexVolume: pb(
    12,
    object(
      {
        driver: pb(1, string()),
        fsType: pb(2, string()),
        secretRef: secretReference(3),
        readOnly: pb(4, boolean()),
        options: pb(5, map(string())),
      },
      ['driver'],
    ),
    'optional',
  ),
  azureFile: pb(
    13,
    object(
      { secretName: pb(1, string()), shareName: pb(2, string()), readOnly: pb(3, boolean()), secretNamespace: pb(4, string(), 'optional') },
      ['secretName', 'shareName'],
    ),
    'optional',
  ),
  vsphereVolume: pb(
    14,
    object(
      { volumePath: pb(1, string()), fsType: pb(2, string()), storagePolicyName: pb(3, string()), storagePolicyID: pb(4, string()) },
      ['volumePath'],
    ),
    'optional',
  ),
  quobyte: pb(
    15,
    object(
      {
        registry: pb(1, string()),
        volume: pb(2, string()),
        readOnly: pb(3, boolean()),
        user: pb(4, string()),
        group: pb(5, string()),
        tenant: pb(6, string()),
      },
      ['registry', 'volume'],
    ),
    'optional',
  ),
  azureDisk: pb(
    16,
    object(
      {
        diskName: pb(1, string()),
        diskURI: pb(2, string()),
        cachingMode: pb(3, string(), 'optional'),
        fsType: pb(4, string(), 'optional'),
        readOnly: pb(5, boolean(), 'optional'),
        kind: pb(6, string(), 'optional'),
      },
      ['diskName', 'diskURI'],
    ),
    'optional',
  ),
  photonPersistentDisk: pb(17, object({ pdID: pb(1, string()), fsType: pb(2, string()) }, ['pdID']), 'optional'),
  portworxVolume: pb(
    18,
    object({ volumeID: pb(1, string()), fsType: pb(2, string()), readOnly: pb(3, boolean()) }, ['volumeID']),
    'optional',
  ),
  scaleIO: pb(
    19,
    object(
      {
        gateway: pb(1, string()),
        system: pb(2, string()),
        secretRef: secretReference(3),
        sslEnabled: pb(4, boolean()),
        protectionDomain: pb(5, string()),
        storagePool: pb(6, string()),
        storageMode: pb(7, string()),
        volumeName: pb(8, string()),
        fsType: pb(9, string()),
        readOnly: pb(10, boolean()),
      },
      ['gateway', 'system', 'secretRef'],
    ),
    'optional',
  ),
  local: pb(20, object({ path: pb(1, string()), fsType: pb(2, string(), 'optional') }, ['path']), 'optional'),
  storageos: pb(
    21,
    object({
      volumeName: pb(1, string()),
      volumeNamespace: pb(2, string()),
      fsType: pb(3, string()),
      readOnly: pb(4, boolean()),
      secretRef: pb(5, atomicStruct(objectReference()), 'optional'),
    }),
    'optional',
  ),
  csi: pb(
    22,
    object(
      {
        driver: pb(1, string()),
        volumeHandle: pb(2, string()),
        readOnly: pb(3, boolean()),
        fsType: pb(4, string()),
        volumeAttributes: pb(5, map(string())),
        controllerPublishSecretRef: secretReference(6),
        nodeStageSecretRef: secretReference(7),
        nodePublishSecretRef: secretReference(8),
        controllerExpandSecretRef: secretReference(9),
        nodeExpandSecretRef: secretReference(10),
      },
      ['driver', 'volumeHandle'],
    ),
    'optional',
  ),
});

/** core/v1 PersistentVolumeSpec with every volume source, as the inline volume of an attachment. */
const persistentVolumeSpec = (): Schema =>
  object({
    capacity: pb(1, map(quantity())),
    ...embedded(2, persistentVolumeSourceFields()),
    accessModes: pb(3, atomicArray(string())),
    claimRef: pb(4, { ...objectReference(), 'x-kubernetes-map-type': 'granular' }, 'optional'),
    persistentVolumeReclaimPolicy: pb(5, string()),
    storageClassName: pb(6, string()),
    mountOptions: pb(7, atomicArray(string())),
    volumeMode: pb(8, string(), 'optional'),
    nodeAffinity: pb(9, object({ required: pb(1, atomicStruct(nodeSelector()), 'optional') }), 'optional'),
    volumeAttributesClassName: pb(10, string(), 'optional'),
  });

const volumeError = (field: number): Schema => pb(field, object({ time: pb(1, time()), message: pb(2, string()) }), 'optional');

export const volumeAttachmentDefinition = defineResource<VolumeAttachment>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'VolumeAttachment',
  plural: 'volumeattachments',
  singular: 'volumeattachment',
  namespaced: false,
  verbs: allVerbs,
  deleteReturnsObject: true,
  schema: kindSchema(
    {
      spec: pb(
        2,
        object(
          {
            attacher: pb(1, string()),
            source: pb(
              2,
              object({
                persistentVolumeName: pb(1, string(), 'optional'),
                inlineVolumeSpec: pb(2, persistentVolumeSpec(), 'optional'),
              }),
            ),
            nodeName: pb(3, string()),
          },
          ['attacher', 'source', 'nodeName'],
        ),
      ),
      status: pb(
        3,
        object(
          { attached: pb(1, boolean()), attachmentMetadata: pb(2, map(string())), attachError: volumeError(3), detachError: volumeError(4) },
          ['attached'],
        ),
      ),
    },
    ['spec'],
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
