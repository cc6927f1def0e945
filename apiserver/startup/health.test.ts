import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { healthResponse } from '../server/health.ts';
import { healthChecks, withDeadline, type HealthOptions, type HealthState } from './health.ts';

const ready: HealthState = { namespacesCreated: true, policyReconciled: true, shuttingDown: false };
const options: HealthOptions = { livezGracePeriodMs: 0, startedAt: 0, healthcheckTimeoutMs: 50, readycheckTimeoutMs: 80 };
const never = (): Promise<unknown> => new Promise(() => undefined);

describe('health checks', () => {
  it('readyz on etcd has etcd and etcd-readiness, in upstream order', () => {
    const { livez, readyz } = healthChecks(ready, 'etcd', async () => undefined, options);
    assert.deepEqual(
      readyz.map((c) => c.name),
      ['ping', 'log', 'etcd', 'etcd-readiness', 'poststarthook/bootstrap-namespaces', 'poststarthook/rbac/bootstrap-roles', 'shutdown'],
    );
    assert.deepEqual(
      livez.map((c) => c.name),
      ['ping', 'log', 'etcd', 'poststarthook/bootstrap-namespaces', 'poststarthook/rbac/bootstrap-roles'],
    );
  });

  it('the embedded backend has its own storage check and no etcd-readiness', () => {
    const { readyz } = healthChecks(ready, 'embedded', async () => undefined, options);
    assert.ok(readyz.some((c) => c.name === 'embedded-storage'));
    assert.ok(!readyz.some((c) => c.name.startsWith('etcd')));
  });

  it('a storage probe that never answers fails readyz within the deadlines', async () => {
    const { readyz } = healthChecks(ready, 'etcd', never, options);
    const started = Date.now();
    const res = await healthResponse('readyz', readyz, '', new URLSearchParams('verbose'));
    assert.ok(Date.now() - started < 5_000, 'the answer did not wait for the probe');
    assert.equal(res?.status, 500);
    assert.match(res?.body ?? '', /^\[-\]etcd failed: reason withheld$/m);
    assert.match(res?.body ?? '', /^\[-\]etcd-readiness failed: reason withheld$/m);
    assert.match(res?.body ?? '', /^\[\+\]ping ok$/m);
  });

  it('withDeadline passes a check that answers in time and keeps its failure reason', async () => {
    await withDeadline({ name: 'quick', check: async () => undefined }, 1_000).check();
    await assert.rejects(withDeadline({ name: 'broken', check: async () => Promise.reject(new Error('refused')) }, 1_000).check(), /refused/);
    await assert.rejects(withDeadline({ name: 'stuck', check: async () => void (await never()) }, 20).check(), /no answer within 20 ms/);
  });
});
