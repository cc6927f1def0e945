/**
 * JSON.stringify of a large value in slices. One JSON.stringify of a 3 MiB object (a Node with
 * 150,000 labels and their managed fields) holds the event loop for around 100 ms, and so every
 * other client. `stringifyJsonSteps` gives JSON.stringify's text, but yields (shared/apply/steps.ts)
 * between pieces of about a millisecond of work, so that its caller can let the loop run.
 *
 * It is hand-written around the native JSON.stringify rather than a serializer of its own: a
 * serializer in JavaScript that writes member by member costs about three times the native call.
 * Instead the value is walked container by container; the members (or items) of a container are
 * cut into batches of consecutive ones, each batch handed to JSON.stringify in one call (scalar
 * members with their keys as the property list, other members copied into a fresh null-prototype
 * object, items as a slice of the array) and its outer braces (brackets) dropped; a member too
 * large for a batch is a container walked in turn, or a long string written in chunks. Every piece
 * is kept and joined once at the end. On the 150,000-label Node this costs about 1.4 times the
 * native call (measured on Node 20).
 *
 * Cheap for the common case: a value is first weighed against a budget (`weigh`, which stops as
 * soon as the budget is spent, so it never walks more than a budget's worth of a large value) and a
 * small one is one native call without any yield.
 *
 * The contract: for a JSON value (plain objects, null-prototype ones included, arrays, strings,
 * finite numbers, booleans, null; members whose value is undefined, which are omitted, and
 * undefined items, which are null) the text is JSON.stringify's, byte for byte: the same key order
 * (Object.keys order: integer-like keys ascending, then insertion order, which a batch of
 * consecutive keys keeps), an own `__proto__` member kept, the same escapes (a surrogate pair is
 * never cut between two chunks of a string). The value must not change while the steps run.
 * Out of contract, though handled where it is cheap: a large value that is not a plain object or
 * array (a class instance, a boxed primitive, one with toJSON) is handed to JSON.stringify whole; a
 * toJSON of an array item is called with the item's index within its batch, not within the array;
 * functions, symbols, BigInt, non-finite numbers are whatever JSON.stringify makes of them in their
 * batch; a cycle throws JSON.stringify's TypeError.
 *
 * One JSON.stringify call is not divisible, and neither is one Object.keys: the key list of a
 * 150,000-member object is collected in one call (about 25 ms, which the native stringify pays
 * too, and no other enumeration of an object avoids), the longest stretch between two yields.
 */
import { runSteps, type Steps } from '../apply/steps.ts';

/**
 * Units of weight (see `weigh`) of a value written in one native call without yielding. A unit is
 * about 100-500 ns of native stringify work (a member or item, or 32 characters of a string).
 */
const smallWeight = 4096;

/** Units of one batch: a larger member is walked into (or chunked) instead of batched. */
const batchWeight = 1024;

/** Units written between two yields: about a millisecond of work. */
const stepWeight = 2048;

/** Characters of one chunk of a long string. */
const stringChunkLength = 64 * 1024;

/** Key lists of objects with at least this many members are kept once collected, never collected twice. */
const keptKeysMinLength = 1024;

/** Objects whose key list is kept: large ones, found large while being weighed. */
type KeptKeys = Map<object, readonly string[]>;

/**
 * The kept keys of the first weighing, which needs none unless the value is large (and no map of
 * its own for the common small value): taken over by the walk of a large value, synchronously.
 */
let rootKept: KeptKeys = new Map();

/** JSON.stringify of the value, yielding between pieces of a large value. */
export function* stringifyJsonSteps(value: unknown): Steps<string> {
  if (typeof value === 'string') {
    if (value.length <= stringChunkLength) return JSON.stringify(value);
    const pieces: string[] = [];
    yield* writeString(value, pieces);
    return pieces.join('');
  }
  if (!isRecord(value)) return JSON.stringify(value);
  // Left over only by a weighing that threw (a getter, out of contract).
  if (rootKept.size !== 0) rootKept = new Map();
  if (weigh(value, smallWeight, rootKept) >= 0) return JSON.stringify(value);
  // Only a value found large has kept keys: the walk takes them over (before its first yield).
  const kept = rootKept;
  rootKept = new Map();
  if (!isWalkable(value)) return JSON.stringify(value);
  return yield* writeLarge(value, kept);
}

/**
 * Whether the value is large: more than one native JSON.stringify's worth without a yield (the
 * values stringifyJsonSteps slices). Costs at most that budget's worth of weighing.
 */
export function isLargeJson(value: unknown): boolean {
  if (!isRecord(value)) return typeof value === 'string' && value.length > stringChunkLength;
  const large = weigh(value, smallWeight, scratchKept) < 0;
  scratchKept.clear();
  return large;
}

/** Keys `isLargeJson` collects while weighing, which it has no use for. */
const scratchKept: KeptKeys = new Map();

/** stringifyJsonSteps in one go (tests, synchronous callers). */
export function stringifyJsonSliced(value: unknown): string {
  return runSteps(stringifyJsonSteps(value));
}

/** Narrows an object to a record (whose members are read by key); arrays are objects too. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The object's own enumerable string keys in JSON.stringify's order, collected once if it is large. */
function keysOf(record: Record<string, unknown>, kept: KeptKeys): readonly string[] {
  return kept.get(record) ?? Object.keys(record);
}

/** The weight of a scalar (see `weigh`). */
const scalarWeight = (value: unknown): number => (typeof value === 'string' ? 1 + (value.length >> 5) : 1);

/**
 * Objects with at most this many members are read with Object.values, larger ones key by key (see
 * `weigh`).
 */
const valuesMaxLength = 16;

/**
 * The weight of a value, or -1 once it is above `budget`: one unit for the value itself (a
 * container, a member's or item's value, a scalar) and one more per 32 characters of a string, so
 * roughly proportional to the native stringify's work. Stops as soon as the budget is spent, so it
 * costs at most a budget's worth of a large value (plus the key list of an object larger than the
 * budget, which it keeps in `kept` for the walk that follows).
 *
 * Its cost is the fast path's overhead, so it reads members the cheapest way V8 offers (measured on
 * Node 20): a small object's with one Object.values (a read by key is a lookup of its own, several
 * times dearer than Object.values of an object with fast properties); a larger object's key by key,
 * since a larger object is often in dictionary mode (built by assignments), where Object.values
 * costs five times the reads by key, and for 150,000 members three times their Object.keys.
 */
function weigh(value: unknown, budget: number, kept: KeptKeys): number {
  if (!isRecord(value)) {
    const w = scalarWeight(value);
    return w <= budget ? w : -1;
  }
  let w = 1;
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    if (items.length >= budget) return -1;
    for (let i = 0; i < items.length; i++) {
      w = addWeight(w, items[i], budget, kept);
      if (w < 0) return -1;
    }
    return w;
  }
  const names = keysOf(value, kept);
  if (names.length >= budget) {
    if (names.length >= keptKeysMinLength) kept.set(value, names);
    return -1;
  }
  if (names.length <= valuesMaxLength) {
    if (names.length === 0) return 1;
    const members = Object.values(value);
    for (let i = 0; i < members.length; i++) {
      w = addWeight(w, members[i], budget, kept);
      if (w < 0) return -1;
    }
    return w;
  }
  for (let i = 0; i < names.length; i++) {
    w = addWeight(w, value[names[i] as string], budget, kept);
    if (w < 0) return -1;
  }
  return w;
}

/** `w` plus the weight of a member, or -1 once above `budget`. */
function addWeight(w: number, member: unknown, budget: number, kept: KeptKeys): number {
  if (isRecord(member)) {
    const c = weigh(member, budget - w, kept);
    return c < 0 ? -1 : w + c;
  }
  w += scalarWeight(member);
  return w <= budget ? w : -1;
}

/**
 * Whether JSON.stringify writes the value as its own members (or items), so that it can be walked
 * piece by piece: a plain or null-prototype object, or a plain array, without toJSON. Checked only
 * for large values, which are few.
 */
function isWalkable(value: Record<string, unknown>): boolean {
  if (typeof value.toJSON === 'function') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return Array.isArray(value) ? proto === Array.prototype : proto === Object.prototype || proto === null;
}

/** One container being written, batch by batch. */
type Frame = { readonly container: object; next: number; empty: boolean } & (
  | { readonly items: readonly unknown[]; readonly record: undefined; readonly names: undefined }
  | { readonly items: undefined; readonly record: Record<string, unknown>; readonly names: readonly string[] }
);

/** The frame of a walkable container, whose opening bracket has been written. */
function frameOf(container: Record<string, unknown>, kept: KeptKeys): Frame {
  if (Array.isArray(container)) return { container, items: container, record: undefined, names: undefined, next: 0, empty: true };
  return { container, items: undefined, record: container, names: keysOf(container, kept), next: 0, empty: true };
}

/**
 * One batch of a frame: the text of consecutive small members (items) from the frame's `next`, until
 * the batch is full, a member is large, or the container ends; `end` is the index after them, and
 * of the large member that ended the batch, `large`, if any; `weight` is the batch's.
 */
interface Batch {
  text: string;
  end: number;
  weight: number;
  large: Record<string, unknown> | string | undefined;
}

/**
 * The weight of a member for a batch: -1 if it is large and is written apart (a long string, or
 * a walkable container); a large value JSON.stringify does not write member by member (a class
 * instance, a toJSON) counts as a full batch, written natively in a batch of its own.
 */
function memberWeight(member: unknown, kept: KeptKeys): number {
  if (typeof member === 'string') {
    const w = scalarWeight(member);
    return w <= batchWeight ? w : -1;
  }
  if (!isRecord(member)) return 1;
  const w = weigh(member, batchWeight, kept);
  return w >= 0 ? w : isWalkable(member) ? -1 : batchWeight;
}

/**
 * The next batch of an object frame, stringified in one call. When every member of the batch is a
 * scalar, the object itself is stringified with the batch's keys as JSON.stringify's property
 * list (which keeps the list's order, and applies to nothing else when there are no nested
 * objects); otherwise the members are copied into a fresh object, which costs about twice as much
 * (the property list would apply to every nested object, a lookup of each listed key in each).
 */
function objectBatch(record: Record<string, unknown>, names: readonly string[], start: number, kept: KeptKeys): Batch {
  let weight = 0;
  let i = start;
  let large: Record<string, unknown> | string | undefined;
  let scalars = true;
  for (; i < names.length && weight < batchWeight; i++) {
    const member = record[names[i] as string];
    const w = memberWeight(member, kept);
    if (w < 0) {
      large = typeof member === 'string' || isRecord(member) ? member : undefined;
      break;
    }
    if (isRecord(member)) scalars = false;
    weight += w;
  }
  if (i === start) return { text: '{}', end: i, weight, large };
  if (scalars) return { text: JSON.stringify(record, names.slice(start, i)), end: i, weight, large };
  // A null-prototype object has no `__proto__` setter: that key is set as an own member, as any other.
  const batch: Record<string, unknown> = { __proto__: null };
  for (let j = start; j < i; j++) {
    const key = names[j] as string;
    batch[key] = record[key];
  }
  return { text: JSON.stringify(batch), end: i, weight, large };
}

/** The next batch of an array frame: a slice of its items stringified in one call. */
function arrayBatch(items: readonly unknown[], start: number, kept: KeptKeys): Batch {
  let weight = 0;
  let i = start;
  let large: Record<string, unknown> | string | undefined;
  for (; i < items.length && weight < batchWeight; i++) {
    const item = items[i];
    const w = memberWeight(item, kept);
    if (w < 0) {
      large = typeof item === 'string' || isRecord(item) ? item : undefined;
      break;
    }
    weight += w;
  }
  return { text: i > start ? JSON.stringify(items.slice(start, i)) : '[]', end: i, weight, large };
}

/**
 * Writes a large walkable container: an explicit stack of the containers being written (the value
 * decides the depth), each written as batches of consecutive small members or items and, in
 * between, its large members walked in turn.
 */
function* writeLarge(root: Record<string, unknown>, kept: KeptKeys): Steps<string> {
  const pieces: string[] = [Array.isArray(root) ? '[' : '{'];
  const stack: Frame[] = [frameOf(root, kept)];
  let work = 0;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const { items, record, names } = frame;
    if (frame.next >= (items ? items.length : names.length)) {
      pieces.push(items ? ']' : '}');
      stack.pop();
      continue;
    }
    const { text, end, weight, large } = items ? arrayBatch(items, frame.next, kept) : objectBatch(record, names, frame.next, kept);
    work += weight;
    // Members whose values JSON.stringify omits (undefined) may leave nothing.
    if (text.length > 2) {
      pieces.push(frame.empty ? text.slice(1, -1) : `,${text.slice(1, -1)}`);
      frame.empty = false;
    }
    frame.next = end;
    if (large !== undefined) {
      const separator = frame.empty ? '' : ',';
      const prefix = names ? `${separator}${JSON.stringify(names[frame.next])}:` : separator;
      frame.empty = false;
      frame.next++;
      work += batchWeight;
      if (typeof large === 'string') {
        pieces.push(prefix);
        yield* writeString(large, pieces);
      } else {
        // A cycle: JSON.stringify of the whole value throws its TypeError.
        for (let i = 0; i < stack.length; i++) if (stack[i]?.container === large) return JSON.stringify(root);
        pieces.push(`${prefix}${Array.isArray(large) ? '[' : '{'}`);
        stack.push(frameOf(large, kept));
      }
    }
    if (work >= stepWeight) {
      work = 0;
      yield;
    }
  }
  return pieces.join('');
}

/**
 * Writes a long string as JSON.stringify does, in chunks of `stringChunkLength` characters, each
 * stringified and stripped of its quotes, yielding between them. A chunk never ends between the
 * two halves of a surrogate pair, which JSON.stringify keeps as they are but would escape apart.
 */
function* writeString(value: string, pieces: string[]): Steps<void> {
  pieces.push('"');
  let work = 0;
  for (let start = 0; start < value.length;) {
    let end = Math.min(value.length, start + stringChunkLength);
    const last = value.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < value.length) end++;
    pieces.push(JSON.stringify(value.slice(start, end)).slice(1, -1));
    work += (end - start) >> 5;
    start = end;
    if (work >= stepWeight && start < value.length) {
      work = 0;
      yield;
    }
  }
  pieces.push('"');
}
