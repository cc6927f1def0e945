/**
 * Go's time.ParseDuration, which upstream uses for duration flags and the `timeout` query
 * parameter: a signed sequence of decimal numbers with units (`300ms`, `1.5h`, `2h45m`), units
 * ns, us (µs), ms, s, m, h; a bare `0` needs no unit. Errors carry Go's messages.
 */

const unitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Milliseconds of a Go duration; throws `time: invalid duration "x"` and friends. */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  const invalid = (): Error => new Error(`time: invalid duration ${quoted}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2];
    if (!number || (whole === '' && (fraction === undefined || fraction === ''))) throw invalid();
    rest = rest.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unit === '') throw new Error(`time: missing unit in duration ${quoted}`);
    const scale = unitMs[unit];
    if (scale === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    rest = rest.slice(unit.length);
    total += Number(`${whole || '0'}.${fraction ?? ''}0`) * scale;
  }
  return sign * total;
}

/** Go's String() of a duration given in milliseconds, as flag defaults print: `1m0s`, `10s`, `0s`. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const negative = ms < 0;
  let rest = Math.abs(ms);
  if (rest < 1000) return `${negative ? '-' : ''}${rest}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = `${rest / 1000}s`;
  const text = hours ? `${hours}h${minutes}m${seconds}` : minutes ? `${minutes}m${seconds}` : seconds;
  return negative ? `-${text}` : text;
}
