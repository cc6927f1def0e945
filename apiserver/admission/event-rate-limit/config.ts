/**
 * EventRateLimit's configuration (eventratelimit.admission.k8s.io/v1alpha1 Configuration): limits
 * of type Server, Namespace, User or SourceAndObject, each a token bucket of `qps` and `burst`, kept
 * per key in an LRU of `cacheSize` buckets (4096 when 0; Server has one bucket). Validated as
 * upstream validates it, every problem listed.
 */
import { FieldPath, fieldErrorString, invalid, notSupported, type FieldError } from '../../../shared/api/field.ts';
import { isObject } from '../../../shared/api/types.ts';

export const limitTypes = ['Server', 'Namespace', 'User', 'SourceAndObject'] as const;
export type LimitType = (typeof limitTypes)[number];

export interface Limit {
  type: LimitType;
  qps: number;
  burst: number;
  /** Buckets kept (most recently used); 0 means the default. */
  cacheSize: number;
}

export const defaultCacheSize = 4096;
const apiVersion = 'eventratelimit.admission.k8s.io/v1alpha1';

const numberOr0 = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** The limits of a Configuration document; throws listing every problem (upstream's field errors). */
export function parseEventRateLimitConfiguration(doc: Record<string, unknown> | undefined): Limit[] {
  if (doc && (doc.apiVersion !== apiVersion || doc.kind !== 'Configuration')) {
    throw new Error(`EventRateLimit configuration must be kind Configuration of ${apiVersion}`);
  }
  const raw = Array.isArray(doc?.limits) ? doc.limits : [];
  const errors: FieldError[] = [];
  const path = FieldPath.root('limits');
  if (raw.length === 0) errors.push(invalid(path, doc?.limits ?? null, 'must not be empty'));
  const limits: Limit[] = [];
  raw.forEach((entry: unknown, i) => {
    const item = isObject(entry) ? entry : {};
    const at = path.index(i);
    const type = typeof item.type === 'string' ? item.type : '';
    const limit = { type: type as LimitType, qps: numberOr0(item.qps), burst: numberOr0(item.burst), cacheSize: numberOr0(item.cacheSize) };
    if (!(limitTypes as readonly string[]).includes(type)) errors.push(notSupported(at.child('type'), type, limitTypes));
    if (limit.burst <= 0) errors.push(invalid(at.child('burst'), limit.burst, 'must be positive'));
    if (limit.qps <= 0) errors.push(invalid(at.child('qps'), limit.qps, 'must be positive'));
    if (type !== 'Server' && limit.cacheSize < 0) errors.push(invalid(at.child('cacheSize'), limit.cacheSize, 'must not be negative'));
    limits.push(limit);
  });
  if (errors.length) throw new Error(`EventRateLimit configuration: ${errors.map(fieldErrorString).join('; ')}`);
  return limits;
}
