/**
 * Storage-level failures, independent of any kind. The etcd client's errors are classified here
 * and only here; the registry turns a StorageError into the API's StatusError (interpretStorageError).
 *
 * Two families must never be confused: etcd being unreachable (unavailable, deadline exceeded),
 * which is etcd's health and what the client's circuit breaker counts, and a request etcd refuses
 * because of what it holds (too large, invalid), which is that request's failure alone: it is not
 * retried, not counted, and does not reset the client's connections.
 */
import {
  ClientClosedError,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCInvalidArgumentError,
  GRPCResourceExhastedError,
  GRPCUnavailableError,
} from 'etcd3';

export type StorageErrorCode =
  | 'NotFound'
  | 'Exists'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'Unavailable'
  | 'Timeout'
  /** The write is larger than etcd accepts (its --max-request-bytes, or gRPC's message limit). */
  | 'TooLarge'
  /** etcd refused the request as malformed (gRPC InvalidArgument): a bug of ours, not etcd's health. */
  | 'InvalidRequest'
  | 'Internal';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    /** For Compacted: the oldest revision still available, when known. */
    readonly compactedRevision?: number,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

const compactedMessage = 'mvcc: required revision has been compacted';

/** etcd's refusal of a read or watch below its compacted revision; the other backends give the same. */
export function compactedError(key: string): StorageError {
  return new StorageError('Compacted', key, `etcdserver: ${compactedMessage}`);
}

/** etcd's refusal of a read above its current revision; the other backends give the same. */
export function futureRevisionError(key: string): StorageError {
  return new StorageError('FutureRevision', key, 'etcdserver: mvcc: required revision is a future revision');
}
/** etcd's ErrRequestTooLarge (code InvalidArgument): the request exceeds --max-request-bytes. */
export const etcdRequestTooLargeMessage = 'etcdserver: request is too large';
/**
 * gRPC's message size limits, on either side: `trying to send message larger than max` (the
 * client's send limit) and `received message larger than max` (etcd's receive limit, its
 * --max-request-bytes plus 512 KiB), both ResourceExhausted.
 */
const grpcMessageTooLarge = /message larger than max/;

/**
 * A request etcd refused because of its content, in place of the etcd3 client's error: an error of
 * its own class, so that the client neither marks it recoverable (retry, breaker, connection reset)
 * nor recasts it. Made by `requestFaultOf`; classified by `classifyEtcdError`.
 */
export class EtcdRequestRejectedError extends Error {
  constructor(
    readonly code: 'TooLarge' | 'InvalidRequest',
    /** etcd's (or gRPC's) description, without the client's `<code> <NAME>: ` prefix. */
    readonly description: string,
  ) {
    super(description);
    this.name = 'EtcdRequestRejectedError';
  }
}

/** A gRPC error's description: `3 INVALID_ARGUMENT: etcdserver: request is too large` → its text after the status. */
function description(message: string): string {
  return message.replace(/^(?:\w+Error: )?\d+ [A-Z_]+: /, '');
}

/** The request fault `err` is (see EtcdRequestRejectedError), or undefined when it is not one. */
export function requestFaultOf(err: unknown): EtcdRequestRejectedError | undefined {
  if (err instanceof EtcdRequestRejectedError) return err;
  if (!(err instanceof Error)) return undefined;
  const text = description(err.message);
  if (text.includes(etcdRequestTooLargeMessage)) return new EtcdRequestRejectedError('TooLarge', text);
  if (err instanceof GRPCResourceExhastedError && grpcMessageTooLarge.test(text)) return new EtcdRequestRejectedError('TooLarge', text);
  if (err instanceof GRPCInvalidArgumentError) return new EtcdRequestRejectedError('InvalidRequest', text);
  return undefined;
}

/**
 * Whether an error says etcd is unreachable: what the client's circuit breaker counts. Only
 * Unavailable and DeadlineExceeded do; anything a request caused never does.
 */
export function isEtcdUnreachable(err: unknown): boolean {
  if (requestFaultOf(err)) return false;
  return err instanceof GRPCUnavailableError || err instanceof GRPCDeadlineExceededError;
}

/**
 * Whether a call failed before it was sent: gRPC found no connection to send it on. Only then may
 * a write be repeated (etcd's Go client decides alike, isSafeRetryMutableRPC): an Unavailable after
 * sending (a reset connection, "request timed out, possibly due to previous leader failure") leaves
 * the outcome unknown, and a repeated compare-and-swap whose first attempt was applied would fail
 * its compare and report a write that happened as a conflict, an existing key or a missing one.
 */
export function isUndelivered(err: unknown): boolean {
  return err instanceof GRPCUnavailableError && err.message.includes('No connection established');
}

/** Classifies an error thrown by the etcd3 client for an operation on `key`. */
export function classifyEtcdError(err: unknown, key: string): StorageError {
  if (err instanceof StorageError) return err;
  const fault = requestFaultOf(err);
  if (fault) return new StorageError(fault.code, key, fault.description);
  const message = err instanceof Error ? err.message : String(err);
  if (message.includes(compactedMessage)) return new StorageError('Compacted', key, message);
  if (message.includes('required revision is a future revision')) return new StorageError('FutureRevision', key, message);
  if (err instanceof GRPCDeadlineExceededError) return new StorageError('Timeout', key, message);
  if (err instanceof GRPCUnavailableError || err instanceof ClientClosedError || err instanceof GRPCCancelledError) {
    return new StorageError('Unavailable', key, message);
  }
  if (/circuit|breaker|isolated/i.test(message)) return new StorageError('Unavailable', key, message);
  return new StorageError('Internal', key, message);
}
