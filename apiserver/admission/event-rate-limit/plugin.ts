/**
 * EventRateLimit (upstream's admission plugin, alpha, off by default): creates and updates of core
 * Events beyond the configured rates are refused with 429 `Too many requests: limit reached on type
 * Namespace for key default` (every limit is asked, and each that refuses is named). Dry runs store
 * nothing and are not counted. Buckets live in this replica's memory, as upstream's do.
 */
import { StatusError } from '../../../shared/api/errors.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import type { AdmissionAttributes, ValidatingPlugin } from '../admission.ts';
import { defaultCacheSize, type Limit, type LimitType } from './config.ts';
import { BucketCache, TokenBucket } from './token-bucket.ts';

function field(obj: KubeObject | undefined, part: string, key: string): string {
  const holder = obj?.[part];
  const value = typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : '';
}

const keyOf: Record<LimitType, (a: AdmissionAttributes) => string> = {
  Server: () => '',
  Namespace: (a) => a.namespace,
  User: (a) => a.context.user.username,
  // Upstream's getSourceAndObjectKey: the fields joined without a separator.
  SourceAndObject: (a) =>
    [
      field(a.object, 'source', 'component'),
      field(a.object, 'source', 'host'),
      field(a.object, 'involvedObject', 'kind'),
      field(a.object, 'involvedObject', 'namespace'),
      field(a.object, 'involvedObject', 'name'),
      field(a.object, 'involvedObject', 'uid'),
      field(a.object, 'involvedObject', 'apiVersion'),
    ].join(''),
};

/** Upstream's NewTooManyRequestsError over the aggregated refusals. */
function tooManyRequests(refusals: string[]): StatusError {
  const message = refusals.length === 1 ? refusals[0] : `[${refusals.join(', ')}]`;
  return new StatusError({ message: `Too many requests: ${message}`, reason: 'TooManyRequests', code: 429 });
}

export function eventRateLimit(limits: readonly Limit[], now?: () => number): ValidatingPlugin {
  const enforcers = limits.map((limit) => {
    const bucket = (): TokenBucket => new TokenBucket(limit.qps, limit.burst, now);
    const cache = new BucketCache(limit.type === 'Server' ? 1 : limit.cacheSize || defaultCacheSize, bucket);
    return { type: limit.type, cache, key: keyOf[limit.type] };
  });
  return {
    name: 'EventRateLimit',
    operations: ['CREATE', 'UPDATE'],
    async validate(a) {
      // Only core Events (upstream compares the group kind with the core group's Event).
      if (a.definition.group !== '' || a.definition.kind !== 'Event' || a.dryRun) return;
      const refusals: string[] = [];
      for (const enforcer of enforcers) {
        const key = enforcer.key(a);
        if (!enforcer.cache.get(key).tryAccept()) refusals.push(`limit reached on type ${enforcer.type} for key ${key}`);
      }
      if (refusals.length) throw tooManyRequests(refusals);
    },
  };
}
