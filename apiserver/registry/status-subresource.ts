/**
 * The `status` subresource as upstream's status strategies build it, and the carry-overs both
 * sides of the split use. A write through `status` takes status from the client and keeps the spec
 * as stored (upstream's `newObj.Spec = oldObj.Spec`); the main resource does the reverse with
 * keepStatus. A kind adds its own steps after the spec is kept (Node drops a status.config its
 * stored object does not use), and the kinds whose upstream strategy calls
 * ResetObjectMetaForStatus ask for it (VolumeAttachment); the others let status writes change
 * labels and annotations, as upstream's do.
 */
import type { FieldError } from '../../shared/api/field.ts';
import type { KubeObject, ObjectMeta } from '../../shared/api/types.ts';
import type { RequestContext, SubresourceDefinition } from './definition.ts';

/** A top-level part of an object that one side of the split owns. */
type Part = 'spec' | 'status';

/** Replaces obj's `part` by a copy of the stored one; an absent stored part is removed. Never changes old. */
function keepPart(obj: KubeObject, old: KubeObject, part: Part): void {
  const stored = old[part];
  if (stored === undefined || stored === null) delete obj[part];
  else obj[part] = structuredClone(stored);
}

/** The spec as stored: what a status write (and other subresources that write status) may not change. */
export function keepSpec<T extends KubeObject>(obj: T, old: T): void {
  keepPart(obj, old, 'spec');
}

/** The status as stored: what a write of the main resource may not change. */
export function keepStatus<T extends KubeObject>(obj: T, old: T): void {
  keepPart(obj, old, 'status');
}

const statusResetFields = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const satisfies readonly (keyof ObjectMeta)[];

function keepMetadataField<K extends keyof ObjectMeta>(meta: ObjectMeta, old: ObjectMeta, field: K): void {
  const stored = old[field];
  if (stored === undefined) delete meta[field];
  else meta[field] = structuredClone(stored);
}

/** upstream's metav1.ResetObjectMetaForStatus: labels, annotations, finalizers and owner references as stored. */
function resetObjectMetaForStatus(meta: ObjectMeta, old: ObjectMeta): void {
  for (const field of statusResetFields) keepMetadataField(meta, old, field);
}

export interface StatusSubresourceOptions<T extends KubeObject> {
  /** Validation of a status write. Must not mutate. */
  validateUpdate: (obj: T, old: T, ctx: RequestContext) => FieldError[];
  /** Kind-specific steps after the spec (and metadata) are kept. May mutate obj, never old. */
  prepareForUpdate?(obj: T, old: T, ctx: RequestContext): void;
  /** The kind's upstream status strategy calls ResetObjectMetaForStatus. */
  resetMetadata?: boolean;
}

/** `subresources.status` of a kind: get, update and patch of status, the spec kept as stored. */
export function statusSubresource<T extends KubeObject>(options: StatusSubresourceOptions<T>): SubresourceDefinition<T> {
  return {
    verbs: ['get', 'update', 'patch'],
    prepareForUpdate(obj, old, ctx) {
      keepSpec(obj, old);
      if (options.resetMetadata) resetObjectMetaForStatus(obj.metadata, old.metadata);
      options.prepareForUpdate?.(obj, old, ctx);
    },
    validateUpdate: options.validateUpdate,
  };
}
