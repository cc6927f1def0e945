import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../../../shared/api/errors.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { coreEventDefinition } from '../../registry/core/event.ts';
import { eventsV1EventDefinition } from '../../registry/events/event.ts';
import type { ResourceDefinition } from '../../registry/definition.ts';
import type { AdmissionAttributes } from '../admission.ts';
import { parseEventRateLimitConfiguration } from './config.ts';
import { eventRateLimit } from './plugin.ts';
import { BucketCache, TokenBucket } from './token-bucket.ts';

let clock = 0;
const now = () => clock;
const event = (component: string): KubeObject => ({
  metadata: { name: 'e' },
  source: { component },
  involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns' },
});
const attributes = (
  namespace: string,
  user: string,
  object = event('c'),
  definition: ResourceDefinition = coreEventDefinition,
  dryRun = false,
): AdmissionAttributes => ({
  operation: 'CREATE',
  definition,
  subresource: '',
  namespace,
  name: 'e',
  object,
  dryRun,
  context: { user: { username: user, groups: [] }, now: new Date() },
});

async function refusal(plugin: ReturnType<typeof eventRateLimit>, a: AdmissionAttributes): Promise<string> {
  try {
    await plugin.validate(a);
    return 'admitted';
  } catch (err) {
    assert.ok(isStatusError(err, 'TooManyRequests'));
    assert.equal(err.code, 429);
    return err.status.message ?? '';
  }
}

describe('EventRateLimit', () => {
  it('refills a token bucket at qps up to burst', () => {
    clock = 0;
    const bucket = new TokenBucket(2, 3, now);
    assert.deepEqual(
      [1, 2, 3, 4].map(() => bucket.tryAccept()),
      [true, true, true, false],
    );
    clock = 500;
    assert.deepEqual([bucket.tryAccept(), bucket.tryAccept()], [true, false]);
    clock = 60_000;
    assert.deepEqual(
      [1, 2, 3, 4].map(() => bucket.tryAccept()),
      [true, true, true, false],
      'never more than burst',
    );
  });

  it('keeps the most recently used buckets', () => {
    let made = 0;
    const cache = new BucketCache(2, () => (made++, new TokenBucket(1, 1, now)));
    cache.get('a');
    cache.get('b');
    cache.get('a');
    cache.get('c');
    cache.get('a');
    assert.equal(made, 3, 'a stayed');
    cache.get('b');
    assert.equal(made, 4, 'b was evicted');
  });

  it("refuses events beyond a namespace's burst with upstream's 429, per namespace", async () => {
    clock = 0;
    const plugin = eventRateLimit(
      parseEventRateLimitConfiguration({
        apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1',
        kind: 'Configuration',
        limits: [{ type: 'Namespace', qps: 1, burst: 2 }],
      }),
      now,
    );
    assert.equal(await refusal(plugin, attributes('a', 'u')), 'admitted');
    assert.equal(await refusal(plugin, attributes('a', 'u')), 'admitted');
    assert.equal(await refusal(plugin, attributes('a', 'u')), 'Too many requests: limit reached on type Namespace for key a');
    assert.equal(await refusal(plugin, attributes('b', 'u')), 'admitted', 'another namespace has its own bucket');
    assert.equal(await refusal(plugin, attributes('a', 'u', event('c'), coreEventDefinition, true)), 'admitted', 'dry runs are not counted');
    assert.equal(await refusal(plugin, attributes('a', 'u', event('c'), eventsV1EventDefinition)), 'admitted', 'only core Events, as upstream');
    clock = 1000;
    assert.equal(await refusal(plugin, attributes('a', 'u')), 'admitted', 'refilled');
  });

  it('names every limit that refuses', async () => {
    clock = 0;
    const plugin = eventRateLimit(
      parseEventRateLimitConfiguration({
        apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1',
        kind: 'Configuration',
        limits: [
          { type: 'Server', qps: 1, burst: 1 },
          { type: 'User', qps: 1, burst: 1 },
          { type: 'SourceAndObject', qps: 1, burst: 5 },
        ],
      }),
      now,
    );
    assert.equal(await refusal(plugin, attributes('a', 'alice')), 'admitted');
    assert.equal(
      await refusal(plugin, attributes('a', 'alice')),
      'Too many requests: [limit reached on type Server for key , limit reached on type User for key alice]',
    );
  });

  it('validates its configuration as upstream, listing every problem', () => {
    assert.throws(() => parseEventRateLimitConfiguration(undefined), /limits: Invalid value: null: must not be empty/);
    assert.throws(
      () =>
        parseEventRateLimitConfiguration({
          apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1',
          kind: 'Configuration',
          limits: [{ type: 'Cluster', qps: 0, burst: -1, cacheSize: -1 }],
        }),
      (err: Error) => {
        assert.match(err.message, /limits\[0\]\.type: Unsupported value: "Cluster": supported values: "Server", "Namespace", "User", "SourceAndObject"/);
        assert.match(err.message, /limits\[0\]\.burst: Invalid value: -1: must be positive/);
        assert.match(err.message, /limits\[0\]\.qps: Invalid value: 0: must be positive/);
        assert.match(err.message, /limits\[0\]\.cacheSize: Invalid value: -1: must not be negative/);
        return true;
      },
    );
  });
});
