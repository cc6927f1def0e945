import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Disruption, zoneKey, zoneState, type DisruptionConfig } from './disruption.ts';
import type { Node } from './node-conditions.ts';

const config: DisruptionConfig = { nodeEvictionRate: 0.1, secondaryNodeEvictionRate: 0.01, largeClusterSizeThreshold: 4, unhealthyZoneThreshold: 0.55 };

function node(name: string, ready: string | undefined, labels: Record<string, string> = {}): Node {
  return { metadata: { name, labels }, status: { conditions: ready ? [{ type: 'Ready', status: ready }] : [] } };
}

describe('zone disruption', () => {
  it('keys zones by region and zone, the deprecated labels first', () => {
    assert.equal(zoneKey(node('a', 'True')), '');
    assert.equal(zoneKey(node('a', 'True', { 'topology.kubernetes.io/zone': 'z1' })), ':\0:z1');
    assert.equal(
      zoneKey(
        node('a', 'True', { 'topology.kubernetes.io/region': 'r', 'failure-domain.beta.kubernetes.io/zone': 'old', 'topology.kubernetes.io/zone': 'new' }),
      ),
      'r:\0:old',
    );
  });

  it("judges a zone as upstream's ComputeZoneState", () => {
    assert.deepEqual(zoneState(['True', 'True'], 0.55), { notReady: 0, state: 'Normal' });
    assert.deepEqual(zoneState(['False', 'Unknown', undefined], 0.55), { notReady: 3, state: 'FullDisruption' });
    assert.deepEqual(zoneState(['False', 'False', 'True'], 0.55), { notReady: 2, state: 'Normal' }, 'fewer than 3 not Ready is never partial');
    assert.deepEqual(zoneState(['False', 'False', 'False', 'True', 'True'], 0.55), { notReady: 3, state: 'PartialDisruption' });
    assert.deepEqual(zoneState(['False', 'False', 'False', 'True', 'True', 'True'], 0.55), { notReady: 3, state: 'Normal' });
    assert.deepEqual(zoneState([], 0.55), { notReady: 0, state: 'Normal' });
  });

  it('enters and leaves master disruption mode when all zones are fully disrupted', () => {
    const d = new Disruption(config);
    assert.deepEqual(d.update([node('a', 'True'), node('b', 'False')], 0), { entered: false, exited: false, zones: [] });
    assert.equal(d.masterDisruption, false);
    assert.deepEqual(d.update([node('a', 'Unknown'), node('b', 'False')], 1000), { entered: true, exited: false, zones: [] });
    assert.equal(d.masterDisruption, true);
    assert.deepEqual(d.tryTaint('', 1000), { granted: false, waitMs: undefined });
    assert.deepEqual(d.update([node('a', 'Unknown'), node('b', 'False')], 2000), { entered: false, exited: false, zones: [] });
    assert.deepEqual(d.update([node('a', 'True'), node('b', 'False')], 3000), { entered: false, exited: true, zones: [''] });
    assert.equal(d.masterDisruption, false);
  });

  it('paces tainting by zone state: normal rate, none in a small partially disrupted zone, secondary in a large one', () => {
    const zoned = (name: string, ready: string, zone: string): Node => node(name, ready, { 'topology.kubernetes.io/zone': zone });
    const d = new Disruption(config);
    const small = ['1', '2', '3'].map((n) => zoned(`s${n}`, 'False', 'small')).concat([zoned('s4', 'True', 'small')]);
    const large = ['1', '2', '3', '5'].map((n) => zoned(`l${n}`, 'False', 'large')).concat([zoned('l4', 'True', 'large')]);
    const normal = [zoned('n1', 'False', 'normal'), zoned('n2', 'True', 'normal')];
    d.update([...small.slice(0, 3), ...large.slice(3), ...normal], 0);
    // small (3 of 3 down) is fully disrupted but the others are not: normal rate there.
    assert.equal(d.state(':\0:small'), 'FullDisruption');
    assert.deepEqual(d.tryTaint(':\0:small', 0), { granted: true });
    d.update([...small, ...large, ...normal], 0);
    assert.equal(d.state(':\0:small'), 'PartialDisruption');
    assert.deepEqual(d.tryTaint(':\0:small', 0), { granted: false, waitMs: undefined }, 'at most largeClusterSizeThreshold nodes: no evictions');
    assert.equal(d.state(':\0:large'), 'PartialDisruption');
    assert.deepEqual(d.tryTaint(':\0:large', 0), { granted: true });
    assert.deepEqual(d.tryTaint(':\0:large', 99_999), { granted: false, waitMs: 1 });
    assert.deepEqual(d.tryTaint(':\0:large', 100_000), { granted: true }, '0.01 per second');
    assert.deepEqual(d.tryTaint(':\0:normal', 0), { granted: true });
    assert.deepEqual(d.tryTaint(':\0:normal', 5_000), { granted: false, waitMs: 5_000 });
  });

  it('leaves nodes labelled exclude-disruption out of the judgement', () => {
    const d = new Disruption(config);
    d.update([node('a', 'True', { 'node.kubernetes.io/exclude-disruption': '' }), node('b', 'False')], 0);
    assert.equal(d.masterDisruption, true);
  });
});
