/**
 * Field ownership (server-side apply). The generic store asks the FieldManager, for every write,
 * to record who set which fields in `metadata.managedFields`, and for every apply to merge the
 * applied configuration into the live object, failing on conflicts with other managers.
 *
 * Contracts:
 * - `update` never fails for ownership reasons: an update takes ownership of every field it
 *   changes (upstream: "updates never conflict"). It returns the object to store, with
 *   managedFields maintained; it may not change anything else.
 * - `apply` returns the object to store (merged, with managedFields), or throws a 409 Conflict
 *   StatusError with upstream's message and one FieldManagerConflict cause per field; with
 *   `force` it takes the fields over instead.
 * - Both accept `live === null` for creation.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import type { ResourceDefinition } from './definition.ts';

export interface FieldManagerRequest {
  definition: ResourceDefinition;
  /** The manager: the fieldManager query parameter, or derived from the User-Agent. */
  manager: string;
  /** '' for the main resource, else `status`, `approval`, `finalize`, ... */
  subresource: string;
  /** The request time, for managedFields[].time. */
  now: Date;
}

export interface FieldManager {
  /**
   * Records the ownership effects of a create, update or non-apply patch. Takes `updated` over:
   * its metadata.managedFields are replaced in place and the same object is returned.
   */
  update(live: KubeObject | null, updated: KubeObject, request: FieldManagerRequest): KubeObject;
  /**
   * Merges an applied configuration into the live object (null: create by apply). Takes `applied`
   * and `live` over: the result may share values with both, so neither may be used after the call
   * by anyone who changes the result.
   */
  apply(live: KubeObject | null, applied: KubeObject, request: FieldManagerRequest & { force: boolean }): KubeObject;
}
