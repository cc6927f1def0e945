import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  canonicalTime,
  formatMicroTime,
  formatMicroTimeOf,
  formatTime,
  formatTimeOf,
  GoTimeParseError,
  isZeroTime,
  parseGoTime,
  parseGoTimeByLayout,
  zeroTimeSeconds,
  type TimeKind,
} from './time.ts';

const layout = '"2006-01-02T15:04:05Z07:00"';
const microLayout = '"2006-01-02T15:04:05.000000Z07:00"';
const refused = (text: string, kind: 'Time' | 'MicroTime'): string => {
  try {
    parseGoTime(text, kind);
  } catch (err) {
    assert.ok(err instanceof GoTimeParseError);
    return err.message;
  }
  return 'parsed';
};

describe('canonicalTime: what upstream serves for a time a client wrote', () => {
  it('Time: UTC, to the second, the fraction dropped (not rounded)', () => {
    assert.equal(canonicalTime('2024-01-01T10:00:00.5+02:00', 'Time'), '2024-01-01T08:00:00Z');
    assert.equal(canonicalTime('2024-01-01T10:00:00.999999999Z', 'Time'), '2024-01-01T10:00:00Z');
    assert.equal(canonicalTime('2024-01-01T00:30:00-01:00', 'Time'), '2024-01-01T01:30:00Z');
    assert.equal(canonicalTime('2024-03-01T00:30:00+01:00', 'Time'), '2024-02-29T23:30:00Z');
    // MicroTime's form is a valid Time.
    assert.equal(canonicalTime('2024-01-01T08:00:00.123456Z', 'Time'), '2024-01-01T08:00:00Z');
  });

  it('MicroTime: UTC, exactly six fractional digits', () => {
    assert.equal(canonicalTime('2024-01-01T10:00:00.500000+02:00', 'MicroTime'), '2024-01-01T08:00:00.500000Z');
    assert.equal(canonicalTime('2024-01-01T08:00:00.000001Z', 'MicroTime'), '2024-01-01T08:00:00.000001Z');
  });

  it("Go's lenient corners of time.Parse are kept", () => {
    assert.equal(canonicalTime('2024-01-01T1:02:03Z', 'Time'), '2024-01-01T01:02:03Z');
    assert.equal(canonicalTime('2024-01-01T10:00:00,25Z', 'Time'), '2024-01-01T10:00:00Z');
    assert.equal(canonicalTime('2024-01-01T10:00:00.1234567891234Z', 'Time'), '2024-01-01T10:00:00Z');
    assert.equal(canonicalTime('2024-01-01T10:00:00+24:00', 'Time'), '2023-12-31T10:00:00Z');
    assert.equal(canonicalTime('2024-01-01T10:00:00,000001Z', 'MicroTime'), '2024-01-01T10:00:00.000001Z');
  });

  it("Go's zero time is no time (null)", () => {
    assert.equal(canonicalTime('0001-01-01T00:00:00Z', 'Time'), null);
    assert.equal(canonicalTime('0001-01-01T00:00:00.000000Z', 'MicroTime'), null);
    assert.equal(canonicalTime('0001-01-01T01:00:00+01:00', 'Time'), null);
    assert.equal(canonicalTime('0001-01-01T00:00:00.000001Z', 'MicroTime'), '0001-01-01T00:00:00.000001Z');
  });
});

describe("parseGoTime refuses what Go's time.Parse refuses, with Go's message", () => {
  it('text that is no time', () => {
    assert.equal(refused('yesterday', 'Time'), `parsing time "yesterday" as ${layout}: cannot parse "yesterday" as "2006"`);
    assert.equal(refused('yesterday', 'MicroTime'), `parsing time "yesterday" as ${microLayout}: cannot parse "yesterday" as "2006"`);
    assert.equal(refused('', 'Time'), `parsing time "" as ${layout}: cannot parse "" as "2006"`);
    assert.equal(refused('2024/01/01', 'Time'), `parsing time "2024/01/01" as ${layout}: cannot parse "/01/01" as "-"`);
    assert.equal(refused('2024-01-01 10:00:00Z', 'Time'), `parsing time "2024-01-01 10:00:00Z" as ${layout}: cannot parse " 10:00:00Z" as "T"`);
    assert.equal(refused('2024-01-01t10:00:00Z', 'Time'), `parsing time "2024-01-01t10:00:00Z" as ${layout}: cannot parse "t10:00:00Z" as "T"`);
    assert.equal(refused('2024-01-01T10:00:00z', 'Time'), `parsing time "2024-01-01T10:00:00z" as ${layout}: cannot parse "z" as "Z07:00"`);
    assert.equal(refused('2024-01-01T10:00:00', 'Time'), `parsing time "2024-01-01T10:00:00" as ${layout}: cannot parse "" as "Z07:00"`);
    assert.equal(refused('2024-1-01T10:00:00Z', 'Time'), `parsing time "2024-1-01T10:00:00Z" as ${layout}: cannot parse "1-01T10:00:00Z" as "01"`);
  });

  it('MicroTime wants exactly six fractional digits', () => {
    assert.equal(refused('2024-01-01T08:00:00Z', 'MicroTime'), `parsing time "2024-01-01T08:00:00Z" as ${microLayout}: cannot parse "Z" as ".000000"`);
    assert.equal(refused('2024-01-01T08:00:00.5Z', 'MicroTime'), `parsing time "2024-01-01T08:00:00.5Z" as ${microLayout}: cannot parse ".5Z" as ".000000"`);
    assert.equal(
      refused('2024-01-01T08:00:00.1234567Z', 'MicroTime'),
      `parsing time "2024-01-01T08:00:00.1234567Z" as ${microLayout}: cannot parse "7Z" as "Z07:00"`,
    );
  });

  it('values out of range', () => {
    assert.equal(refused('2024-13-01T00:00:00Z', 'Time'), 'parsing time "2024-13-01T00:00:00Z": month out of range');
    assert.equal(refused('2023-02-29T00:00:00Z', 'Time'), 'parsing time "2023-02-29T00:00:00Z": day out of range');
    assert.equal(refused('2024-01-01T24:00:00Z', 'Time'), 'parsing time "2024-01-01T24:00:00Z": hour out of range');
    assert.equal(refused('2024-01-01T10:60:00Z', 'Time'), 'parsing time "2024-01-01T10:60:00Z": minute out of range');
    assert.equal(refused('2024-01-01T10:00:60Z', 'Time'), 'parsing time "2024-01-01T10:00:60Z": second out of range');
    assert.equal(refused('2024-01-01T10:00:00+25:00', 'Time'), 'parsing time "2024-01-01T10:00:00+25:00": time zone offset hour out of range');
    assert.equal(refused('2024-01-01T10:00:00Zjunk', 'Time'), 'parsing time "2024-01-01T10:00:00Zjunk": extra text: "junk"');
  });

  it("quotes as Go's time package does: non-ASCII bytes as \\x escapes", () => {
    assert.equal(refused('é', 'Time'), `parsing time "\\xc3\\xa9" as ${layout}: cannot parse "\\xc3\\xa9" as "2006"`);
    assert.equal(refused('a"b', 'Time'), `parsing time "a\\"b" as ${layout}: cannot parse "a\\"b" as "2006"`);
  });
});

describe('formatting', () => {
  it('formats Unix seconds and nanoseconds in UTC', () => {
    assert.equal(formatTime(0), '1970-01-01T00:00:00Z');
    assert.equal(formatTime(1704096000), '2024-01-01T08:00:00Z');
    assert.equal(formatTime(zeroTimeSeconds), '0001-01-01T00:00:00Z');
    assert.equal(formatMicroTime(1704096000, 500_000_999), '2024-01-01T08:00:00.500000Z');
    assert.equal(formatTime(Date.UTC(10000, 0, 1) / 1000), '10000-01-01T00:00:00Z');
    assert.equal(formatMicroTime(Date.UTC(-1, 11, 31, 23, 59, 59) / 1000, 7_000), '-0001-12-31T23:59:59.000007Z');
    assert.equal(formatTimeOf(new Date('2024-01-01T08:00:00.999Z')), '2024-01-01T08:00:00Z');
    assert.equal(formatMicroTimeOf(new Date('2024-01-01T08:00:00.123Z')), '2024-01-01T08:00:00.123000Z');
  });

  it('round-trips every parsed instant', () => {
    for (const text of ['1999-12-31T23:59:59Z', '2000-02-29T12:00:00Z', '2100-03-01T00:00:00Z', '1900-01-01T00:00:00Z']) {
      assert.equal(formatTime(parseGoTime(text, 'Time').seconds), text);
    }
  });
});

/** What `run` gives: its result, or the error's message. */
const outcome = (run: (text: string, kind: TimeKind) => unknown, text: string, kind: TimeKind): unknown => {
  try {
    return run(text, kind);
  } catch (err) {
    return err instanceof GoTimeParseError ? `error: ${err.message}` : err;
  }
};
const digit = fc.integer({ min: 0, max: 9 }).map(String);
/** Texts of the types' exact form with any digits (out-of-range fields included), now and then one character changed. */
const nearlyCanonical = (kind: TimeKind) =>
  fc
    .tuple(
      fc.array(digit, { minLength: 20, maxLength: 20 }),
      fc.option(fc.tuple(fc.nat(), fc.constantFrom('x', '-', ':', '.', ',', 'T', 'Z', 'z', '9', '+')), { freq: 4 }),
    )
    .map(([d, change]) => {
      const [y1, y2, y3, y4, mo1, mo2, d1, d2, h1, h2, mi1, mi2, s1, s2, f1, f2, f3, f4, f5, f6] = d;
      // Months, days and hours mostly in range, so that most texts are valid times.
      const month = Number(`${mo1}${mo2}`) % 13;
      const day = Number(`${d1}${d2}`) % 32;
      const hour = Number(`${h1}${h2}`) % 25;
      const two = (n: number): string => String(n).padStart(2, '0');
      const fraction = kind === 'MicroTime' ? `.${f1}${f2}${f3}${f4}${f5}${f6}` : '';
      let text = `${y1}${y2}${y3}${y4}-${two(month)}-${two(day)}T${two(hour)}:${mi1}${mi2}:${s1}${s2}${fraction}Z`;
      if (change) {
        const at = change[0] % text.length;
        text = text.slice(0, at) + change[1] + text.slice(at + 1);
      }
      return text;
    });
/** The kinds each form is read as: MicroTime's form is a valid Time too. */
const kindsOfForms = [
  ['Time', 'Time'],
  ['MicroTime', 'MicroTime'],
  ['Time', 'MicroTime'],
] as const;

describe('parseGoTime on the canonical forms', () => {
  for (const [kind, form] of kindsOfForms) {
    it(`reads texts of ${form}'s exact form as ${kind} as Go's layout parse does, errors included`, () => {
      fc.assert(
        fc.property(nearlyCanonical(form), (text) => {
          assert.deepEqual(outcome(parseGoTime, text, kind), outcome(parseGoTimeByLayout, text, kind), text);
        }),
        { numRuns: 5000 },
      );
    });
  }

  it('reads a leap day, the last second of a year and the zero time by position', () => {
    assert.deepEqual(parseGoTime('2024-02-29T23:59:59Z', 'Time'), { seconds: 1709251199, nanos: 0 });
    assert.deepEqual(parseGoTime('1999-12-31T23:59:59.999999Z', 'MicroTime'), { seconds: 946684799, nanos: 999999000 });
    assert.deepEqual(parseGoTime('0001-01-01T00:00:00Z', 'Time'), { seconds: zeroTimeSeconds, nanos: 0 });
    assert.match(refused('2023-02-29T00:00:00Z', 'Time'), /day out of range/);
  });
});

describe('canonicalTime on the canonical forms', () => {
  /** canonicalTime spelled out: Go's layout parse, then the type's MarshalJSON. */
  const parsedAndFormatted = (text: string, kind: TimeKind): string | null => {
    const instant = parseGoTimeByLayout(text, kind);
    if (isZeroTime(instant, kind)) return null;
    return kind === 'Time' ? formatTime(instant.seconds) : formatMicroTime(instant.seconds, instant.nanos);
  };
  /** 0000-01-01T00:00:00Z, the first instant with a four-digit year, in Unix seconds. */
  const yearZeroSeconds = zeroTimeSeconds - 366 * 86400;
  /** Instants of years 0000 to 9999 (Go's zero time and the ends now and then), any nanoseconds. */
  const instant = fc.record({
    seconds: fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 3652424 }), fc.integer({ min: 0, max: 86399 })).map(([day, second]) => yearZeroSeconds + day * 86400 + second),
      fc.constantFrom(zeroTimeSeconds, yearZeroSeconds, 253402300799),
    ),
    nanos: fc.oneof(fc.integer({ min: 0, max: 999_999_999 }), fc.constantFrom(0, 999, 1000, 999_999_999)),
  });
  /** The types' forms of an instant, written by the JavaScript Date rather than by formatTime. */
  const forms = ({ seconds, nanos }: { seconds: number; nanos: number }): Record<'Time' | 'MicroTime', string> => {
    const iso = new Date(seconds * 1000).toISOString();
    assert.equal(iso.length, 24, iso);
    const clock = iso.slice(0, 19);
    return { Time: `${clock}Z`, MicroTime: `${clock}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` };
  };

  it("gives valid instants' texts what parsing then formatting gives: the text itself in the kind's own form", () => {
    fc.assert(
      fc.property(instant, (at) => {
        const form = forms(at);
        for (const [kind, formOf] of kindsOfForms) {
          const text = form[formOf];
          const canonical = canonicalTime(text, kind);
          assert.equal(canonical, parsedAndFormatted(text, kind), `${text} as ${kind}`);
          const zero = at.seconds === zeroTimeSeconds && (kind === 'Time' || at.nanos < 1000);
          assert.equal(canonical, zero ? null : form[kind], `${text} as ${kind}`);
        }
        // Time's form is no MicroTime.
        assert.match(String(outcome(canonicalTime, form.Time, 'MicroTime')), /^error: /);
      }),
      { numRuns: 5000 },
    );
  });

  for (const [kind, form] of kindsOfForms) {
    it(`gives texts of ${form}'s exact form read as ${kind} what parsing then formatting gives, errors included`, () => {
      fc.assert(
        fc.property(nearlyCanonical(form), (text) => {
          assert.deepEqual(outcome(canonicalTime, text, kind), outcome(parsedAndFormatted, text, kind), text);
        }),
        { numRuns: 5000 },
      );
    });
  }
});
