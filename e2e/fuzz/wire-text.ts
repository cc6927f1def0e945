/**
 * Text that becomes bytes on the wire, with two escapes that JSON.stringify and YAML stringify
 * carry through untouched:
 *
 * - raw bytes: a character U+F800..U+F8FF (private use) stands for the single byte 0x00..0xFF,
 *   so that bodies and paths can hold bytes that are not UTF-8 (a raw `\xff` in a key);
 * - holes: a string equal to `hole(n)` is replaced by raw text (`spliceHoles`), so that a value
 *   no JS object can hold without recursion (10,000 levels of nesting) or at all (`1e400`) sits at
 *   any place of a serialized object.
 */

const rawByteBase = 0xf800;

/** The character standing for one raw byte. */
export function rawByte(byte: number): string {
  return String.fromCharCode(rawByteBase + (byte & 0xff));
}

/** UTF-8 bytes of `text`, each raw-byte character written as its byte. */
export function toWire(text: string): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= rawByteBase && c <= rawByteBase + 0xff) {
      if (i > from) parts.push(Buffer.from(text.slice(from, i), 'utf8'));
      parts.push(Buffer.of(c - rawByteBase));
      from = i + 1;
    }
  }
  if (from === 0) return Buffer.from(text, 'utf8');
  if (from < text.length) parts.push(Buffer.from(text.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

/**
 * A request target for HTTP/1.1, where every character is sent as one byte: raw-byte characters
 * become their byte, other characters above U+00FF are sent as their UTF-8 bytes, and characters
 * the client may not send in a request line (controls, space, DEL) are percent-encoded.
 */
export function toRequestTarget(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (c >= rawByteBase && c <= rawByteBase + 0xff) out += String.fromCharCode(c - rawByteBase);
    else if (c <= 0x20 || c === 0x7f) out += `%${c.toString(16).padStart(2, '0').toUpperCase()}`;
    else if (c <= 0xff) out += ch;
    else out += Buffer.from(ch, 'utf8').toString('latin1');
  }
  return out;
}

/** A request target for HTTP/2: `:path` is a UTF-8 header value; controls and spaces are percent-encoded. */
export function toHttp2Path(text: string): string {
  return toRequestTarget(text).replace(/[\u0080-\u00ff]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The placeholder string for hole `n`: plain ASCII, so that JSON and YAML write it unquoted or plainly quoted. */
export function hole(n: number): string {
  return `__FUZZ_HOLE_${n}__`;
}

/** Replaces each placeholder, as serialized (`"<hole>"` in JSON, bare or quoted in YAML), by its raw text. */
export function spliceHoles(serialized: string, texts: readonly string[]): string {
  return serialized.replace(/["']?__FUZZ_HOLE_(\d+)__["']?/g, (_m, n: string) => texts[Number(n)] ?? 'null');
}
