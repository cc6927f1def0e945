/**
 * Go's two readings of a boolean text, which upstream uses in different places and which disagree:
 * - strconv.ParseBool, for flags (`--anonymous-auth`), `--runtime-config` values and `?pretty`:
 *   exactly `1 t T TRUE true True` and `0 f F FALSE false False`, anything else an error;
 * - the query-parameter conversion of meta/v1 options (apimachinery's Convert_Slice_string_To_bool
 *   and its pointer twin), for `watch`, `allowWatchBookmarks`, `sendInitialEvents` and `force`:
 *   false when absent, `0` or `false` in any case, true for anything else, the empty text included.
 */
import { goQuote } from './format.ts';

const trueTexts = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const falseTexts = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** strconv.ParseBool's error: its message is what Go prints (`strconv.ParseBool: parsing "x": invalid syntax`). */
export class ParseBoolError extends Error {
  constructor(readonly text: string) {
    super(`strconv.ParseBool: parsing ${goQuote(text)}: invalid syntax`);
  }
}

/** strconv.ParseBool: the boolean, or undefined where Go returns an error. */
export function tryParseBool(text: string): boolean | undefined {
  if (trueTexts.has(text)) return true;
  if (falseTexts.has(text)) return false;
  return undefined;
}

/** strconv.ParseBool; throws ParseBoolError where Go returns an error. */
export function parseBool(text: string): boolean {
  const value = tryParseBool(text);
  if (value === undefined) throw new ParseBoolError(text);
  return value;
}

/**
 * A boolean query parameter of meta/v1 options, from its first value (`null` when absent), as
 * upstream's parameter conversion reads it: never an error.
 */
export function queryBool(value: string | null): boolean {
  if (value === null) return false;
  // strings.EqualFold: the long s (U+017F) folds to s, no other character to a letter of "false".
  return value !== '0' && value.replace(/\u017f/g, 's').toLowerCase() !== 'false';
}
