/**
 * JSON decoding that also reports duplicate object keys (which JSON.parse silently collapses,
 * keeping the last). The scan runs only when the caller asks, since most requests use the default
 * path that reports duplicates as warnings; it walks the text once without building values.
 */

export class JsonSyntaxError extends Error {}

/** Parses JSON; throws JsonSyntaxError with the parser's explanation. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new JsonSyntaxError(err instanceof Error ? err.message : String(err));
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;

interface Frame {
  isObject: boolean;
  keys: Set<string> | null;
  path: string;
  /** The key whose value is being read (objects only). */
  pendingKey: string | null;
}

/**
 * Lists the dotted paths of duplicated keys in syntactically valid JSON text, in order of
 * appearance: `{"data":{"a":1,"a":2}}` → `["data.a"]`. Array elements do not add to the path.
 */
export function findDuplicateKeys(text: string): string[] {
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = endOfString(text, i);
      const top = stack[stack.length - 1];
      // A string is a key when it sits in an object and a colon follows it.
      if (top && top.isObject && top.pendingKey === null && nextNonSpace(text, end) === COLON) {
        const raw = text.slice(i, end);
        const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (!top.keys) top.keys = new Set();
        if (top.keys.has(key)) duplicates.push(top.path ? `${top.path}.${key}` : key);
        else top.keys.add(key);
        top.pendingKey = key;
      } else if (top?.isObject) {
        top.pendingKey = null;
      }
      i = end;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const top = stack[stack.length - 1];
      let path = '';
      if (top) path = top.isObject && top.pendingKey !== null ? (top.path ? `${top.path}.${top.pendingKey}` : top.pendingKey) : top.path;
      stack.push({ isObject: c === OPEN_BRACE, keys: null, path, pendingKey: null });
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      stack.pop();
      const top = stack[stack.length - 1];
      if (top?.isObject) top.pendingKey = null;
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top?.isObject) top.pendingKey = null;
    }
    i++;
  }
  return duplicates;
}

/** Index just past the closing quote of the string starting at `start`. */
function endOfString(text: string, start: number): number {
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

function nextNonSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
    i++;
  }
  return -1;
}
