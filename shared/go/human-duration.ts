/**
 * Durations as humans read them in `kubectl get` (Age, RequestedDuration, ...), with the exact
 * rounding rules of upstream's k8s.io/apimachinery/pkg/util/duration. Durations are milliseconds.
 */

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

/** Go's int(d / unit) and int(d.Seconds()): division truncated towards zero. */
const whole = (ms: number, unit: number): number => Math.trunc(ms / unit);

/**
 * A succinct duration with ~2-3 significant figures: `45s`, `3m20s`, `25m`, `5h10m`, `2d5h`, `1y30d`.
 * Up to 2 seconds into the future counts as `0s` (clock skew); anything earlier is `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = whole(ms, second);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 2 * 60) return `${seconds}s`;
  const minutes = whole(ms, minute);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 3 * 60) return `${minutes}m`;
  const hours = whole(ms, hour);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 8 * 24) {
    const h = hours % 24;
    return h === 0 ? `${whole(hours, 24)}d` : `${whole(hours, 24)}d${h}h`;
  }
  if (hours < 2 * 365 * 24) return `${whole(hours, 24)}d`;
  const days = whole(hours, 24);
  if (hours < 8 * 365 * 24) {
    const d = days % 365;
    return d === 0 ? `${whole(days, 365)}y` : `${whole(days, 365)}y${d}d`;
  }
  return `${whole(days, 365)}y`;
}

/** A duration with one unit only: `45s`, `3m`, `5h`, `12d`, `2y`; skew rules as humanDuration. */
export function shortHumanDuration(ms: number): string {
  const seconds = whole(ms, second);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = whole(ms, minute);
  if (minutes < 60) return `${minutes}m`;
  const hours = whole(ms, hour);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${whole(hours, 24)}d`;
  return `${whole(ms, 365 * day)}y`;
}
