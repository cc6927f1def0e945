/**
 * Go's encoding/json errors for bytes that are not the JSON a target accepts, worded as Go words
 * them, because upstream returns them to clients (a docker config secret's `.dockerconfigjson`). The
 * scanner follows encoding/json's states so that the reported character and context ("after object
 * key", "in string literal", ...) are the ones kubectl users see.
 */
import { goQuote } from './format.ts';

type Container = 'key' | 'value' | 'array';
type State = (c: number) => void;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const escapes = new Set([...'bfnrt\\/"'].map((ch) => ch.charCodeAt(0)));

/** encoding/json's quoteChar: a byte as a single-quoted Go character literal (strconv.Quote of its rune). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  return `'${goQuote(String.fromCharCode(c)).slice(1, -1)}'`;
}

/** The syntax error Go reports for input, or null when it is one well-formed JSON value. */
export function jsonSyntaxError(input: Uint8Array): string | null {
  const stack: Container[] = [];
  let endTop = false;
  let error: string | null = null;
  const fail = (c: number, context: string): void => {
    error = `invalid character ${quoteChar(c)} ${context}`;
  };

  const endOfTop: State = (c) => {
    if (!isSpace(c)) fail(c, 'after top-level value');
  };
  const pop = (): void => {
    stack.pop();
    if (stack.length === 0) {
      step = endOfTop;
      endTop = true;
    } else step = endValue;
  };
  const endValue: State = (c) => {
    const top = stack.length - 1;
    if (top < 0) {
      step = endOfTop;
      endTop = true;
      return endOfTop(c);
    }
    if (isSpace(c)) {
      step = endValue;
      return;
    }
    switch (stack[top]) {
      case 'key':
        if (c === 0x3a) {
          stack[top] = 'value';
          step = beginValue;
        } else fail(c, 'after object key');
        return;
      case 'value':
        if (c === 0x2c) {
          stack[top] = 'key';
          step = beginString;
        } else if (c === 0x7d) pop();
        else fail(c, 'after object key:value pair');
        return;
      case 'array':
        if (c === 0x2c) step = beginValue;
        else if (c === 0x5d) pop();
        else fail(c, 'after array element');
    }
  };
  const literal =
    (word: string, at: number): State =>
    (c) => {
      if (c !== word.charCodeAt(at)) return fail(c, `in literal ${word} (expecting '${word[at]}')`);
      step = at + 1 === word.length ? endValue : literal(word, at + 1);
    };
  const inString: State = (c) => {
    if (c === 0x22) step = endValue;
    else if (c === 0x5c) step = inEscape;
    else if (c < 0x20) fail(c, 'in string literal');
  };
  const inEscape: State = (c) => {
    if (escapes.has(c)) step = inString;
    else if (c === 0x75) step = hexEscape(4);
    else fail(c, 'in string escape code');
  };
  const hexEscape =
    (left: number): State =>
    (c) => {
      if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
      step = left === 1 ? inString : hexEscape(left - 1);
    };
  const afterNumber = (c: number, next: State): void => {
    if (isDigit(c)) step = next;
    else endValue(c);
  };
  const exponentDigits: State = (c) => afterNumber(c, exponentDigits);
  const exponentSign: State = (c) => {
    if (isDigit(c)) step = exponentDigits;
    else fail(c, 'in exponent of numeric literal');
  };
  const exponent: State = (c) => {
    if (c === 0x2b || c === 0x2d) step = exponentSign;
    else exponentSign(c);
  };
  const fraction: State = (c) => {
    if (c === 0x65 || c === 0x45) step = exponent;
    else afterNumber(c, fraction);
  };
  const decimalPoint: State = (c) => {
    if (isDigit(c)) step = fraction;
    else fail(c, 'after decimal point in numeric literal');
  };
  const zero: State = (c) => {
    if (c === 0x2e) step = decimalPoint;
    else if (c === 0x65 || c === 0x45) step = exponent;
    else endValue(c);
  };
  const integer: State = (c) => {
    if (isDigit(c)) step = integer;
    else zero(c);
  };
  const negative: State = (c) => {
    if (c === 0x30) step = zero;
    else if (c >= 0x31 && c <= 0x39) step = integer;
    else fail(c, 'in numeric literal');
  };
  const beginValue: State = (c) => {
    if (isSpace(c)) return;
    if (c === 0x7b) {
      stack.push('key');
      step = beginStringOrEmpty;
    } else if (c === 0x5b) {
      stack.push('array');
      step = beginValueOrEmpty;
    } else if (c === 0x22) step = inString;
    else if (c === 0x2d) step = negative;
    else if (c === 0x30) step = zero;
    else if (c >= 0x31 && c <= 0x39) step = integer;
    else if (c === 0x74) step = literal('true', 1);
    else if (c === 0x66) step = literal('false', 1);
    else if (c === 0x6e) step = literal('null', 1);
    else fail(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty: State = (c) => {
    if (isSpace(c)) return;
    if (c === 0x5d) endValue(c);
    else beginValue(c);
  };
  const beginString: State = (c) => {
    if (isSpace(c)) return;
    if (c === 0x22) step = inString;
    else fail(c, 'looking for beginning of object key string');
  };
  const beginStringOrEmpty: State = (c) => {
    if (isSpace(c)) return;
    if (c === 0x7d) {
      stack[stack.length - 1] = 'value';
      endValue(c);
    } else beginString(c);
  };

  let step: State = beginValue;
  for (const c of input) {
    step(c);
    if (error) return error;
  }
  if (endTop) return null;
  // Go feeds a space at the end so that a number in progress completes (or fails, as "1." does).
  step(0x20);
  if (error) return error;
  return endTop ? null : 'unexpected end of JSON input';
}

/** The error of Go's json.Unmarshal(input, &map[string]interface{}{}), or null. */
export function jsonUnmarshalMapError(input: Uint8Array): string | null {
  const syntax = jsonSyntaxError(input);
  if (syntax) return syntax;
  const first = input.find((c) => !isSpace(c));
  const kind =
    first === 0x7b || first === 0x6e ? null : first === 0x5b ? 'array' : first === 0x22 ? 'string' : first === 0x74 || first === 0x66 ? 'bool' : 'number';
  return kind ? `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}` : null;
}
