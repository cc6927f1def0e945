import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { alreadyExists, conflict, notFound } from '../../shared/api/errors.ts';
import { deepCopy, type KubeObject } from '../../shared/api/types.ts';
import { FakeClock } from '../../shared/client/clock.ts';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.ts';
import { RecordingApiClient, settle } from './testing.ts';

const gr = { group: 'coordination.k8s.io', resource: 'leases' };
const leasePath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';

/** An API holding one Lease with resourceVersion compare-and-swap, as the API server does. */
function leaseApi(): { api: RecordingApiClient; lease: () => KubeObject | undefined; fail: (on: boolean) => void } {
  const api = new RecordingApiClient();
  let stored: KubeObject | undefined;
  let rv = 0;
  let failing = false;
  api.react((action) => {
    if (failing) throw new Error('connection refused');
    if (action.verb === 'get') {
      if (!stored) throw notFound(gr, 'kube-controller-manager');
      return deepCopy(stored);
    }
    const body = action.body as KubeObject;
    if (action.verb === 'create') {
      if (stored) throw alreadyExists(gr, 'kube-controller-manager');
      stored = { ...body, metadata: { ...body.metadata, resourceVersion: String(++rv) } };
      return deepCopy(stored);
    }
    if (action.verb === 'update') {
      if (!stored || body.metadata.resourceVersion !== stored.metadata.resourceVersion)
        throw conflict(gr, 'kube-controller-manager', 'the object has been modified');
      stored = { ...body, metadata: { ...body.metadata, resourceVersion: String(++rv) } };
      return deepCopy(stored);
    }
    return undefined;
  });
  return { api, lease: () => stored, fail: (on) => void (failing = on) };
}

const options = (identity: string): LeaderElectionOptions => ({
  namespace: 'kube-system',
  name: 'kube-controller-manager',
  identity,
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
});
const logger = pino({ level: 'silent' });
const spec = (lease: KubeObject | undefined): Record<string, unknown> => (lease?.['spec'] ?? {}) as Record<string, unknown>;

describe('LeaderElector', () => {
  it('creates the Lease when there is none and holds it', async () => {
    const { api, lease } = leaseApi();
    const elector = new LeaderElector(api, new FakeClock(), options('a'), logger);
    assert.equal(await elector.tryAcquireOrRenew(), true);
    assert.equal(spec(lease()).holderIdentity, 'a');
    assert.equal(spec(lease()).leaseDurationSeconds, 15);
    assert.equal(spec(lease()).leaseTransitions, 0);
    assert.equal(await elector.tryAcquireOrRenew(), true, 'renewing its own lease');
    assert.deepEqual(api.writes(), [`CREATE /apis/coordination.k8s.io/v1/namespaces/kube-system/leases`, `UPDATE ${leasePath}`]);
  });

  it('a candidate takes a lease only after it went unrenewed for the lease duration on its own clock', async () => {
    const { api, lease } = leaseApi();
    const clock = new FakeClock();
    const a = new LeaderElector(api, clock, options('a'), logger);
    const b = new LeaderElector(api, clock, options('b'), logger);
    assert.equal(await a.tryAcquireOrRenew(), true);
    assert.equal(await b.tryAcquireOrRenew(), false);
    clock.step(10_000);
    assert.equal(await a.tryAcquireOrRenew(), true, 'a renews');
    clock.step(10_000);
    assert.equal(await b.tryAcquireOrRenew(), false, 'b sees the renewal now: the 15 s start again');
    clock.step(14_999);
    assert.equal(await b.tryAcquireOrRenew(), false);
    clock.step(1);
    assert.equal(await b.tryAcquireOrRenew(), true);
    assert.equal(spec(lease()).holderIdentity, 'b');
    assert.equal(spec(lease()).leaseTransitions, 1);
    assert.equal(await a.tryAcquireOrRenew(), false, 'a lost it');
  });

  it('of two candidates racing for the same record, the compare-and-swap lets one win', async () => {
    const { api, lease } = leaseApi();
    const clock = new FakeClock();
    await new LeaderElector(api, clock, options('old'), logger).tryAcquireOrRenew();
    const a = new LeaderElector(api, clock, options('a'), logger);
    const b = new LeaderElector(api, clock, options('b'), logger);
    await a.tryAcquireOrRenew();
    await b.tryAcquireOrRenew();
    clock.step(15_000);
    const results = await Promise.all([a.tryAcquireOrRenew(), b.tryAcquireOrRenew()]);
    assert.deepEqual(results.filter(Boolean).length, 1);
    assert.equal(spec(lease()).holderIdentity, results[0] ? 'a' : 'b');
  });

  it('stops leading once renewals fail for the renew deadline, before the lease expires for others', async () => {
    const { api, fail } = leaseApi();
    const clock = new FakeClock();
    const elector = new LeaderElector(api, clock, options('a'), logger);
    const stopping = new AbortController();
    let leadingSignal: AbortSignal | undefined;
    let lostAt = 0;
    const run = elector.run(stopping.signal, async (signal) => {
      leadingSignal = signal;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      lostAt = clock.now();
    });
    await settle();
    assert.ok(leadingSignal && !leadingSignal.aborted, 'leading');
    const failedFrom = clock.now();
    fail(true);
    for (let i = 0; i < 10 && !leadingSignal.aborted; i++) {
      clock.step(2_000);
      await settle();
    }
    assert.ok(leadingSignal.aborted, 'stopped leading');
    assert.ok(lostAt - failedFrom >= 10_000 && lostAt - failedFrom < 15_000, `stopped ${lostAt - failedFrom} ms after the last renewal`);
    stopping.abort();
    await run;
  });

  it('releases the lease on a graceful stop so a candidate takes it at once', async () => {
    const { api, lease } = leaseApi();
    const clock = new FakeClock();
    const a = new LeaderElector(api, clock, options('a'), logger);
    const stopping = new AbortController();
    const run = a.run(stopping.signal, (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())));
    await settle();
    stopping.abort();
    await run;
    assert.equal(spec(lease()).holderIdentity, '');
    assert.equal(await new LeaderElector(api, clock, options('b'), logger).tryAcquireOrRenew(), true);
  });

  it('stops at once when asked to stop while it was taking the lease', async () => {
    const { api } = leaseApi();
    const stopping = new AbortController();
    // The stop arrives during the create of the lease.
    api.react((action) => {
      if (action.verb === 'create') stopping.abort();
      return undefined;
    });
    const elector = new LeaderElector(api, new FakeClock(), options('a'), logger);
    let led = false;
    await elector.run(stopping.signal, async (signal) => {
      led = true;
      assert.ok(signal.aborted, 'the leading signal is already aborted');
      await Promise.resolve();
    });
    assert.ok(led);
  });
});
