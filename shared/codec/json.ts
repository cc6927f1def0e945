/**
 * JSON decoding that also reports duplicate object keys (which JSON.parse silently collapses,
 * keeping the last). The scan runs only when the caller asks, since most requests use the default
 * path that reports duplicates as warnings; it walks the text once without building values.
 *
 * Both scans here run on every write body, up to the 3 MiB request limit (150,000 keys), so they
 * are single passes over the text with no per-key allocation beyond what a key check needs.
 */

import { maxNestingDepth, nestingTooDeepMessage } from './nesting.ts';
import { runSteps, type Steps } from '../apply/steps.ts';

export class JsonSyntaxError extends Error {}

/**
 * Parses JSON from a client; throws JsonSyntaxError with the parser's explanation, or with Go's
 * `exceeded max depth` for a document nested beyond maxNestingDepth (see nesting.ts). The depth is
 * that of the text, as Go's scanner measures it.
 */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new JsonSyntaxError(err instanceof Error ? err.message : String(err));
  }
  if (textNestingExceeds(text, maxNestingDepth)) throw new JsonSyntaxError(nestingTooDeepMessage);
  return value;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * Whether syntactically valid JSON text nests objects and arrays more than `limit` levels deep
 * (the top level is 1). A linear scan of the text: strings are skipped whole.
 */
export function textNestingExceeds(text: string, limit: number): boolean {
  // Each level takes an opening bracket: a shorter text cannot exceed the limit.
  if (text.length <= limit) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = endOfString(text, i) - 1;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** One open object or array of the duplicate scan. */
interface Frame {
  isObject: boolean;
  /** The keys seen so far (objects only; made at the second key). */
  keys: Set<string> | null;
  /** The object's only key so far, before `keys` exists. */
  firstKey: string | null;
  /** The dotted path of this value; computed when a duplicate or a child needs it. */
  path: string;
  /** The key whose value is being read (objects only). */
  pendingKey: string | null;
}

/**
 * Lists the dotted paths of duplicated keys in syntactically valid JSON text, in order of
 * appearance: `{"data":{"a":1,"a":2}}` → `["data.a"]`. Array elements do not add to the path.
 *
 * One pass: a string is a key exactly when it follows `{` or `,` inside an object, which the scan
 * knows from the last structural character, so no look-ahead is needed; a key is sliced once and
 * checked against its object's key set.
 */
export function findDuplicateKeys(text: string): string[] {
  return runSteps(findDuplicateKeysSteps(text));
}

/** Characters the duplicate scan reads between two yields (a few milliseconds of scanning). */
const scanPerStep = 256 * 1024;

/** findDuplicateKeys, yielding (shared/apply/steps.ts) every scanPerStep characters of a long text. */
export function* findDuplicateKeysSteps(text: string): Steps<string[]> {
  let nextYield = scanPerStep;
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  let top: Frame | undefined;
  // Inside an object, whether the next string is a key: after `{` or `,`, until that key is read.
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    if (i >= nextYield) {
      nextYield = i + scanPerStep;
      yield;
    }
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = endOfString(text, i);
      if (expectKey && top) {
        const key = keyText(text, i, end);
        if (top.keys) {
          if (top.keys.has(key)) duplicates.push(top.path ? `${top.path}.${key}` : key);
          else top.keys.add(key);
        } else if (top.firstKey === null) top.firstKey = key;
        else if (top.firstKey === key) duplicates.push(top.path ? `${top.path}.${key}` : key);
        else top.keys = new Set([top.firstKey, key]);
        top.pendingKey = key;
        expectKey = false;
      }
      i = end - 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      let path = '';
      if (top) path = top.isObject && top.pendingKey !== null ? (top.path ? `${top.path}.${top.pendingKey}` : top.pendingKey) : top.path;
      top = { isObject: c === OPEN_BRACE, keys: null, firstKey: null, path, pendingKey: null };
      stack.push(top);
      expectKey = top.isObject;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      stack.pop();
      top = stack[stack.length - 1];
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = top !== undefined && top.isObject;
    } else if (c === COLON) {
      expectKey = false;
    }
  }
  return duplicates;
}

/** The value of the key string between the quotes at `start` and `end - 1`. */
function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.indexOf('\\') < 0 ? raw : (JSON.parse(text.slice(start, end)) as string);
}

/** Index just past the closing quote of the string starting at `start` (text.length when unterminated). */
export function endOfString(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return text.length;
    let backslashes = 0;
    for (let j = q - 1; j > start && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}
