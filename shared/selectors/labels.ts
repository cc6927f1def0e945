/**
 * Label selectors (k8s.io/apimachinery/pkg/labels): the `labelSelector` query grammar, metav1.LabelSelector
 * objects, and matching. Parse errors carry upstream's exact text, since clients show it to people.
 *
 * Grammar: requirements separated by ',' ; each is `key`, `!key`, `key=v`, `key==v`, `key!=v`,
 * `key in (v1,v2)`, `key notin (v1,v2)`, `key>n` or `key<n`. Whitespace (space, tab, CR, LF) separates
 * tokens; keys must be qualified names and values label values.
 */

import { isQualifiedName, isValidLabelValue } from '../validation/names.ts';
import { SelectorParseError } from './errors.ts';
import { compareGoStrings, goQuote, goStringSlice } from '../go/format.ts';

/** Upstream's selection.Operator values that label requirements use. */
export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

export interface LabelSelector {
  /** Sorted by key, as upstream keeps them. */
  readonly requirements: readonly LabelRequirement[];
  /** Upstream's labels.Nothing(): the selector of a nil metav1.LabelSelector, which selects no object. */
  readonly matchesNothing: boolean;
}

/** A metav1.LabelSelectorRequirement as it appears in objects; a missing key or operator is Go's "". */
export interface LabelSelectorRequirementObject {
  key?: string;
  operator?: string;
  values?: readonly string[] | null;
}

/** A metav1.LabelSelector as it appears in objects. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: readonly LabelSelectorRequirementObject[] | null;
}

/** Selects every object: the empty selector. */
export const labelSelectorEverything: LabelSelector = Object.freeze({ requirements: Object.freeze([]), matchesNothing: false });
/** Selects no object: what an absent metav1.LabelSelector means. */
export const labelSelectorNothing: LabelSelector = Object.freeze({ requirements: Object.freeze([]), matchesNothing: true });

/** The order upstream lists operators in "expected:" messages. */
const binaryOperators: readonly LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

/** One problem in a requirement, formatted as upstream's field.Error (the path is relative, never rooted). */
function fieldError(field: string, value: string, detail: string): string {
  return `${field}: Invalid value: ${value}: ${detail}`;
}

/** Upstream's error aggregate text: duplicates dropped, one error bare, several in brackets. */
function aggregate(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

function keyError(key: string, field: string): string | undefined {
  const msgs = isQualifiedName(key);
  return msgs.length ? fieldError(field, goQuote(key), msgs.join('; ')) : undefined;
}

const int64Pattern = /^[+-]?[0-9]+$/;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64), or undefined where it fails. */
function parseInt64(s: string): bigint | undefined {
  if (!int64Pattern.test(s)) return undefined;
  const n = BigInt(s);
  return n < int64Min || n > int64Max ? undefined : n;
}

/**
 * Upstream's labels.NewRequirement: checks the key, the number of values for the operator and each value.
 * Throws SelectorParseError with the aggregated field errors (paths `key`, `values`, `values[i][key]`).
 */
export function newRequirement(key: string, operator: LabelOperator, values: readonly string[] | null): LabelRequirement {
  const errors: string[] = [];
  const ke = keyError(key, 'key');
  if (ke) errors.push(ke);
  const vals = values ?? [];
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0) errors.push(fieldError('values', goStringSlice(values), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) errors.push(fieldError('values', goStringSlice(values), 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) errors.push(fieldError('values', goStringSlice(values), 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) errors.push(fieldError('values', goStringSlice(values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) errors.push(fieldError(`values[${i}]`, goQuote(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  vals.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errors.push(fieldError(`values[${i}][${key}]`, goQuote(v), msgs.join('; ')));
  });
  if (errors.length) throw new SelectorParseError(aggregate(errors));
  return { key, operator, values: [...vals] };
}

function sortedByKey(requirements: LabelRequirement[]): LabelRequirement[] {
  return requirements.sort((a, b) => compareGoStrings(a.key, b.key));
}

// ---- lexer ----

const Token = {
  Error: 0,
  EndOfString: 1,
  ClosedPar: 2,
  Comma: 3,
  DoesNotExist: 4,
  DoubleEquals: 5,
  Equals: 6,
  GreaterThan: 7,
  Identifier: 8,
  In: 9,
  LessThan: 10,
  NotEquals: 11,
  NotIn: 12,
  OpenPar: 13,
} as const;
type Token = (typeof Token)[keyof typeof Token];

const keywords = new Map<string, Token>([
  [')', Token.ClosedPar],
  [',', Token.Comma],
  ['!', Token.DoesNotExist],
  ['==', Token.DoubleEquals],
  ['=', Token.Equals],
  ['>', Token.GreaterThan],
  ['in', Token.In],
  ['<', Token.LessThan],
  ['!=', Token.NotEquals],
  ['notin', Token.NotIn],
  ['(', Token.OpenPar],
]);

interface Scanned {
  tok: Token;
  literal: string;
}

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => ch.length === 1 && '=!(),><'.includes(ch);
/** Upstream's lexer reads a NUL byte as the end of input; so does this one. */
const END = '\0';

class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  private read(): string {
    if (this.pos < this.s.length) return this.s[this.pos++] ?? END;
    return END;
  }

  private unread(): void {
    this.pos--;
  }

  private scanIdOrKeyword(): Scanned {
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
    }
    return { tok: keywords.get(buffer) ?? Token.Identifier, literal: buffer };
  }

  /** The longest run of special symbols that is still a token (so `!=` is one token, `=!` two). */
  private scanSpecialSymbol(): Scanned {
    let last: Scanned | undefined;
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (!isSpecialSymbol(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
      const tok = keywords.get(buffer);
      if (tok !== undefined) {
        last = { tok, literal: buffer };
      } else if (last) {
        this.unread();
        break;
      }
    }
    return last ?? { tok: Token.Error, literal: `error expected: keyword found '${buffer}'` };
  }

  lex(): Scanned {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === END) return { tok: Token.EndOfString, literal: '' };
    this.unread();
    return isSpecialSymbol(ch) ? this.scanSpecialSymbol() : this.scanIdOrKeyword();
  }
}

// ---- parser ----

/** Where the parser is: inside value lists (and at keys) `in` and `notin` are plain identifiers. */
type Context = 'keyAndOperator' | 'values';

class Parser {
  private readonly items: Scanned[] = [];
  private position = 0;

  constructor(text: string) {
    const lexer = new Lexer(text);
    for (;;) {
      const item = lexer.lex();
      this.items.push(item);
      if (item.tok === Token.EndOfString) break;
    }
  }

  private static inContext(item: Scanned | undefined, context: Context): Scanned {
    const it = item ?? { tok: Token.EndOfString, literal: '' };
    if (context === 'values' && (it.tok === Token.In || it.tok === Token.NotIn)) return { tok: Token.Identifier, literal: it.literal };
    return it;
  }

  private lookahead(context: Context): Scanned {
    return Parser.inContext(this.items[this.position], context);
  }

  private consume(context: Context): Scanned {
    return Parser.inContext(this.items[this.position++], context);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, literal } = this.lookahead('values');
      if (tok === Token.EndOfString) return requirements;
      if (tok !== Token.Identifier && tok !== Token.DoesNotExist) {
        throw new SelectorParseError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.parseRequirement());
      } catch (e) {
        if (e instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const next = this.consume('values');
      if (next.tok === Token.EndOfString) return requirements;
      if (next.tok !== Token.Comma) throw new SelectorParseError(`found '${next.literal}', expected: ',' or 'end of string'`);
      const after = this.lookahead('values');
      if (after.tok !== Token.Identifier && after.tok !== Token.DoesNotExist) {
        throw new SelectorParseError(`found '${after.literal}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator: inferred } = this.parseKeyAndInferOperator();
    if (inferred) return newRequirement(key, inferred, []);
    const operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, operator, [...values].sort(compareGoStrings));
  }

  private parseKeyAndInferOperator(): { key: string; operator?: 'exists' | '!' } {
    let operator: 'exists' | '!' | undefined;
    let item = this.consume('values');
    if (item.tok === Token.DoesNotExist) {
      operator = '!';
      item = this.consume('values');
    }
    if (item.tok !== Token.Identifier) throw new SelectorParseError(`found '${item.literal}', expected: identifier`);
    // Upstream parses with a nil field path, which prints as "<nil>".
    const ke = keyError(item.literal, '<nil>');
    if (ke) throw new SelectorParseError(ke);
    const next = this.lookahead('values').tok;
    if ((next === Token.EndOfString || next === Token.Comma) && operator !== '!') operator = 'exists';
    return operator ? { key: item.literal, operator } : { key: item.literal };
  }

  private parseOperator(): LabelOperator {
    const { tok, literal } = this.consume('keyAndOperator');
    switch (tok) {
      case Token.In:
        return 'in';
      case Token.Equals:
        return '=';
      case Token.DoubleEquals:
        return '==';
      case Token.GreaterThan:
        return 'gt';
      case Token.LessThan:
        return 'lt';
      case Token.NotIn:
        return 'notin';
      case Token.NotEquals:
        return '!=';
      default:
        throw new SelectorParseError(`found '${literal}', expected: ${binaryOperators.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume('values');
    if (open.tok !== Token.OpenPar) throw new SelectorParseError(`found '${open.literal}' expected: '('`);
    const { tok, literal } = this.lookahead('values');
    switch (tok) {
      case Token.Identifier:
      case Token.Comma: {
        const values = this.parseIdentifiersList();
        // Upstream reports the literal it looked at before the list here.
        if (this.consume('values').tok !== Token.ClosedPar) throw new SelectorParseError(`found '${literal}', expected: ')'`);
        return values;
      }
      case Token.ClosedPar:
        this.consume('values');
        return new Set(['']);
      default:
        throw new SelectorParseError(`found '${literal}', expected: ',', ')' or identifier`);
    }
  }

  /** Empty entries (`(,a)`, `(a,)`, `(a,,b)`) stand for the empty value. */
  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, literal } = this.consume('values');
      if (tok === Token.Identifier) {
        values.add(literal);
        const next = this.lookahead('values');
        if (next.tok === Token.Comma) continue;
        if (next.tok === Token.ClosedPar) return values;
        throw new SelectorParseError(`found '${next.literal}', expected: ',' or ')'`);
      }
      if (tok === Token.Comma) {
        if (values.size === 0) values.add('');
        const next = this.lookahead('values').tok;
        if (next === Token.ClosedPar) {
          values.add('');
          return values;
        }
        if (next === Token.Comma) {
          this.consume('values');
          values.add('');
        }
        continue;
      }
      throw new SelectorParseError(`found '${literal}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead('values').tok;
    if (next === Token.EndOfString || next === Token.Comma) return new Set(['']);
    const { tok, literal } = this.consume('values');
    if (tok === Token.Identifier) return new Set([literal]);
    throw new SelectorParseError(`found '${literal}', expected: identifier`);
  }
}

/**
 * Parses a `labelSelector` query value as upstream's labels.Parse does. The empty string selects everything.
 * Throws SelectorParseError with upstream's message (which the API answers as a 400 BadRequest).
 */
export function parseLabelSelector(text: string): LabelSelector {
  return { requirements: sortedByKey(new Parser(text).parse()), matchesNothing: false };
}

const objectOperators: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * The selector of a metav1.LabelSelector (upstream's LabelSelectorAsSelector): absent selects nothing,
 * empty selects everything. Throws SelectorParseError for an unknown operator or an invalid requirement.
 */
export function labelSelectorFromObject(ls: LabelSelectorObject | null | undefined): LabelSelector {
  if (!ls) return labelSelectorNothing;
  const matchLabels = Object.entries(ls.matchLabels ?? {});
  const matchExpressions = ls.matchExpressions ?? [];
  if (matchLabels.length + matchExpressions.length === 0) return labelSelectorEverything;
  const requirements: LabelRequirement[] = [];
  for (const [k, v] of matchLabels) requirements.push(newRequirement(k, '=', [v]));
  for (const expr of matchExpressions) {
    const operator = expr.operator ?? '';
    const op = Object.hasOwn(objectOperators, operator) ? objectOperators[operator] : undefined;
    if (!op) throw new SelectorParseError(`${goQuote(operator)} is not a valid label selector operator`);
    const values = expr.values && expr.values.length ? expr.values : null;
    requirements.push(newRequirement(expr.key ?? '', op, values));
  }
  return { requirements: sortedByKey(requirements), matchesNothing: false };
}

/** A selector requiring each label of the set to have exactly its value (upstream's SelectorFromSet). */
export function labelSelectorFromSet(set: Record<string, string> | undefined): LabelSelector {
  const entries = Object.entries(set ?? {});
  return { requirements: sortedByKey(entries.map(([key, value]) => ({ key, operator: '=', values: [value] }))), matchesNothing: false };
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (value === undefined || r.values.length !== 1) return false;
      const actual = parseInt64(value);
      const bound = parseInt64(r.values[0] ?? '');
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** Whether an object's labels satisfy every requirement; `!=` and `notin` match objects without the label. */
export function matches(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  if (selector.matchesNothing) return false;
  const ls = labels ?? {};
  return selector.requirements.every((r) => requirementMatches(r, ls));
}

/** True for a selector with no requirements (upstream's Empty()); the nothing selector is not empty. */
export function isEverything(selector: LabelSelector): boolean {
  return !selector.matchesNothing && selector.requirements.length === 0;
}

/** The value a selector pins a label to (`=`, `==`, or `in` with one value), as upstream's RequiresExactMatch. */
export function requiresExactMatch(selector: LabelSelector, label: string): string | undefined {
  const r = selector.requirements.find((req) => req.key === label);
  if (!r || r.values.length !== 1) return undefined;
  return r.operator === '=' || r.operator === '==' || r.operator === 'in' ? r.values[0] : undefined;
}

function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const symbol: Record<Exclude<LabelOperator, 'exists' | '!'>, string> = {
    '=': '=',
    '==': '==',
    '!=': '!=',
    in: ' in ',
    notin: ' notin ',
    gt: '>',
    lt: '<',
  };
  const values = r.values.length === 1 ? (r.values[0] ?? '') : [...r.values].sort(compareGoStrings).join(',');
  const list = r.operator === 'in' || r.operator === 'notin' ? `(${values})` : values;
  return `${r.key}${symbol[r.operator]}${list}`;
}

/** The canonical text of a selector, as upstream's String(); parsing it yields an equal selector. */
export function labelSelectorString(selector: LabelSelector): string {
  return selector.requirements.map(requirementString).join(',');
}
