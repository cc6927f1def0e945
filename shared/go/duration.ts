/**
 * Go's time.Duration as upstream reads and prints it: flags and `?timeout=` (time.ParseDuration),
 * metav1.Duration fields in protobuf, and flag defaults (Duration.String()). Exact in
 * nanoseconds; the millisecond forms are for timers.
 */

const unitNs: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Nanoseconds of a Go duration; throws Go's messages (`time: invalid duration "x"` and friends). */
export function parseGoDurationNs(text: string): bigint {
  const quoted = JSON.stringify(text);
  const invalid = (): Error => new Error(`time: invalid duration ${quoted}`);
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw invalid();
  let total = 0n;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2] ?? '';
    if (!number || (whole === '' && fraction === '')) throw invalid();
    rest = rest.slice(number[0].length);
    const unitText = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unitText === '') throw new Error(`time: missing unit in duration ${quoted}`);
    const unit = unitNs[unitText];
    if (unit === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unitText)} in duration ${quoted}`);
    rest = rest.slice(unitText.length);
    total += BigInt(whole || '0') * unit;
    if (fraction !== '') total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
  }
  return negative ? -total : total;
}

/** Go's Duration.String(): `1m0s`, `1.5s`, `250ms`, `0s`. */
export function formatGoDurationNs(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const abs = ns < 0n ? -ns : ns;
  if (abs < 1_000_000_000n) {
    if (abs < 1_000n) return `${sign}${abs}ns`;
    if (abs < 1_000_000n) return `${sign}${decimal(abs, 1_000n)}µs`;
    return `${sign}${decimal(abs, 1_000_000n)}ms`;
  }
  const hours = abs / 3_600_000_000_000n;
  const minutes = (abs / 60_000_000_000n) % 60n;
  const seconds = decimal(abs % 60_000_000_000n, 1_000_000_000n);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

function decimal(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** Milliseconds of a Go duration (fractions kept); throws Go's messages. */
export function parseGoDuration(text: string): number {
  return Number(parseGoDurationNs(text)) / 1e6;
}

/** Go's Duration.String() of a duration given in milliseconds. */
export function formatGoDuration(ms: number): string {
  return formatGoDurationNs(BigInt(Math.round(ms * 1e6)));
}
