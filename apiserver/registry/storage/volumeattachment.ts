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
  int32,
  kindSchema,
  map,
  nodeSelector,
  object,
  objectReference,
  quantity,
  string,
  time,
  type Schema,
} from '../../../shared/api/schema.ts';
import type { KubeObject, ObjectMeta } from '../../../shared/api/types.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../shared/validation/names.ts';
import { allVerbs, defineResource } from '../definition.ts';
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
const secretReference = (): Schema => atomicStruct(object({ name: string(), namespace: string() }));

/** core/v1 PersistentVolumeSpec with every volume source, as the inline volume of an attachment. */
const persistentVolumeSpec = (): Schema =>
  object({
    accessModes: atomicArray(string()),
    awsElasticBlockStore: object({ volumeID: string(), fsType: string(), partition: int32(), readOnly: boolean() }, ['volumeID']),
    azureDisk: object(
      { diskName: string(), diskURI: string(), cachingMode: string(), fsType: string(), readOnly: boolean(), kind: string() },
      ['diskName', 'diskURI'],
    ),
    azureFile: object({ secretName: string(), shareName: string(), readOnly: boolean(), secretNamespace: string() }, ['secretName', 'shareName']),
    capacity: map(quantity()),
    cephfs: object(
      { monitors: atomicArray(string()), path: string(), user: string(), secretFile: string(), secretRef: secretReference(), readOnly: boolean() },
      ['monitors'],
    ),
    cinder: object({ volumeID: string(), fsType: string(), readOnly: boolean(), secretRef: secretReference() }, ['volumeID']),
    claimRef: { ...objectReference(), 'x-kubernetes-map-type': 'granular' },
    csi: object(
      {
        driver: string(),
        volumeHandle: string(),
        readOnly: boolean(),
        fsType: string(),
        volumeAttributes: map(string()),
        controllerPublishSecretRef: secretReference(),
        nodeStageSecretRef: secretReference(),
        nodePublishSecretRef: secretReference(),
        controllerExpandSecretRef: secretReference(),
        nodeExpandSecretRef: secretReference(),
      },
      ['driver', 'volumeHandle'],
    ),
    fc: object({ targetWWNs: atomicArray(string()), lun: int32(), fsType: string(), readOnly: boolean(), wwids: atomicArray(string()) }),
    flexVolume: object({ driver: string(), fsType: string(), secretRef: secretReference(), readOnly: boolean(), options: map(string()) }, ['driver']),
    flocker: object({ datasetName: string(), datasetUUID: string() }),
    gcePersistentDisk: object({ pdName: string(), fsType: string(), partition: int32(), readOnly: boolean() }, ['pdName']),
    glusterfs: object({ endpoints: string(), path: string(), readOnly: boolean(), endpointsNamespace: string() }, ['endpoints', 'path']),
    hostPath: object({ path: string(), type: string() }, ['path']),
    iscsi: object(
      {
        targetPortal: string(),
        iqn: string(),
        lun: int32(),
        iscsiInterface: string(),
        fsType: string(),
        readOnly: boolean(),
        portals: atomicArray(string()),
        chapAuthDiscovery: boolean(),
        chapAuthSession: boolean(),
        secretRef: secretReference(),
        initiatorName: string(),
      },
      ['targetPortal', 'iqn', 'lun'],
    ),
    local: object({ path: string(), fsType: string() }, ['path']),
    mountOptions: atomicArray(string()),
    nfs: object({ server: string(), path: string(), readOnly: boolean() }, ['server', 'path']),
    nodeAffinity: object({ required: atomicStruct(nodeSelector()) }),
    persistentVolumeReclaimPolicy: string(),
    photonPersistentDisk: object({ pdID: string(), fsType: string() }, ['pdID']),
    portworxVolume: object({ volumeID: string(), fsType: string(), readOnly: boolean() }, ['volumeID']),
    quobyte: object(
      { registry: string(), volume: string(), readOnly: boolean(), user: string(), group: string(), tenant: string() },
      ['registry', 'volume'],
    ),
    rbd: object(
      {
        monitors: atomicArray(string()),
        image: string(),
        fsType: string(),
        pool: string(),
        user: string(),
        keyring: string(),
        secretRef: secretReference(),
        readOnly: boolean(),
      },
      ['monitors', 'image'],
    ),
    scaleIO: object(
      {
        gateway: string(),
        system: string(),
        secretRef: secretReference(),
        sslEnabled: boolean(),
        protectionDomain: string(),
        storagePool: string(),
        storageMode: string(),
        volumeName: string(),
        fsType: string(),
        readOnly: boolean(),
      },
      ['gateway', 'system', 'secretRef'],
    ),
    storageClassName: string(),
    storageos: object({
      volumeName: string(),
      volumeNamespace: string(),
      fsType: string(),
      readOnly: boolean(),
      secretRef: atomicStruct(objectReference()),
    }),
    volumeAttributesClassName: string(),
    volumeMode: string(),
    vsphereVolume: object({ volumePath: string(), fsType: string(), storagePolicyName: string(), storagePolicyID: string() }, ['volumePath']),
  });

const volumeError = (): Schema => object({ time: time(), message: string() });

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
      spec: object(
        {
          attacher: string(),
          source: object({ persistentVolumeName: string(), inlineVolumeSpec: persistentVolumeSpec() }),
          nodeName: string(),
        },
        ['attacher', 'source', 'nodeName'],
      ),
      status: object(
        { attached: boolean(), attachmentMetadata: map(string()), attachError: volumeError(), detachError: volumeError() },
        ['attached'],
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
});
