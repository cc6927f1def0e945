/**
 * The writes the garbage collector makes to objects it keeps (upstream's
 * GenerateDeleteOwnerRefStrategicMergeBytes, unblockOwnerReferencesStrategicMergePatch and the
 * finalizer patch of removeFinalizer). The strategic merge patches carry the object's UID: applied
 * to another object of the same name, they fail instead of changing it.
 */
import type { OwnerReference } from '../../shared/api/types.ts';

/** Removes the references to `ownerUids` from the object `uid` (merge key: uid). */
export function deleteOwnerReferencesPatch(uid: string, ownerUids: readonly string[]): unknown {
  return { metadata: { ownerReferences: ownerUids.map((owner) => ({ $patch: 'delete', uid: owner })), uid } };
}

/** Turns every blocking reference of the object `uid` non-blocking. */
export function unblockOwnerReferencesPatch(uid: string, owners: readonly OwnerReference[]): unknown {
  const blocking = owners.filter((ref) => ref.blockOwnerDeletion === true).map((ref) => ({ ...ref, blockOwnerDeletion: false }));
  return { metadata: { ownerReferences: blocking, uid } };
}

/** A merge patch setting the finalizers, guarded by the resourceVersion they were read at; null removes the list. */
export function finalizersPatch(resourceVersion: string, finalizers: readonly string[]): unknown {
  return { metadata: { resourceVersion, finalizers: finalizers.length > 0 ? finalizers : null } };
}
