/**
 * Go's formatting and ordering of strings, which upstream's messages and sort orders depend on:
 * unicode.IsPrint, %q quoting, %#v of a []string, and bytewise UTF-8 string order.
 */

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go's unicode.IsPrint (and strconv.IsPrint) of one character: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export const isGoPrint = (ch: string): boolean => printable.test(ch);

const namedEscapes: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** Go's %q of a string (strconv.Quote): printable runes stay, the rest are escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else if (isGoPrint(ch)) out += ch;
    else if (namedEscapes[ch] !== undefined) out += namedEscapes[ch];
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out + '"';
}

/** Go's %#v of a []string; `null` stands for a nil slice. */
export function goStringSlice(values: readonly string[] | null): string {
  if (values === null) return '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/** Maps a UTF-16 code unit so that unit order equals code point (and so UTF-8 byte) order. */
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/** Go's string ordering (bytewise UTF-8), which upstream uses to sort keys, values and terms. */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}
