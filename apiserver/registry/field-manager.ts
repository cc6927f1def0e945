/**
 * Field ownership (server-side apply). The generic store asks the FieldManager, for every write,
 * to record who set which fields in `metadata.managedFields`, and for every apply to merge the
 * applied configuration into the live object, failing on conflicts with other managers.
 *
 * Contracts:
 * - `update` never fails for ownership reasons: an update takes ownership of every field it
 *   changes (upstream: "updates never conflict"). It resolves to the object to store, with
 *   managedFields maintained; it may not change anything else.
 * - `apply` resolves to the object to store (merged, with managedFields), or rejects with a 409
 *   Conflict StatusError with upstream's message and one FieldManagerConflict cause per field;
 *   with `force` it takes the fields over instead.
 * - Both accept `live === null` for creation.
 * - Both are asynchronous only to let the event loop run: their work is a sequence of passes over
 *   the object (decoding managedFields, comparing, merging, set operations, encoding), and with a
 *   `slice` they pass its boundary between every two, so that an object of 150,000 labels holds
 *   the loop for one pass at a time rather than for all of them. The result does not depend on
 *   whether or where they yield. The caller may not touch the objects it handed over until the
 *   promise settles.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import type { ResourceDefinition } from './definition.ts';
import type { TimeSlice } from '../../shared/apply/time-slice.ts';

export interface FieldManagerRequest {
  definition: ResourceDefinition;
  /** The manager: the fieldManager query parameter, or derived from the User-Agent. */
  manager: string;
  /** '' for the main resource, else `status`, `approval`, `finalize`, ... */
  subresource: string;
  /** The request time, for managedFields[].time. */
  now: Date;
  /** The request's time slice, asked between passes; without one the work runs in one go. */
  slice?: TimeSlice;
}

export interface FieldManager {
  /**
   * Records the ownership effects of a create, update or non-apply patch. Takes `updated` over:
   * its metadata.managedFields are replaced in place and the same object is the result.
   */
  update(live: KubeObject | null, updated: KubeObject, request: FieldManagerRequest): Promise<KubeObject>;
  /**
   * Merges an applied configuration into the live object (null: create by apply). Takes `applied`
   * and `live` over: the result may share values with both, so neither may be used after the call
   * by anyone who changes the result.
   */
  apply(live: KubeObject | null, applied: KubeObject, request: FieldManagerRequest & { force: boolean }): Promise<KubeObject>;
}
