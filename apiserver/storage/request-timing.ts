/** The timing of a backend's requests for its latency metric: one helper for every backend. */
import type { StorageRequestObserver } from './storage.ts';

/**
 * Runs `call` and tells `observer` how long it took and whether it failed; without an observer
 * the call runs untimed, so that unset metrics cost nothing.
 */
export async function timed<T>(
  observer: StorageRequestObserver | undefined,
  operation: Parameters<StorageRequestObserver>[0],
  key: string,
  call: () => Promise<T>,
): Promise<T> {
  if (!observer) return call();
  const start = performance.now();
  try {
    const result = await call();
    observer(operation, key, (performance.now() - start) / 1000, false);
    return result;
  } catch (err) {
    observer(operation, key, (performance.now() - start) / 1000, true);
    throw err;
  }
}
