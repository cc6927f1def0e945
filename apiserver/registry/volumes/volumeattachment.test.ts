import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../../../shared/api/field.ts';
import type { RequestContext } from '../definition.ts';
import { persistentVolumeSpec, type PersistentVolumeSpec } from '../../../shared/api/persistent-volume.ts';
import { volumeAttachmentDefinition, type VolumeAttachment } from './volumeattachment.ts';

const ctx: RequestContext = { user: { username: 'system:kube-controller-manager', groups: [] }, now: new Date('2024-05-06T07:08:09Z') };
const strategy = volumeAttachmentDefinition.strategy;
const status = volumeAttachmentDefinition.subresources?.status;
const messages = (errs: ReturnType<typeof strategy.validate>): string[] => errs.map(fieldErrorString);

const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function attachment(spec: VolumeAttachment['spec'], extra: Partial<VolumeAttachment> = {}): VolumeAttachment {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'csi-123' }, spec, ...extra };
}

const spec = { attacher: 'ebs.csi.aws.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'node-1' };
const inlineSpec = (fields: PersistentVolumeSpec): VolumeAttachment['spec'] => ({ ...spec, source: { inlineVolumeSpec: fields } });
const csiVolume = { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' };

describe('VolumeAttachment', () => {
  it('is cluster scoped with a status subresource for get, update and patch', () => {
    assert.equal(volumeAttachmentDefinition.namespaced, false);
    assert.equal(volumeAttachmentDefinition.deleteReturnsObject, true);
    assert.deepEqual(status?.verbs, ['get', 'update', 'patch']);
    assert.deepEqual(volumeAttachmentDefinition.schema.properties?.spec?.required, ['attacher', 'source', 'nodeName']);
    assert.deepEqual(volumeAttachmentDefinition.schema.properties?.status?.required, ['attached']);
  });

  it('resets status on create and accepts a valid attachment', () => {
    const obj = attachment(spec, { status: { attached: true, attachmentMetadata: { a: 'b' } } });
    strategy.prepareForCreate?.(obj, ctx);
    assert.deepEqual(obj.status, { attached: false });
    assert.deepEqual(strategy.validate(obj, ctx), []);
  });

  it('requires an attacher that is a CSI driver name, and a node name', () => {
    assert.deepEqual(messages(strategy.validate(attachment({ source: { persistentVolumeName: 'pv-1' } }), ctx)), [
      'spec.attacher: Required value',
      `spec.nodeName: Invalid value: "": ${subdomainMessage}`,
      'spec.attacher: Required value',
      `spec.attacher: Invalid value: "": ${subdomainMessage}`,
    ]);
    assert.deepEqual(messages(strategy.validate(attachment({ ...spec, attacher: `${'x'.repeat(64)}` }), ctx)), [
      'spec.attacher: Too long: may not be more than 63 bytes',
    ]);
  });

  it('requires exactly one source', () => {
    assert.deepEqual(messages(strategy.validate(attachment({ ...spec, source: {} }), ctx)), [
      'spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    ]);
    const both = attachment({ ...spec, source: { persistentVolumeName: 'pv', inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi: csiVolume } } });
    assert.deepEqual(messages(strategy.validate(both, ctx)), ['spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName']);
    assert.deepEqual(messages(strategy.validate(attachment({ ...spec, source: { persistentVolumeName: '' } }), ctx)), [
      'spec.source.persistentVolumeName: Required value: must specify non empty persistentVolumeName',
      `spec.source.persistentVolumeName: Invalid value: "": ${subdomainMessage}`,
    ]);
  });

  it('validates an inline volume spec as an inline CSI persistent volume, at its path', () => {
    assert.deepEqual(strategy.validate(attachment(inlineSpec({ accessModes: ['ReadWriteOnce'], csi: csiVolume })), ctx), []);
    assert.deepEqual(messages(strategy.validate(attachment(inlineSpec({ accessModes: ['ReadWriteOnce'] })), ctx)), [
      'spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes',
      'spec.source.inlineVolumeSpec: Required value: must specify a volume type',
    ]);
  });

  it('keeps status on a main-resource update and forbids any spec change', () => {
    const old = attachment(spec, { status: { attached: true } });
    const update = attachment({ ...spec, nodeName: 'node-2' }, { status: { attached: false } });
    strategy.prepareForUpdate?.(update, old, ctx);
    assert.deepEqual(update.status, { attached: true });
    assert.deepEqual(messages(strategy.validateUpdate?.(update, old, ctx) ?? []), [
      'spec: Invalid value: {"attacher":"ebs.csi.aws.com","source":{"persistentVolumeName":"pv-1"},"nodeName":"node-2"}: field is immutable',
    ]);
    const same = attachment(structuredClone(spec), { metadata: { name: 'csi-123', labels: { a: 'b' } } });
    strategy.prepareForUpdate?.(same, old, ctx);
    assert.deepEqual(strategy.validateUpdate?.(same, old, ctx), []);
  });

  it('changes only status through the status subresource', () => {
    const old = attachment(spec, { metadata: { name: 'csi-123', labels: { keep: 'me' } }, status: { attached: false } });
    const update = attachment(
      { ...spec, nodeName: 'elsewhere' },
      {
        metadata: { name: 'csi-123', labels: { changed: 'yes' }, annotations: { new: 'x' } },
        status: { attached: true, attachmentMetadata: { dev: '/dev/xvdb' } },
      },
    );
    status?.prepareForUpdate(update, old, ctx);
    assert.deepEqual(update.spec, spec);
    assert.deepEqual(update.metadata, { name: 'csi-123', labels: { keep: 'me' } });
    assert.deepEqual(update.status, { attached: true, attachmentMetadata: { dev: '/dev/xvdb' } });
    assert.deepEqual(status?.validateUpdate(update, old, ctx), []);
  });

  it('limits attachment metadata and error messages, twice over on update as upstream does', () => {
    const old = attachment(spec, { status: { attached: false } });
    const update = attachment(spec, {
      status: { attached: true, attachmentMetadata: { k: 'v'.repeat(256 * 1024) }, attachError: { message: 'm'.repeat(1025) } },
    });
    status?.prepareForUpdate(update, old, ctx);
    const once = [
      'status.attachmentMetadata: Too long: may not be more than 262144 bytes',
      'status.attachError.message: Too long: may not be more than 262144 bytes',
    ];
    assert.deepEqual(messages(status?.validateUpdate(update, old, ctx) ?? []), [...once, ...once]);
  });

  it('carries a core/v1 PersistentVolumeSpec as its inline volume', () => {
    const pv = volumeAttachmentDefinition.schema.properties?.spec?.properties?.source?.properties?.inlineVolumeSpec;
    assert.equal(pv?.['x-corral-struct']?.name, 'io.k8s.api.core.v1.PersistentVolumeSpec');
    assert.deepEqual(pv?.properties, persistentVolumeSpec().properties);
  });
});
