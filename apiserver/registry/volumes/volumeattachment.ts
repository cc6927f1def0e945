/**
 * VolumeAttachment (storage.k8s.io/v1): the intent to attach one volume to one node, and the
 * attacher's report of it in status. The spec never changes after creation; status is written
 * only through the status subresource. An inline volume is a core/v1 PersistentVolumeSpec
 * (shared/api/persistent-volume.ts), validated as upstream validates it in that context.
 */
import { FieldPath, forbidden, invalid, required, tooLong, type FieldError } from '../../../shared/api/field.ts';
import { persistentVolumeSpec, type PersistentVolumeSpec } from '../../../shared/api/persistent-volume.ts';
import { boolean, describe, kindSchema, map, named, object, pb, string, time, type Schema } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { validateCSIDriverName } from '../../../shared/validation/csi-driver-name.ts';
import { semanticEqual, validateImmutableField } from '../../../shared/validation/immutable.ts';
import { isDNS1123Subdomain } from '../../../shared/validation/names.ts';
import { validateInlinePersistentVolumeSpec } from '../../../shared/validation/persistent-volume.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { keepStatus, statusSubresource } from '../status-subresource.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
import { append } from '../../../shared/api/append.ts';

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
    append(errs, validateInlinePersistentVolumeSpec(inlineSpec, sourcePath.child('inlineVolumeSpec')));
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
    prepareForUpdate: keepStatus,
    validateUpdate: validateVolumeAttachmentUpdate,
  },
  subresources: { status: statusSubresource({ resetMetadata: true, validateUpdate: validateVolumeAttachmentUpdate }) },
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
