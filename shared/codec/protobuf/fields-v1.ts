/**
 * FieldsV1 (managedFields' ownership trie) in protobuf: a message {raw=1} holding the trie as JSON.
 * Encoding keeps each object's message (see fieldsV1Message's contract); decoding reads the JSON
 * that apimachinery writes without JSON.parse, its keys from the reader's string cache.
 */
import { allocBuffer } from './node-buffer.ts';
import { textAt, type Reader } from './reader.ts';
import { putUint32, varintSize } from './wire.ts';

/**
 * The encoded FieldsV1 message (length, then {raw=1: the JSON}) of each FieldsV1 object encoded,
 * kept while the object lives: lists and watch events encode the same stored objects again and
 * again, and JSON.stringify of the managed fields was the largest cost of encoding them.
 *
 * Contract: a FieldsV1 object (every object and array within it) is never changed once encoded.
 * corral holds it so: stored objects, which the watch cache shares, are not mutated, and
 * managed-fields code builds a new FieldsV1 for each change (toFieldsV1) rather than editing one.
 * Changing one in place would make later encodings send the old value.
 */
const fieldsV1Messages = new WeakMap<Record<string, unknown>, Uint8Array>();

export function fieldsV1Message(v: Record<string, unknown>): Uint8Array {
  let message = fieldsV1Messages.get(v);
  if (message === undefined) {
    const json = JSON.stringify(v);
    const len = Buffer.byteLength(json, 'utf8');
    const inner = 1 + varintSize(len) + len;
    const out = allocBuffer(varintSize(inner) + inner);
    let pos = putUint32(out, 0, inner);
    out[pos++] = 0x0a;
    pos = putUint32(out, pos, len);
    out.utf8Write(json, pos, len);
    fieldsV1Messages.set(v, (message = out));
  }
  return message;
}

/**
 * FieldsV1 JSON as apimachinery writes it: objects of objects, no whitespace; undefined for
 * anything else (JSON.parse then reads it). The same result as JSON.parse, cheaper, as the keys
 * (`f:metadata`, `.`, …) come from the string cache. A key with escapes (every list item's key,
 * `k:{\"uid\":\"…\"}`, and so every owned Lease, Node condition or container) is read by
 * JSON.parse alone, not the whole tree.
 */
export function parseFieldsV1(r: Reader, start: number, end: number): Record<string, unknown> | undefined {
  fieldsPos = start;
  const tree = readFieldsObject(r, end, 0);
  return fieldsPos === end ? tree : undefined;
}

/** Where readFieldsObject stopped. */
let fieldsPos = 0;

/**
 * Deeper trees are left to JSON.parse, which does not recurse: a request body could otherwise
 * overflow the stack. Managed fields nest as deep as the object's fields do.
 */
const maxFieldsDepth = 100;

/** The object at fieldsPos (see parseFieldsV1), `depth` objects down. */
function readFieldsObject(r: Reader, end: number, depth: number): Record<string, unknown> | undefined {
  if (depth > maxFieldsDepth) return undefined;
  const buf = r.buf;
  let p = fieldsPos;
  if (p >= end || buf[p] !== 0x7b) return undefined; // {
  p++;
  const out: Record<string, unknown> = {};
  if (p < end && buf[p] === 0x7d) {
    // }
    fieldsPos = p + 1;
    return out;
  }
  for (;;) {
    if (p >= end || buf[p] !== 0x22) return undefined; // "
    const keyStart = ++p;
    let escaped = false;
    while (p < end && buf[p] !== 0x22) {
      // Control characters (invalid JSON) are left to JSON.parse of the whole tree.
      if (buf[p]! < 0x20) return undefined;
      if (buf[p] === 0x5c) {
        // \ and the character it escapes (of \uXXXX, the u: the hex digits follow as plain ones).
        escaped = true;
        p += 2;
      } else p++;
    }
    if (p >= end || buf[p] !== 0x22) return undefined;
    const key = escaped ? escapedKey(buf, keyStart - 1, p + 1) : textAt(r, keyStart, p);
    if (key === undefined) return undefined;
    // An assignment to __proto__ would set the prototype, where JSON.parse makes a property.
    if (key === '__proto__') return undefined;
    p++;
    if (p >= end || buf[p] !== 0x3a) return undefined; // :
    fieldsPos = p + 1;
    const value = readFieldsObject(r, end, depth + 1);
    if (value === undefined) return undefined;
    out[key] = value;
    p = fieldsPos;
    if (p < end && buf[p] === 0x2c) {
      // ,
      p++;
      continue;
    }
    if (p < end && buf[p] === 0x7d) {
      fieldsPos = p + 1;
      return out;
    }
    return undefined;
  }
}

/** The JSON string literal from `start` (its opening quote) to `stop` (after its closing one); undefined when it is not one. */
function escapedKey(buf: Reader['buf'], start: number, stop: number): string | undefined {
  try {
    const key: unknown = JSON.parse(buf.utf8Slice(start, stop));
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}
