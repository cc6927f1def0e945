/**
 * What every cache feed's test checks of the events a subscriber gets for three writes of one key:
 * a small value, a large one (parsed over several turns of the loop), a small one again. Shared by
 * etcd's test (watch-cache.test.ts) and the embedded backend's (embedded/cache-feed.test.ts).
 */
import assert from 'node:assert/strict';
import type { CacheEvent } from './watch-cache.ts';

/** Keys of the large value: its stored text is well over what is parsed in one call. */
const largeKeys = 30_000;

/** The three values to write, in order. */
export function threeWrites(): Record<string, string>[] {
  const large: Record<string, string> = {};
  for (let i = 0; i < largeKeys; i++) large[`key-${i}`] = 'value';
  return [{ v: '1' }, large, { v: '3' }];
}

/** The events arrived in write order, and each update's previous value is the object the cache held, not a copy. */
export function assertWritesSharePrevious(seen: readonly CacheEvent[]): void {
  assert.deepEqual(
    seen.map((e) => Object.keys(e.value.object.data as object).length),
    [1, largeKeys, 1],
  );
  assert.equal(seen[1]?.previous, seen[0]?.value, 'the object the cache held, not a copy');
  assert.equal(seen[2]?.previous, seen[1]?.value);
}
