/**
 * Which object versions a controller has already acted on. After a write, the informer still holds
 * the version written from until the watch delivers the new one; another reconcile of that key in
 * between (a requeue, a late event) would act again, only to meet a Conflict, and for the signer
 * that means signing twice. A reconcile that finds the version it wrote from skips it: the next
 * version to arrive is new and is reconciled as usual.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import { objectKey } from '../../shared/client/informer.ts';

export class WrittenVersions {
  private readonly versions = new Map<string, string>();

  /** Whether `obj` is a version this controller wrote from; forgets the key once the cache has moved on. */
  handled(obj: KubeObject): boolean {
    const key = objectKey(obj);
    const written = this.versions.get(key);
    if (written === undefined) return false;
    if (written === obj.metadata.resourceVersion) return true;
    this.versions.delete(key);
    return false;
  }

  /** `obj` (as read from the cache) has been acted on. */
  record(obj: KubeObject): void {
    if (obj.metadata.resourceVersion) this.versions.set(objectKey(obj), obj.metadata.resourceVersion);
  }

  forget(key: string): void {
    this.versions.delete(key);
  }
}
