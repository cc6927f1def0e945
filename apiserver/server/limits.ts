/**
 * Self-defence limits of the request pipeline, as upstream's max-in-flight and timeout filters
 * apply them:
 *
 * - --max-requests-inflight / --max-mutating-requests-inflight bound the requests being served at
 *   once, per kind (get, list and watch are read-only; everything else mutates), when API Priority
 *   and Fairness is off (with it on they only count, and flowcontrol/ divides their sum among
 *   priority levels). Long-running requests (watches) are not counted. Members of system:masters
 *   are never turned away. Beyond a limit the answer is upstream's plain-text 429 with
 *   `Retry-After: 1`. 0 means unlimited.
 * - --request-timeout bounds every request that is not long-running; a `timeout` query parameter
 *   may shorten it. Past it the client gets upstream's 504 Timeout Status while the handler's late
 *   answer is dropped.
 */
import { badRequest, StatusError } from '../../shared/api/errors.ts';
import type { UserInfo } from '../registry/definition.ts';
import { parseGoDuration } from '../../shared/go/duration.ts';
import type { RequestInfo } from './requestinfo.ts';

export type RequestKind = 'readOnly' | 'mutating';

/** Upstream's body of the 429 (written by http.Error, hence text/plain and the trailing newline). */
export const tooManyRequestsBody = 'Too many requests, please try again later.\n';

const readOnlyVerbs = new Set(['get', 'list', 'watch']);
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** Upstream's BasicLongRunningRequestCheck for kube-apiserver: watch and proxy verbs, streaming subresources. */
export function isLongRunning(info: RequestInfo): boolean {
  if (info.verb === 'watch' || info.verb === 'proxy') return true;
  return info.isResourceRequest && longRunningSubresources.has(info.subresource);
}

export function requestKind(info: RequestInfo): RequestKind {
  return readOnlyVerbs.has(info.verb) ? 'readOnly' : 'mutating';
}

/** Counts requests in flight per kind and keeps the maximum seen since it was last read. */
export class InflightLimiter {
  private readonly current = { readOnly: 0, mutating: 0 };
  private readonly peak = { readOnly: 0, mutating: 0 };
  private readonly limits: Readonly<Record<RequestKind, number>>;

  constructor(maxReadOnly: number, maxMutating: number) {
    this.limits = { readOnly: maxReadOnly, mutating: maxMutating };
  }

  /**
   * Takes a seat for a request of `kind`, or returns false when the kind is at its limit. Every
   * admitted request must be released exactly once.
   */
  admit(kind: RequestKind, user: UserInfo): boolean {
    const limit = this.limits[kind];
    if (limit > 0 && this.current[kind] >= limit && !user.groups.includes('system:masters')) return false;
    const now = ++this.current[kind];
    if (now > this.peak[kind]) this.peak[kind] = now;
    return true;
  }

  release(kind: RequestKind): void {
    this.current[kind]--;
  }

  get inFlight(): Readonly<Record<RequestKind, number>> {
    return this.current;
  }

  /** The most requests in flight per kind since the last call (upstream's watermark), then starts over. */
  takeWatermarks(): Record<RequestKind, number> {
    const out = { ...this.peak };
    this.peak.readOnly = this.current.readOnly;
    this.peak.mutating = this.current.mutating;
    return out;
  }
}

/** The 504 of a request that outlived its deadline (upstream's timeout filter). */
export function requestTimeoutError(): StatusError {
  return new StatusError({ message: 'Timeout: request did not complete within the allotted timeout', reason: 'Timeout', details: {}, code: 504 });
}

/**
 * The deadline of a request in milliseconds: --request-timeout, shortened by a positive `timeout`
 * query parameter (a Go duration) below it. A malformed `timeout` is a 400.
 */
export function requestDeadlineMs(query: URLSearchParams, maximumMs: number): number {
  const value = query.get('timeout');
  if (!value) return maximumMs;
  let requested: number;
  try {
    requested = parseGoDuration(value);
  } catch (err) {
    throw badRequest(`invalid timeout specified in the request URL - ${err instanceof Error ? err.message : String(err)}`);
  }
  return requested > 0 && requested < maximumMs ? requested : maximumMs;
}
