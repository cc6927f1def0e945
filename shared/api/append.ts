/**
 * Appends every item of `items` to `list`. `list.push(...items)` passes each item as an argument,
 * and a client can make `items` long (an error per label, finalizer or list entry): past about
 * 100,000 arguments the spread exhausts the call stack.
 */
export function append<T>(list: T[], items: readonly T[]): T[] {
  for (const item of items) list.push(item);
  return list;
}
