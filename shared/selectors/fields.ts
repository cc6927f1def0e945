/**
 * Field selectors (k8s.io/apimachinery/pkg/fields): the `fieldSelector` query grammar and matching.
 *
 * Grammar: terms separated by unescaped ','; each term is `field=value`, `field==value` or `field!=value`,
 * split at the first operator. In values `\\`, `\,` and `\=` stand for `\`, `,` and `=`; no other escape
 * is allowed and `=` must be escaped. Nothing is trimmed: whitespace belongs to the field or value.
 */

import { SelectorParseError } from './errors.ts';
import { compareGoStrings, goQuote } from '../go/format.ts';

/** `==` parses to `=`, as upstream's requirements report it. */
export type FieldOperator = '=' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

export interface FieldSelector {
  /** In upstream's order: terms sorted by their text before parsing. */
  readonly requirements: readonly FieldRequirement[];
}

/** Selects every object: the empty selector. */
export const fieldSelectorEverything: FieldSelector = Object.freeze({ requirements: Object.freeze([]) });

/** Splits at commas not preceded by an escaping backslash. */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

/** Upstream tries `!=`, `==`, `=` at each position in turn, so the leftmost operator wins. */
const termOperators = ['!=', '==', '='] as const;

function splitTerm(term: string): { field: string; op: (typeof termOperators)[number]; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), op, value: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Upstream's UnescapeValue; its unescaped-character message shows the character's code point number. */
function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      throw new SelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new SelectorParseError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Escapes a value so that parsing the result gives it back (upstream's EscapeValue). */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Parses a `fieldSelector` query value as upstream's fields.ParseSelector does. The empty string selects
 * everything, and so do terms with neither field nor value (`=`). Throws SelectorParseError with upstream's
 * message for a term without an operator or a badly escaped value.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const requirements: FieldRequirement[] = [];
  for (const part of splitTerms(text).sort(compareGoStrings)) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (!term) throw new SelectorParseError(`invalid selector: '${text}'; can't understand '${part}'`);
    const value = unescapeValue(term.value);
    if (term.field === '' && value === '') continue;
    requirements.push({ field: term.field, operator: term.op === '!=' ? '!=' : '=', value });
  }
  return { requirements };
}

/** The (field, operator, value) triples of a selector. */
export function requirements(selector: FieldSelector): readonly FieldRequirement[] {
  return selector.requirements;
}

export function fieldSelectorIsEverything(selector: FieldSelector): boolean {
  return selector.requirements.length === 0;
}

/**
 * Whether an object's fields satisfy every term. `get` answers a field's value as text; a field it does
 * not know reads as the empty string, so `f=` matches and `f!=x` matches objects lacking f.
 */
export function matchesFields(selector: FieldSelector, get: (field: string) => string | undefined): boolean {
  return selector.requirements.every((r) => ((get(r.field) ?? '') === r.value) === (r.operator === '='));
}

/** The value a selector pins a field to with `=`, as upstream's RequiresExactMatch (used for indexes). */
export function requiresExactFieldMatch(selector: FieldSelector, field: string): string | undefined {
  return selector.requirements.find((r) => r.operator === '=' && r.field === field)?.value;
}

/** The canonical text of a selector, as upstream's String(). */
export function fieldSelectorString(selector: FieldSelector): string {
  return selector.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
}

/**
 * Rewrites each term as upstream's Selector.Transform does with a kind's field label conversion:
 * `convert` returns the (possibly renamed) field and value, or throws to reject the term; a result with
 * neither field nor value drops the term. Terms are converted in selector order, so the first bad one throws.
 */
export function transformFieldSelector(
  selector: FieldSelector,
  convert: (field: string, value: string) => readonly [field: string, value: string],
): FieldSelector {
  const out: FieldRequirement[] = [];
  for (const r of selector.requirements) {
    const [field, value] = convert(r.field, r.value);
    if (field !== '' || value !== '') out.push({ field, operator: r.operator, value });
  }
  return { requirements: out };
}

/** The selector's fields outside `supported`, each once, in selector order (the first is the one upstream reports). */
export function unsupportedFieldLabels(selector: FieldSelector, supported: ReadonlySet<string>): string[] {
  return [...new Set(selector.requirements.map((r) => r.field).filter((f) => !supported.has(f)))];
}

/** Upstream's message for a field a kind's own field label conversion does not know (a 400 BadRequest). */
export function fieldLabelNotSupportedMessage(field: string): string {
  return `field label not supported: ${field}`;
}

/**
 * Upstream's message for a field of a kind without its own field label conversion, which supports only
 * metadata.name and metadata.namespace (DefaultMetaV1FieldSelectorConversion).
 */
export function notKnownFieldSelectorMessage(field: string): string {
  return `${goQuote(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
}
