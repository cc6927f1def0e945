/**
 * The nesting limit of every document a client sends (bodies, patches, applied configurations,
 * annotations read as JSON, FieldsV1), checked without recursion.
 *
 * Upstream's decoders stop at 10,000 levels (`exceeded max depth`). JavaScript cannot go that
 * deep: structuredClone, JSON.stringify, the YAML parser and every recursive walk here (merge
 * patches, managed fields, validation) exhaust the call stack between 1,000 and 6,000 levels,
 * which surfaced as 500s. So corral's limit is lower: deep enough for any real object (the
 * deepest built-in kinds nest about 15 levels, deeply nested custom schemas a few hundred), shallow
 * enough that every walker has room to spare. A deeper document is a 400 with Go's wording.
 */

export const maxNestingDepth = 500;

/** Go's encoding/json text for a document nested too deeply. */
export const nestingTooDeepMessage = 'exceeded max depth';

/** Whether `value` nests objects and arrays more than `limit` levels deep; iterative, so any depth is safe. */
export function exceedsNestingDepth(value: unknown, limit: number = maxNestingDepth): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: unknown[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const node = pending.pop();
    const depth = depths.pop() ?? 0;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
