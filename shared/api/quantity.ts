/**
 * resource.Quantity on the wire: a string such as `100m`, `1Gi`, `2e3`, or a bare number.
 * Parsing follows upstream's grammar: a signed decimal number, then an optional binary SI suffix
 * (Ki…Ei), decimal SI suffix (n, u, m, k, M…E) or decimal exponent (e3, E-2).
 */

export const quantityRegexText = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
const numberRe = /^[+-]?(\d+\.?\d*|\.\d+)$/;
const suffixes: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The numeric value of a quantity (approximate beyond 2^53), or null when it is not one. */
export function parseQuantity(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const m = /^([+-]?[0-9.]+)(.*)$/.exec(value);
  if (!m) return null;
  const [, num = '', suffix = ''] = m;
  if (!numberRe.test(num)) return null;
  const base = Number(num);
  const multiplier = suffixes[suffix];
  if (multiplier !== undefined) return base * multiplier;
  const exp = /^[eE]([+-]?\d+)$/.exec(suffix);
  if (exp) return base * 10 ** Number(exp[1]);
  return null;
}

export function isQuantity(value: unknown): boolean {
  return parseQuantity(value) !== null;
}

/** Upstream's decode error text for a malformed quantity. */
export const quantityFormatError = `quantities must match the regular expression '${quantityRegexText}'`;
