/**
 * The error selector parsing throws. Callers answer a SelectorParseError with a 400 BadRequest whose
 * message is the error's message, unchanged.
 */

/** A malformed label or field selector; the message is upstream's, word for word. */
export class SelectorParseError extends Error {
  override readonly name = 'SelectorParseError';
}
