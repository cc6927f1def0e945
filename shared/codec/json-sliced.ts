/**
 * JSON.parse of a large text in slices. One JSON.parse of a 3 MiB body (150,000 labels) holds the
 * event loop for around 100 ms, and so every other client. Above `slicedParseMinLength` the text
 * is parsed as a sequence of pieces, each a batch of consecutive members (or items) of one object
 * (or array) of about `batchLength` characters, handed to JSON.parse in turn and joined into the
 * containers they belong to; a container larger than a batch is walked member by member instead.
 * Between pieces the computation yields (shared/apply/steps.ts), so that its caller can let the
 * loop run.
 *
 * The result is JSON.parse's: the same values, key order (integer keys first, then insertion
 * order, a repeated key keeping its first place and its last value) and `__proto__` as an own
 * property. Errors are too: a text that does not split as valid JSON is parsed whole once more,
 * which throws JSON.parse's own error (only a malformed body pays for that second parse).
 */
import { runSteps, type Steps } from '../apply/steps.ts';
import { endOfString, JsonSyntaxError, parseJson, textNestingExceeds } from './json.ts';
import { maxNestingDepth, nestingTooDeepMessage } from './nesting.ts';

/** Texts shorter than this are parsed in one call: they cost a few milliseconds at most. */
export const slicedParseMinLength = 256 * 1024;

/** Characters of one batch: a JSON.parse of this many takes well under a millisecond. */
const batchLength = 32 * 1024;

/** Characters scanned or parsed between two yields. */
const workPerStep = 256 * 1024;

/** parseJson (json.ts), yielding between pieces of a large text. */
export function* parseJsonSteps(text: string): Steps<unknown> {
  if (text.length < slicedParseMinLength) return parseJson(text);
  const built = yield* buildSliced(text);
  // Not valid JSON, or too deep to walk: the whole parse throws the error JSON.parse throws.
  if (built === notSliced) return parseJson(text);
  if (textNestingExceeds(text, maxNestingDepth)) throw new JsonSyntaxError(nestingTooDeepMessage);
  return built.value;
}

/** parseJsonSteps in one go (tests, synchronous callers). */
export function parseJsonSliced(text: string): unknown {
  return runSteps(parseJsonSteps(text));
}

const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** The text does not split as valid JSON (or nests too deeply to walk). */
const notSliced = Symbol('notSliced');

/** A member (or item) scan that reached its limit before the member's end. */
const TOO_LARGE = -2;
/** A member scan that ran off the end of the text. */
const UNTERMINATED = -1;

/** One container being filled, piece by piece. */
interface Frame {
  readonly isObject: boolean;
  target: Record<string, unknown> | unknown[] | undefined;
  /** Where the next member (or item) starts. */
  cursor: number;
  /** The key under which the child being walked goes (objects). */
  childKey: string;
}

const isWhitespace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The end of the member (or item) starting at `from`: the index of the comma or closing bracket
 * at its level; TOO_LARGE when it reaches `limit` first, UNTERMINATED at the end of the text.
 */
function memberEnd(text: string, from: number, limit: number): number {
  let depth = 0;
  const n = text.length;
  for (let i = from; i < n; i++) {
    if (i >= limit) return TOO_LARGE;
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = endOfString(text, i) - 1;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0) return i;
      depth--;
    } else if (c === COMMA && depth === 0) return i;
  }
  return UNTERMINATED;
}

/** Puts `value` under `key` as JSON.parse does: `__proto__` as an own property, not the prototype. */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/** Parses members (or items) `text[start, end)` and adds them to the frame's container; false when they are not valid. */
function addBatch(frame: Frame, text: string, start: number, end: number): boolean {
  const body = text.slice(start, end);
  if (skipWhitespace(body, 0) === body.length) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(frame.isObject ? `{${body}}` : `[${body}]`);
  } catch {
    return false;
  }
  if (frame.target === undefined) {
    frame.target = parsed as Record<string, unknown> | unknown[];
    return true;
  }
  if (frame.isObject) {
    const from = parsed as Record<string, unknown>;
    const into = frame.target as Record<string, unknown>;
    for (const key of Object.keys(from)) setMember(into, key, from[key]);
  } else {
    const from = parsed as unknown[];
    const into = frame.target as unknown[];
    for (let i = 0; i < from.length; i++) into.push(from[i]);
  }
  return true;
}

/** The frame's container, empty when nothing was added. */
const containerOf = (frame: Frame): Record<string, unknown> | unknown[] => frame.target ?? (frame.isObject ? {} : []);

/**
 * Walks the text container by container (an explicit stack: the text decides the depth), filling
 * each from batches of its members; a member too large for a batch is a container walked in turn,
 * or (a long string) a batch of its own.
 */
function* buildSliced(text: string): Steps<{ value: unknown } | typeof notSliced> {
  const n = text.length;
  const rootStart = skipWhitespace(text, 0);
  const first = text.charCodeAt(rootStart);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return notSliced;
  const stack: Frame[] = [{ isObject: first === OPEN_BRACE, target: undefined, cursor: rootStart + 1, childKey: '' }];
  let work = 0;
  // The value of the container just closed, to be put into its parent; and where it closed.
  let done: { value: unknown; close: number } | undefined;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    let i: number;
    if (done) {
      // A child container closed: it goes into this frame, then comes a comma or this frame's end.
      if (frame.isObject) setMember((frame.target ??= {}) as Record<string, unknown>, frame.childKey, done.value);
      else ((frame.target ??= []) as unknown[]).push(done.value);
      i = skipWhitespace(text, done.close + 1);
      done = undefined;
      const c = text.charCodeAt(i);
      if (c === (frame.isObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        stack.pop();
        done = { value: containerOf(frame), close: i };
        continue;
      }
      if (c !== COMMA) return notSliced;
      frame.cursor = i + 1;
    } else if (frame.target === undefined) {
      // A container's start: it may be empty.
      i = skipWhitespace(text, frame.cursor);
      if (text.charCodeAt(i) === (frame.isObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        stack.pop();
        done = { value: containerOf(frame), close: i };
        continue;
      }
    }
    // A batch of members from the cursor, until a batch is full, a member is too large, or the end.
    const batchStart = frame.cursor;
    let memberStart = batchStart;
    let closed = -1;
    let large = false;
    for (;;) {
      const end = memberEnd(text, memberStart, memberStart + batchLength);
      if (end === UNTERMINATED) return notSliced;
      if (end === TOO_LARGE) {
        work += batchLength;
        large = true;
        break;
      }
      work += end - memberStart;
      if (text.charCodeAt(end) !== COMMA) {
        if (text.charCodeAt(end) !== (frame.isObject ? CLOSE_BRACE : CLOSE_BRACKET)) return notSliced;
        closed = end;
        if (!addBatch(frame, text, batchStart, end)) return notSliced;
        break;
      }
      memberStart = end + 1;
      if (memberStart - batchStart >= batchLength) {
        if (!addBatch(frame, text, batchStart, end)) return notSliced;
        break;
      }
    }
    if (large) {
      // The members before the large one form a batch of their own (without the comma between).
      if (memberStart > batchStart && !addBatch(frame, text, batchStart, memberStart - 1)) return notSliced;
      let valueStart = skipWhitespace(text, memberStart);
      if (frame.isObject) {
        if (text.charCodeAt(valueStart) !== QUOTE) return notSliced;
        const keyEnd = endOfString(text, valueStart);
        let key: unknown;
        try {
          key = JSON.parse(text.slice(valueStart, keyEnd));
        } catch {
          return notSliced;
        }
        if (typeof key !== 'string') return notSliced;
        const colon = skipWhitespace(text, keyEnd);
        if (text.charCodeAt(colon) !== COLON) return notSliced;
        frame.childKey = key;
        valueStart = skipWhitespace(text, colon + 1);
      }
      const c = text.charCodeAt(valueStart);
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (stack.length >= maxNestingDepth) return notSliced;
        if (frame.target === undefined) frame.target = frame.isObject ? {} : [];
        stack.push({ isObject: c === OPEN_BRACE, target: undefined, cursor: valueStart + 1, childKey: '' });
      } else {
        // A scalar longer than a batch (a long string): a batch of its own.
        const end = memberEnd(text, memberStart, n);
        if (end < 0 || !addBatch(frame, text, memberStart, end)) return notSliced;
        work += end - memberStart;
        if (text.charCodeAt(end) === COMMA) frame.cursor = end + 1;
        else if (text.charCodeAt(end) === (frame.isObject ? CLOSE_BRACE : CLOSE_BRACKET)) closed = end;
        else return notSliced;
      }
    } else if (closed < 0) frame.cursor = memberStart;
    if (closed >= 0) {
      stack.pop();
      done = { value: containerOf(frame), close: closed };
    }
    if (work >= workPerStep) {
      work = 0;
      yield;
    }
  }
  if (!done || skipWhitespace(text, done.close + 1) !== n) return notSliced;
  return { value: done.value };
}
