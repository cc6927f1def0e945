/**
 * Graceful deletion (upstream's rest.BeforeDelete for a kind with a RESTGracefulDeleteStrategy):
 * what a DELETE does to an object of a kind that deletes gracefully (Strategy.checkGracefulDelete).
 *
 * - not yet being deleted: the kind picks the grace period; the object is marked with
 *   deletionTimestamp = now + period and deletionGracePeriodSeconds = period (`graceful`), and is
 *   removed at once when the period is 0 and no finalizer remains;
 * - already being deleted with a pending grace period: a request may only shorten it (the
 *   timestamp moves by the difference); otherwise nothing changes (`pending`);
 * - already being deleted with a grace period of 0 (or none): the generic rules apply (`none`).
 *
 * Negative periods count as 1 second, as upstream. The store applies the decision (store.ts).
 */
import type { KubeObject } from '../../shared/api/types.ts';
import { formatTimeOf } from '../../shared/go/time.ts';

export type GracefulDecision =
  /** The generic deletion rules apply. */
  | { kind: 'none' }
  /** A graceful deletion is under way and this request does not shorten it: nothing changes. */
  | { kind: 'pending' }
  /** Mark (or re-mark) the object with these deletion fields; `period` 0 removes it unless finalizers remain. */
  | { kind: 'graceful'; period: number; deletionTimestamp: string };

export function gracefulDeletion(
  obj: KubeObject,
  requested: number | undefined,
  check: (obj: KubeObject, requested: number | undefined) => number,
  now: Date,
): GracefulDecision {
  const request = requested !== undefined && requested < 0 ? 1 : requested;
  const meta = obj.metadata;
  if (meta.deletionTimestamp) {
    let current = meta.deletionGracePeriodSeconds;
    if (current !== undefined && current < 0) current = 1;
    if (current === undefined || current === 0) return { kind: 'none' };
    if (request === undefined || request >= current) return { kind: 'pending' };
    const start = Date.parse(meta.deletionTimestamp) - current * 1000;
    return { kind: 'graceful', period: request, deletionTimestamp: formatTimeOf(new Date(start + request * 1000)) };
  }
  let period = check(obj, request);
  if (period < 0) period = 1;
  return { kind: 'graceful', period, deletionTimestamp: formatTimeOf(new Date(now.getTime() + period * 1000)) };
}
