/**
 * metav1.Time and metav1.MicroTime as upstream reads and writes them, in one place:
 * - reading is Go's time.Parse with the type's layout (RFC 3339 for Time, RFC 3339 with exactly six
 *   fractional digits for MicroTime), errors included, word for word (`parsing time "yesterday" as
 *   "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`), since upstream returns them
 *   to the client inside a 400;
 * - writing is the types' MarshalJSON: the instant in UTC, Time to the second (the fraction is
 *   dropped, not rounded), MicroTime to the microsecond; Go's zero time is no time at all (null).
 * An instant is Unix seconds and non-negative nanoseconds within the second, as Go's Unix() and
 * Nanosecond() give it: protobuf's Timestamp carries exactly these.
 */

export interface Instant {
  seconds: number;
  nanos: number;
}

export type TimeKind = 'Time' | 'MicroTime';

/** Go's time.RFC3339 and metav1.RFC3339Micro, the layouts the two types parse with. */
export const rfc3339Layout = '2006-01-02T15:04:05Z07:00';
export const rfc3339MicroLayout = '2006-01-02T15:04:05.000000Z07:00';

/** Go's zero time.Time, 0001-01-01T00:00:00Z, in Unix seconds. */
export const zeroTimeSeconds = -62135596800;

/** A time Go's time.Parse refuses; `message` is its ParseError text. */
export class GoTimeParseError extends Error {}

/**
 * Go's time-package quote (not strconv.Quote): `"` and `\` are escaped, every byte of a non-ASCII
 * or control character is written as \xNN. `bytes` holds one UTF-8 byte per character.
 */
function timeQuote(bytes: string): string {
  let out = '"';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    if (c >= 0x80 || c < 0x20) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c === 0x22 || c === 0x5c) out += `\\${bytes[i]}`;
    else out += bytes[i];
  }
  return `${out}"`;
}

const isDigitAt = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Go's time.atoi: an optional sign and digits only; null otherwise. */
function atoi(s: string): number | null {
  let rest = s;
  let negative = false;
  if (rest[0] === '-' || rest[0] === '+') {
    negative = rest[0] === '-';
    rest = rest.slice(1);
  }
  let x = 0;
  for (let i = 0; i < rest.length; i++) {
    if (!isDigitAt(rest, i)) return null;
    x = x * 10 + rest.charCodeAt(i) - 48;
  }
  return negative ? -x : x;
}

/** Go's getnum: one or two digits (`fixed`: exactly two). */
function getnum(s: string, fixed: boolean): [number, string] | null {
  if (!isDigitAt(s, 0)) return null;
  if (!isDigitAt(s, 1)) return fixed ? null : [s.charCodeAt(0) - 48, s.slice(1)];
  return [(s.charCodeAt(0) - 48) * 10 + s.charCodeAt(1) - 48, s.slice(2)];
}

/** Go's parseNanoseconds over `value[0:n]` (a separator then digits, at most nine of them counted). */
function parseNanoseconds(value: string, n: number): { nanos: number; range?: string } | null {
  if (value[0] !== '.' && value[0] !== ',') return null;
  const width = Math.min(n, 10);
  const ns = atoi(value.slice(1, width));
  if (ns === null) return null;
  if (ns < 0) return { nanos: 0, range: 'fractional second' };
  return { nanos: ns * 10 ** (10 - width) };
}

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * One element of a layout: the literal text before it and the element itself, as Go's
 * nextStdChunk splits RFC 3339's two layouts.
 */
type Element = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'micro' | 'zone';
type LayoutElement = readonly [prefix: string, element: Element, text: string];
const dateAndClock: readonly LayoutElement[] = [
  ['', 'year', '2006'],
  ['-', 'month', '01'],
  ['-', 'day', '02'],
  ['T', 'hour', '15'],
  [':', 'minute', '04'],
  [':', 'second', '05'],
];
const zone: LayoutElement = ['', 'zone', 'Z07:00'];
const elements: Record<TimeKind, readonly LayoutElement[]> = {
  Time: [...dateAndClock, zone],
  MicroTime: [...dateAndClock, ['', 'micro', '.000000'], zone],
};

/**
 * Go's time.Parse(layout, text) for the layout of `kind`, as an instant; throws GoTimeParseError
 * with Go's message when Go refuses the text. Go's lenient corners are kept: a one-digit hour, a
 * fraction after a comma or of any length where the layout has none, zone offsets up to 24:60.
 */
export function parseGoTime(text: string, kind: TimeKind): Instant {
  return canonicalUtcInstant(text, kind) ?? parseGoTimeByLayout(text, kind);
}

/**
 * The number `text[from:to]` spells in decimal digits, NaN if any of them is no digit. A function of
 * its own rather than a closure over the text: canonicalUtcInstant runs for every time written.
 */
function digitsAt(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}

/**
 * The instant of a time in the exact form the types write (`2006-01-02T15:04:05Z`, MicroTime with
 * six fractional digits), read by position, as almost every time a client sends is; null for any
 * other text, which parseGoTimeByLayout reads (and where Go's errors come from). For every text
 * it accepts, the result is parseGoTimeByLayout's. Time's layout takes MicroTime's form too (Go
 * reads a fraction the layout lacks), as readers of either type's times (tryParseTime) ask it to.
 * It accepts nothing else (every field in range, years 0000 to 9999): canonicalTime relies on a text
 * it accepts being the canonical text of its instant.
 */
function canonicalUtcInstant(text: string, kind: TimeKind): Instant | null {
  const micro = text.length === 27;
  if (!(micro || (text.length === 20 && kind === 'Time')) || text.charCodeAt(text.length - 1) !== 0x5a /* Z */) return null;
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':' || (micro && text[19] !== '.')) return null;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  const hour = digitsAt(text, 11, 13);
  const minute = digitsAt(text, 14, 16);
  const second = digitsAt(text, 17, 19);
  const nanos = micro ? digitsAt(text, 20, 26) * 1000 : 0;
  // NaN (a non-digit) fails every comparison below.
  if (!(month >= 1 && month <= 12 && hour < 24 && minute < 60 && second < 60 && nanos >= 0 && day >= 1 && year >= 0)) return null;
  if (day > daysIn(month, year)) return null;
  return { seconds: daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second, nanos };
}

/** parseGoTime for any text: Go's parse with the type's layout, element by element. */
export function parseGoTimeByLayout(text: string, kind: TimeKind): Instant {
  // Go indexes bytes: work on one UTF-8 byte per character so that lengths and cuts agree.
  const all = Buffer.from(text, 'utf8').toString('latin1');
  const layout = kind === 'Time' ? rfc3339Layout : rfc3339MicroLayout;
  const cannotParse = (rest: string, element: string): GoTimeParseError =>
    new GoTimeParseError(`parsing time ${timeQuote(all)} as ${timeQuote(layout)}: cannot parse ${timeQuote(rest)} as ${timeQuote(element)}`);
  const failure = (message: string): GoTimeParseError => new GoTimeParseError(`parsing time ${timeQuote(all)}${message}`);

  let value = all;
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let offset = 0;
  for (const [prefix, element, elementText] of elements[kind]) {
    if (!value.startsWith(prefix)) {
      // Go's skip stops at the first byte that differs.
      let same = 0;
      while (same < prefix.length && value[same] === prefix[same]) same++;
      throw cannotParse(value.slice(same), prefix);
    }
    value = value.slice(prefix.length);
    const hold = value;
    let bad = false;
    let range = '';
    switch (element) {
      case 'year': {
        const parsed = value.length >= 4 && isDigitAt(value, 0) ? atoi(value.slice(0, 4)) : null;
        if (parsed === null) bad = true;
        else [year, value] = [parsed, value.slice(4)];
        break;
      }
      case 'month':
      case 'day':
      case 'minute': {
        const got = getnum(value, true);
        if (!got) {
          bad = true;
          break;
        }
        value = got[1];
        if (element === 'month') {
          month = got[0];
          if (month < 1 || month > 12) range = 'month';
        } else if (element === 'day') day = got[0];
        else {
          minute = got[0];
          if (minute >= 60) range = 'minute';
        }
        break;
      }
      case 'hour': {
        const got = getnum(value, false);
        if (!got) bad = true;
        else {
          [hour, value] = got;
          if (hour >= 24) range = 'hour';
        }
        break;
      }
      case 'second': {
        const got = getnum(value, true);
        if (!got) {
          bad = true;
          break;
        }
        [second, value] = got;
        if (second >= 60) {
          range = 'second';
          break;
        }
        // A fraction the layout does not have is read anyway (Time's layout has none).
        if (kind === 'Time' && value.length >= 2 && (value[0] === '.' || value[0] === ',') && isDigitAt(value, 1)) {
          let n = 2;
          while (isDigitAt(value, n)) n++;
          const fraction = parseNanoseconds(value, n);
          if (!fraction) bad = true;
          else {
            nanos = fraction.nanos;
            range = fraction.range ?? '';
          }
          value = value.slice(n);
        }
        break;
      }
      case 'micro': {
        // Exactly the layout's six digits after the separator.
        const fraction = value.length < 7 ? null : parseNanoseconds(value, 7);
        if (!fraction) bad = true;
        else {
          nanos = fraction.nanos;
          range = fraction.range ?? '';
          value = value.slice(7);
        }
        break;
      }
      case 'zone': {
        if (value[0] === 'Z') {
          value = value.slice(1);
          break;
        }
        if (value.length < 6 || value[3] !== ':') {
          bad = true;
          break;
        }
        const sign = value[0];
        const hours = getnum(value.slice(1, 3), true);
        const minutes = hours ? getnum(value.slice(4, 6), true) : null;
        value = value.slice(6);
        const hh = hours ? hours[0] : 0;
        const mm = minutes ? minutes[0] : 0;
        // Go's range test uses > here: offsets of 24 hours or 60 minutes are accepted.
        if (hh > 24) range = 'time zone offset hour';
        if (mm > 60) range = 'time zone offset minute';
        offset = (sign === '-' ? -1 : 1) * (hh * 60 + mm) * 60;
        if (!hours || !minutes || (sign !== '+' && sign !== '-')) bad = true;
        break;
      }
    }
    if (range) throw failure(`: ${range} out of range`);
    if (bad) throw cannotParse(hold, elementText);
  }
  if (value.length > 0) throw failure(`: extra text: ${timeQuote(value)}`);
  if (day < 1 || day > daysIn(month, year)) throw failure(': day out of range');
  return { seconds: daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset, nanos };
}

/** Whether an instant is Go's zero time as the type keeps it (Time drops the fraction). */
export function isZeroTime(instant: Instant, kind: TimeKind): boolean {
  return instant.seconds === zeroTimeSeconds && (kind === 'Time' || instant.nanos < 1000);
}

/** Where a time is written before it becomes a string (civilText): room for any year a Go time holds (12 digits and a sign). */
const scratch = Buffer.allocUnsafe(48);

function putDigits(at: number, value: number, width: number): void {
  for (let i = at + width - 1; i >= at; i--) {
    scratch[i] = 48 + (value % 10);
    value = Math.floor(value / 10);
  }
}

/**
 * `2006-01-02T15:04:05` in UTC (Howard Hinnant's civil_from_days), then `.` and six digits of
 * `micros` when given, then `Z`; years beyond 0..9999 as Go writes them.
 *
 * Written as bytes and read back as one flat string: a string joined from pieces is a tree of
 * them, and a time kept in an object held for long (a lease an agent renews every ten seconds)
 * would keep every piece, hundreds of bytes for a 27-character time.
 */
function civilText(seconds: number, micros: number | undefined): string {
  const days = Math.floor(seconds / 86400);
  let rest = seconds - days * 86400;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(rest / 3600);
  rest -= hour * 3600;
  const minute = Math.floor(rest / 60);
  const second = rest - minute * 60;
  // Four digits, as Go writes years 0..9999; others with a sign or more digits.
  let at = 4;
  if (year >= 0 && year <= 9999) putDigits(0, year, 4);
  else at = scratch.write(year < 0 ? `-${String(-year).padStart(4, '0')}` : String(year), 0, 'latin1');
  scratch[at] = 0x2d; // -
  putDigits(at + 1, month, 2);
  scratch[at + 3] = 0x2d;
  putDigits(at + 4, day, 2);
  scratch[at + 6] = 0x54; // T
  putDigits(at + 7, hour, 2);
  scratch[at + 9] = 0x3a; // :
  putDigits(at + 10, minute, 2);
  scratch[at + 12] = 0x3a;
  putDigits(at + 13, second, 2);
  let end = at + 15;
  if (micros !== undefined) {
    scratch[end++] = 0x2e; // .
    putDigits(end, micros, 6);
    end += 6;
  }
  scratch[end++] = 0x5a; // Z
  return scratch.toString('latin1', 0, end);
}

/** The last time formatted: objects of one list often share their timestamps. */
let lastSeconds = NaN;
let lastText = '';

/** metav1.Time's JSON form of Unix seconds: RFC 3339 in UTC at second precision. */
export function formatTime(seconds: number): string {
  if (seconds !== lastSeconds) {
    lastText = civilText(seconds, undefined);
    lastSeconds = seconds;
  }
  return lastText;
}

/** metav1.MicroTime's JSON form: RFC 3339 in UTC with six fractional digits (nanoseconds truncated). */
export function formatMicroTime(seconds: number, nanos: number): string {
  return civilText(seconds, Math.floor(nanos / 1000));
}

/** metav1.Time's JSON form of a JavaScript date (metav1.Now() as the server writes it). */
export function formatTimeOf(date: Date): string {
  return formatTime(Math.floor(date.getTime() / 1000));
}

/** metav1.MicroTime's JSON form of a JavaScript date (metav1.NowMicro(); dates hold milliseconds). */
export function formatMicroTimeOf(date: Date): string {
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return formatMicroTime(seconds, (ms - seconds * 1000) * 1e6);
}

/**
 * What upstream stores and serves for a time the client wrote: the canonical text, or null for Go's
 * zero time (which Go writes as null, and corral, like an absent field, omits). Throws
 * GoTimeParseError for text Go would not parse.
 */
export function canonicalTime(text: string, kind: TimeKind): string | null {
  const exact = canonicalUtcInstant(text, kind);
  const instant = exact ?? parseGoTimeByLayout(text, kind);
  if (isZeroTime(instant, kind)) return null;
  // A text canonicalUtcInstant reads is already the type's own form, which formatting its instant
  // would build again character for character: it is returned as it came. Not MicroTime's form
  // read as a Time, whose fraction Time drops.
  if (exact !== null && (kind === 'MicroTime' || text.length === 20)) return text;
  return kind === 'Time' ? formatTime(instant.seconds) : formatMicroTime(instant.seconds, instant.nanos);
}

/**
 * An RFC 3339 time as either type reads it (Time's layout, which also takes MicroTime's form), or
 * null: for readers of stored values, which may predate canonical storage.
 */
export function tryParseTime(text: string): Instant | null {
  try {
    return parseGoTime(text, 'Time');
  } catch (err) {
    if (err instanceof GoTimeParseError) return null;
    throw err;
  }
}
