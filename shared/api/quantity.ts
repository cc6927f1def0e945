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

/**
 * A quantity as upstream's ParseQuantity reads it: value = `unscaled` × 10^`exponent`, exactly; the
 * format the suffix chose; and `verbatim` when upstream keeps the text it parsed as its String()
 * (it does so for text already canonical by its cheap test, which keeps a `+` or leading zeros).
 */
interface ExactQuantity {
  unscaled: bigint;
  exponent: number;
  format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
  verbatim: boolean;
}

const decimalSIExponents: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySIExponents: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const suffixChars = 'eEinumkKMGTP';
/** Quantities are rounded up (away from zero) to nano precision when parsed. */
const nanoExponent = -9;
/** A BinarySI quantity is capped at the largest int64. */
const maxInt64 = (1n << 63n) - 1n;
/** Upstream's int64 fast path takes at most this many digits. */
const maxInt64Factors = 18;
const int64Min = -(1n << 63n);

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * Splits upstream's way: sign, integer digits without leading zeros ('0' when none), fraction
 * digits, suffix; `numeric` is the text of the signed number. Null when the text is malformed.
 */
function scanQuantity(text: string): { negative: boolean; numeric: string; int: string; frac: string; suffix: string } | null {
  let pos = 0;
  const end = text.length;
  const negative = text[0] === '-';
  if (text[0] === '-' || text[0] === '+') pos++;
  while (pos < end && text[pos] === '0') pos++;
  if (pos >= end) return { negative, numeric: '0', int: '0', frac: '', suffix: '' };
  const intStart = pos;
  while (pos < end && isDigit(text[pos])) pos++;
  const int = text.slice(intStart, pos) || '0';
  if (pos >= end) return { negative, numeric: text, int, frac: '', suffix: '' };
  let frac = '';
  if (text[pos] === '.') {
    const fracStart = ++pos;
    while (pos < end && isDigit(text[pos])) pos++;
    frac = text.slice(fracStart, pos);
    if (pos >= end) return { negative, numeric: text, int, frac, suffix: '' };
  }
  const numeric = text.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && suffixChars.includes(text[pos] ?? '')) pos++;
  if (pos < end && (text[pos] === '-' || text[pos] === '+')) pos++;
  while (pos < end && isDigit(text[pos])) pos++;
  if (pos < end) return null;
  return { negative, numeric, int, frac, suffix: text.slice(suffixStart) };
}

/** The suffix's base-10 or base-2 exponent and format, as upstream's suffixer interprets it. */
function interpretSuffix(suffix: string): { base: 10 | 2; exponent: number; format: ExactQuantity['format'] } | null {
  const decimal = decimalSIExponents[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: 'DecimalSI' };
  const binary = binarySIExponents[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: 'BinarySI' };
  const exp = /^[eE]([+-]?\d+)$/.exec(suffix);
  if (!exp) return null;
  const parsed = BigInt(exp[1] ?? '');
  if (parsed > maxInt64 || parsed < int64Min) return null; // strconv.ParseInt's range
  // Upstream keeps the exponent in an int32.
  return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
}

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

/** Upstream's ParseQuantity, exactly; null where it fails. */
function parseExact(text: string): ExactQuantity | null {
  if (text === '') return null;
  if (text === '0') return { unscaled: 0n, exponent: 0, format: 'DecimalSI', verbatim: true };
  const scanned = scanQuantity(text);
  if (!scanned) return null;
  const suffix = interpretSuffix(scanned.suffix);
  if (!suffix) return null;
  const { negative, int, frac } = scanned;
  const { format } = suffix;
  const digits = int + frac;

  // The int64 fast path: few enough digits, at most nano precision. Only it keeps the text verbatim.
  let precision = -1;
  let multiplier = 1n;
  let scale = 0;
  if (suffix.base === 10) {
    scale = suffix.exponent;
    precision = maxInt64Factors - digits.length;
  } else if (frac === '') {
    multiplier = 1n << BigInt(suffix.exponent);
    precision = 15 - int.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
  }
  if (precision >= 0 && scale - frac.length >= nanoExponent) {
    scale -= frac.length;
    const value = BigInt(digits);
    const unscaled = (negative ? -value : value) * multiplier;
    const verbatim =
      format === 'BinarySI' ? suffix.exponent % 10 === 0 && (value & 7n) !== 0n : scale % 3 === 0 && !digits.endsWith('000') && digits[0] !== '0';
    return { unscaled, exponent: scale, format, verbatim };
  }

  // The exact path: any size, rounded up to nano precision, BinarySI capped at the largest int64.
  if (!/\d/.test(scanned.numeric)) return null;
  let magnitude = BigInt(digits);
  let exponent = -frac.length;
  if (suffix.base === 10) exponent += suffix.exponent;
  else magnitude <<= BigInt(suffix.exponent);
  if (magnitude !== 0n && exponent < nanoExponent) {
    const shift = nanoExponent - exponent;
    if (shift > digitCount(magnitude)) magnitude = 1n;
    else {
      const divisor = 10n ** BigInt(shift);
      magnitude = (magnitude + divisor - 1n) / divisor;
    }
    exponent = nanoExponent;
  }
  if (format === 'BinarySI' && magnitude > maxInt64 * 10n ** BigInt(-exponent)) {
    magnitude = maxInt64;
    exponent = 0;
  }
  return { unscaled: negative ? -magnitude : magnitude, exponent, format, verbatim: false };
}

/** The integer value of `q`, or null when it has a fraction (only for BinarySI: its exponent is at most 0). */
function integerValue(q: ExactQuantity): bigint | null {
  if (q.exponent >= 0) return q.unscaled * 10n ** BigInt(q.exponent);
  const divisor = 10n ** BigInt(-q.exponent);
  return q.unscaled % divisor === 0n ? q.unscaled / divisor : null;
}

/** Upstream's Quantity.String() of a parsed quantity (CanonicalizeBytes unless kept verbatim). */
function formatExact(q: ExactQuantity, text: string): string {
  if (q.verbatim) return text;
  if (q.unscaled === 0n) return '0';
  if (q.format === 'BinarySI') {
    // BinarySI only for whole values of at least 1024 in magnitude; DecimalSI otherwise, never rounded.
    const whole = integerValue(q);
    if (whole !== null && (whole >= 1024n || whole <= -1024n)) {
      let mantissa = whole;
      let times = 0;
      while (mantissa % 1024n === 0n) {
        mantissa /= 1024n;
        times++;
      }
      const suffix = Object.entries(binarySIExponents).find(([, e]) => e === times * 10)?.[0] ?? '';
      return `${mantissa}${suffix}`;
    }
  }
  // Decimal: no trailing zeros in the mantissa, then the exponent down to a multiple of 3.
  let mantissa = q.unscaled;
  let exponent = q.exponent;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const down = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(down);
  exponent -= down;
  if (q.format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  // Upstream prints no suffix for an exponent beyond its table (1000E prints as 1).
  const suffix = Object.entries(decimalSIExponents).find(([, e]) => e === exponent)?.[0] ?? '';
  return `${mantissa}${suffix}`;
}

/**
 * The quantity as kube-apiserver serves it (resource.Quantity's String() after ParseQuantity), or
 * null when upstream's parser rejects the text. Exact: BigInt arithmetic throughout.
 */
export function tryCanonicalQuantity(text: string): string | null {
  const parsed = parseExact(text);
  return parsed && formatExact(parsed, text);
}

/** The canonical form of a quantity as upstream serves it; text that is no quantity comes back unchanged. */
export function canonicalQuantity(text: string): string {
  return tryCanonicalQuantity(text) ?? text;
}

/**
 * A quantity as decoded JSON holds it (text, or a bare number read as its decimal text) in the form
 * upstream prints it: Quantity.String() after UnmarshalJSON, which trims surrounding whitespace.
 * A value that is no quantity comes back as its trimmed text.
 */
export function quantityString(value: string | number): string {
  return canonicalQuantity(String(value).trim());
}
