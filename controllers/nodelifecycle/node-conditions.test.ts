import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markedUnknown, type Node, type NodeCondition } from './node-conditions.ts';

const now = '2026-01-01T00:01:00Z';

function node(conditions: NodeCondition[]): Node {
  return { metadata: { name: 'n1', creationTimestamp: '2025-12-31T00:00:00Z' }, status: { conditions } };
}

describe('marking a node Unknown', () => {
  it('changes status, reason, message and transition time, keeping heartbeats and NetworkUnavailable', () => {
    const before: NodeCondition[] = [
      { type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', lastTransitionTime: 'a' },
      { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: 'h', lastTransitionTime: 't' },
      { type: 'MemoryPressure', status: 'Unknown', reason: 'Mine', message: 'kept', lastHeartbeatTime: 'h', lastTransitionTime: 't' },
    ];
    const marked = markedUnknown(node(before), now);
    assert.deepEqual(marked?.status?.conditions, [
      before[0],
      {
        type: 'Ready',
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
        lastHeartbeatTime: 'h',
        lastTransitionTime: now,
      },
      before[2],
      {
        type: 'DiskPressure',
        status: 'Unknown',
        reason: 'NodeStatusNeverUpdated',
        message: 'Kubelet never posted node status.',
        lastHeartbeatTime: '2025-12-31T00:00:00Z',
        lastTransitionTime: now,
      },
      {
        type: 'PIDPressure',
        status: 'Unknown',
        reason: 'NodeStatusNeverUpdated',
        message: 'Kubelet never posted node status.',
        lastHeartbeatTime: '2025-12-31T00:00:00Z',
        lastTransitionTime: now,
      },
    ]);
    assert.equal(before[1]?.status, 'True', 'the cached node is not changed');
  });

  it('writes nothing when Ready is already Unknown', () => {
    assert.equal(
      markedUnknown(
        node([
          { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' },
          { type: 'DiskPressure', status: 'True' },
        ]),
        now,
      ),
      undefined,
    );
  });

  it('adds every condition to a node that never posted one', () => {
    const marked = markedUnknown(node([]), now);
    assert.deepEqual(
      (marked?.status?.conditions ?? []).map((c) => [c.type, c.status, c['reason']]),
      ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((t) => [t, 'Unknown', 'NodeStatusNeverUpdated']),
    );
  });
});
