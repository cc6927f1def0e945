/**
 * Bad input through the load balancer (issue 16, item 6), bounded for `npm test`: property-based
 * fuzz cases (e2e/fuzz/) sent to haproxy in front of 2 API server replicas on a 3-member etcd
 * (cluster/topology.ts), over HTTP/1.1 and HTTP/2, with and without the admin certificate. It
 * fails on the first reply that breaks a property (a 5xx for a client's mistake, a non-2xx reply
 * that is not a Status with the same code, no reply), on a fixture that changed, and on any sign
 * that a replica suffered: its process exited or was restarted (another pid), haproxy kept it out
 * of rotation longer than `MAX_OUT_OF_ROTATION_MS` or had it out at the end, or its RSS passed
 * `MAX_REPLICA_RSS_BYTES`.
 *
 * Why through the balancer as well as against one server (e2e/fuzz.test.ts): replicas on etcd,
 * connections spread over them by haproxy and TLS passed through are what a deployment runs; a
 * request that kills or bloats one replica there costs the cluster a member. `npm run fuzz --
 * --through-lb` is the long run (100,000 cases).
 *
 * The seed is fixed so that the run is repeatable; FUZZ_SEED, FUZZ_LB_TEST_RUNS and FUZZ_LANES
 * change it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skipUnlessEtcd } from '../../shared/etcd/availability.ts';
import { balancerProblems, formatBalancerReport, startBalancedTarget, type BalancedTarget } from '../fuzz/balanced-target.ts';
import { createFixtures, type Snapshot } from '../fuzz/fixtures.ts';
import { inRotation, MAX_REPLICA_RSS_BYTES } from '../fuzz/replica-watch.ts';
import { formatReport, passed } from '../fuzz/report.ts';
import { runFuzz } from '../fuzz/runner.ts';
import { haproxy, skipUnlessTool } from '../tool-availability.ts';

/** Why the suite cannot run here (etcd or haproxy missing), or false; CORRAL_REQUIRE_ETCD / CORRAL_REQUIRE_HAPROXY make it a failure. */
const skip = skipUnlessEtcd() || skipUnlessTool({ ...haproxy, purpose: 'to fuzz the API servers through a load balancer' });

const seed = Number(process.env.FUZZ_SEED ?? 16);
const runs = Number(process.env.FUZZ_LB_TEST_RUNS ?? 2_000);
const lanes = Number(process.env.FUZZ_LANES ?? 6);

describe('fuzz through the load balancer', { skip, timeout: 240_000 }, () => {
  let target: BalancedTarget;
  let snapshot: Snapshot;

  before(async () => {
    target = await startBalancedTarget({ lanes });
    snapshot = await createFixtures(target.transport);
  });

  after(async () => {
    await target?.stop();
  });

  it(`${runs} fuzz cases (seed ${seed}, ${lanes} lanes) through haproxy break no property, and every replica stays up, unrestarted and bounded`, async (t) => {
    const pids = target.topology.apiServers.map((a) => a.process.child?.pid);
    const report = await runFuzz(target, snapshot, { runs, seed, lanes, mode: 'assert' });
    const replicas = await target.finish();
    const text = `${formatReport(report, seed)}\n${formatBalancerReport(replicas)}`;
    t.diagnostic(text);
    assert.ok(passed(report), text);
    assert.ok(report.stats.total >= runs, `only ${report.stats.total} of ${runs} requests were sent`);
    assert.deepEqual(balancerProblems(replicas), [], text);
    // The same checks spelled out, so that a change to balancerProblems cannot weaken this test.
    assert.deepEqual(
      replicas.replicas.map((r) => r.pid),
      pids,
      text,
    );
    for (const r of replicas.replicas) {
      assert.ok(r.alive && r.restarts === 0, `${r.name} was restarted or died\n${text}`);
      // /proc, where RSS is read from, is Linux's.
      if (process.platform === 'linux') assert.ok(r.rssPeak !== undefined, `${r.name}: no RSS read\n${text}`);
      assert.ok((r.rssPeak ?? 0) < MAX_REPLICA_RSS_BYTES, `${r.name}: RSS peak ${r.rssPeak}\n${text}`);
    }
    assert.ok(typeof replicas.view !== 'string' && Object.values(replicas.view).every(inRotation), text);
    assert.equal(Object.keys(replicas.view).length, 2, text);
  });
});
