/**
 * Storage-level failures, independent of any kind. The etcd client's errors are classified here
 * and only here; the registry turns a StorageError into the API's StatusError (interpretStorageError).
 */
import { GRPCDeadlineExceededError, GRPCUnavailableError, ClientClosedError, GRPCCancelledError } from 'etcd3';

export type StorageErrorCode = 'NotFound' | 'Exists' | 'Conflict' | 'Compacted' | 'FutureRevision' | 'Unavailable' | 'Timeout' | 'Internal';

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

/** Classifies an error thrown by the etcd3 client for an operation on `key`. */
export function classifyEtcdError(err: unknown, key: string): StorageError {
  if (err instanceof StorageError) return err;
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
