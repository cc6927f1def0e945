/**
 * The `Warning` response headers (RFC 7234 §5.5) as upstream's warning recorder writes them:
 * `299 - "<text>"`, `"` and `\` escaped inside the quoted text, the text's UTF-8 bytes sent as
 * they are; duplicates once; and a budget of 4,096 characters for all texts together, past which
 * every text is cut to 256 characters and, once even that is spent, further texts are dropped.
 *
 * Warning texts often quote client input (an unknown field's name, a duplicated key), and Node
 * refuses to write a header holding a character above U+00FF or a control character: before this
 * module, such a warning made writing the response throw after the write had committed. Upstream's
 * NewWarningHeader refuses texts that hold control characters or are not valid UTF-8, and its
 * recorder drops those warnings; so do we. Every other text becomes its UTF-8 bytes, each carried
 * by one latin1 character, which Node writes unchanged: the bytes on the wire are upstream's.
 */

/** Upstream's truncateAtTotalRunes and truncateItemRunes. */
const maxTotalCharacters = 4 * 1024;
const maxCharactersWhenTruncating = 256;

/** Go's unicode.IsControl (C0, DEL, C1) and lone surrogates (text that is not valid UTF-8). */
const unsendable = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** One header value for `text`, or undefined when upstream's NewWarningHeader refuses it. */
export function warningHeaderValue(text: string): string | undefined {
  if (unsendable.test(text)) return undefined;
  return `299 - "${Buffer.from(text.replace(/["\\]/g, '\\$&'), 'utf8').toString('latin1')}"`;
}

/** The Warning header values of a response for the texts recorded in order, after upstream's dedup and budget. */
export function warningHeaderValues(texts: readonly string[]): string[] {
  const distinct = [...new Set(texts)].filter((text) => text.length > 0).map((text) => [...text]);
  const total = distinct.reduce((sum, chars) => sum + chars.length, 0);
  const truncating = total > maxTotalCharacters;
  const values: string[] = [];
  let written = 0;
  for (let chars of distinct) {
    if (truncating) {
      if (written >= maxTotalCharacters) break;
      if (chars.length > maxCharactersWhenTruncating) chars = chars.slice(0, maxCharactersWhenTruncating);
    }
    const value = warningHeaderValue(chars.join(''));
    if (value === undefined) continue;
    written += chars.length;
    values.push(value);
  }
  return values;
}
