import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMicroTimeOf } from '../../shared/go/time.ts';
import type { Lease, Node } from './node-conditions.ts';
import { NodeHealth } from './node-health.ts';

const t0 = Date.parse('2026-01-01T00:00:00Z');

function node(heartbeat: string | undefined, created = '2025-12-31T00:00:00Z'): Node {
  return {
    metadata: { name: 'n1', creationTimestamp: created },
    status: { conditions: heartbeat === undefined ? [] : [{ type: 'Ready', status: 'True', lastHeartbeatTime: heartbeat }] },
  };
}
const lease = (renewMs: number): Lease => ({
  metadata: { name: 'n1', namespace: 'kube-node-lease' },
  spec: { renewTime: formatMicroTimeOf(new Date(renewMs)) },
});

describe('node health', () => {
  it('gives a node first seen a full grace period from the moment it is seen', () => {
    const health = new NodeHealth({ monitorMs: 40_000, startupMs: 60_000 });
    assert.deepEqual(health.observe(node('2020-01-01T00:00:00Z'), undefined, t0), {
      probeMs: t0,
      gracePeriodMs: 40_000,
      deadlineMs: t0 + 40_000,
      overdue: false,
    });
    assert.equal(health.observe(node('2020-01-01T00:00:00Z'), undefined, t0 + 40_000).overdue, false);
    assert.equal(health.observe(node('2020-01-01T00:00:00Z'), undefined, t0 + 40_001).overdue, true);
  });

  it('counts a new heartbeat or a later Lease renewal by its own clock, whatever time they carry', () => {
    const health = new NodeHealth({ monitorMs: 40_000, startupMs: 60_000 });
    health.observe(node('2020-01-01T00:00:00Z'), lease(t0 - 1e9), t0);
    // A heartbeat written by a clock far behind still counts: it is new.
    assert.equal(health.observe(node('2019-01-01T00:00:00Z'), lease(t0 - 1e9), t0 + 30_000).probeMs, t0 + 30_000);
    // The same Lease renewal seen again does not.
    assert.equal(health.observe(node('2019-01-01T00:00:00Z'), lease(t0 - 1e9), t0 + 50_000).probeMs, t0 + 30_000);
    // One microsecond later does.
    assert.equal(health.observe(node('2019-01-01T00:00:00Z'), lease(t0 - 1e9 + 1), t0 + 60_000).probeMs, t0 + 60_000);
    // An older renewal (a Lease recreated by hand) does not.
    assert.equal(health.observe(node('2019-01-01T00:00:00Z'), lease(t0 - 2e9), t0 + 90_000).overdue, false);
    assert.equal(health.observe(node('2019-01-01T00:00:00Z'), lease(t0 - 2e9), t0 + 100_001).overdue, true);
  });

  it('gives a node that never posted its status the startup grace period from its creation', () => {
    const health = new NodeHealth({ monitorMs: 40_000, startupMs: 60_000 });
    const fresh = node(undefined, '2026-01-01T00:00:00Z');
    assert.deepEqual(health.observe(fresh, undefined, t0 + 10_000), { probeMs: t0, gracePeriodMs: 60_000, deadlineMs: t0 + 60_000, overdue: false });
    assert.equal(health.observe(fresh, undefined, t0 + 60_001).overdue, true);
    // Its Lease alone keeps it healthy.
    assert.equal(health.observe(fresh, lease(t0), t0 + 70_000).overdue, false);
  });

  it('renews every node when asked, and forgets deleted ones', () => {
    const health = new NodeHealth({ monitorMs: 40_000, startupMs: 60_000 });
    health.observe(node('x'), undefined, t0);
    health.renewAll(t0 + 100_000);
    assert.equal(health.observe(node('x'), undefined, t0 + 120_000).overdue, false);
    health.forget('n1');
    assert.equal(health.observe(node('x'), undefined, t0 + 200_000).probeMs, t0 + 200_000);
  });
});
