/**
 * Structural sharing between two versions of one stored object, for the watch cache's events.
 *
 * Why: the watch cache keeps every event of the last 75 s (event-history.ts), each with the whole
 * object as decoded. At 5,000 nodes that is 37,500 Lease versions, and each renewal changes only
 * its renewTime and resourceVersion: every other part (the owner reference, the managedFields
 * entry's field set, a Node's images and nodeInfo) is the same as in the version before, yet each
 * version held its own copy of them. All of those copies outlive the young generation, so the
 * old space grew by the whole object per event, and a major GC had to mark every copy (pauses of
 * over 100 ms on a busy replica, each one a stall of every request it holds). Taking the previous
 * version's value wherever the new one is equal leaves each event holding only what changed.
 *
 * Contract: objects the watch cache hands out are never modified (every writer copies first), so a
 * value shared by two versions is as safe as one held by one.
 */

/** Values compared at most this deep: stored objects passed the write path's nesting limit (far less). */
const maxDepth = 1000;

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/**
 * Makes `next` take `previous`'s value in place of each of its own that is equal to it, at any
 * depth: the same keys in the same order (so either serializes to the same text) and the same
 * values. Returns whether the two are equal throughout; `next` itself is never replaced.
 */
export function shareUnchanged(next: Record<string, unknown>, previous: Record<string, unknown>): boolean {
  return shareInto(next, previous, 0);
}

function shareInto(next: Container, previous: Container, depth: number): boolean {
  if (depth > maxDepth) return false;
  if (Array.isArray(next)) {
    if (!Array.isArray(previous)) return false;
    let equal = next.length === previous.length;
    const common = Math.min(next.length, previous.length);
    for (let i = 0; i < common; i++) {
      const old = previous[i];
      if (sameValue(next[i], old, depth)) next[i] = old;
      else equal = false;
    }
    return equal;
  }
  if (Array.isArray(previous)) return false;
  const previousKeys = Object.keys(previous);
  let equal = Object.keys(next).length === previousKeys.length;
  let i = 0;
  for (const key in next) {
    if (previousKeys[i++] !== key) equal = false;
    if (!Object.hasOwn(previous, key)) {
      equal = false;
      continue;
    }
    const old = previous[key];
    if (sameValue(next[key], old, depth)) replaceOwn(next, key, old);
    else equal = false;
  }
  return equal;
}

/**
 * Sets an own property that already exists. An own `__proto__` (JSON.parse makes one) is redefined
 * rather than assigned: assigning it would change the object's prototype instead.
 */
function replaceOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

/** Whether `value` equals `old`; when both are objects or arrays, `value`'s parts take `old`'s where equal. */
function sameValue(value: unknown, old: unknown, depth: number): boolean {
  if (value === old) return true;
  return isContainer(value) && isContainer(old) && shareInto(value, old, depth + 1);
}
