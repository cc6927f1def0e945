/**
 * How calls to etcd meet failure, for both clients of a replica (etcd3's, and the store's own KV
 * calls in kv-client.ts): a circuit breaker per member, and the one kind of repetition that is safe
 * for a write.
 */
import { circuitBreaker, ConsecutiveBreaker, handleWhen, retry, type IDefaultPolicyContext, type IPolicy } from 'cockatiel';
import { isEtcdUnreachable, isUndelivered, requestFaultOf } from './errors.ts';

/**
 * A member's breaker: after three calls in a row find etcd unreachable, its calls fail at once for
 * a second (etcd3's defaults, five seconds after three errors of any kind, kept calls from an etcd
 * that had long been back after a restart or a leader change). Only etcd being unreachable counts:
 * a request etcd refuses (too large) is that request's failure, or one client could fail
 * everyone's calls.
 *
 * Every request fault (errors.ts) leaves it as an EtcdRequestRejectedError: etcd3 retries an error
 * marked recoverable three times and resets every connection to the member (failing the calls and
 * watches in flight on it), and a message over gRPC's size limit is ResourceExhausted, which it
 * marks recoverable.
 */
export function memberPolicy(): IPolicy<IDefaultPolicyContext> {
  const inner = circuitBreaker(handleWhen(isEtcdUnreachable), { halfOpenAfter: 1_000, breaker: new ConsecutiveBreaker(3) });
  return {
    _altReturn: inner._altReturn,
    onSuccess: inner.onSuccess,
    onFailure: inner.onFailure,
    execute: <T>(fn: (context: IDefaultPolicyContext) => PromiseLike<T> | T, signal?: AbortSignal): Promise<T> =>
      inner.execute(async (context) => {
        try {
          return await fn(context);
        } catch (err) {
          throw requestFaultOf(err) ?? err;
        }
      }, signal),
  };
}

/**
 * A call that never left (isUndelivered) is sent again, up to three attempts in all; anything else
 * that failed once sent leaves its outcome unknown and is not repeated (etcd3's default repeats
 * every recoverable failure, writes included). Reads are repeated by the store itself (readRetry).
 */
export const undeliveredRetry = retry(handleWhen(isUndelivered), { maxAttempts: 3 });
