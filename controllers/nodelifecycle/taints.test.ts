import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node, Taint } from './node-conditions.ts';
import { changedTaints, noExecuteFor, noScheduleChanges } from './taints.ts';

function node(conditions: [string, string][], taints: Taint[] = [], unschedulable = false): Node {
  return { metadata: { name: 'n1' }, spec: { taints, unschedulable }, status: { conditions: conditions.map(([type, status]) => ({ type, status })) } };
}

describe('node controller taints', () => {
  it('wants NoSchedule taints mirroring conditions, and removes only its own', () => {
    const n = node(
      [
        ['Ready', 'Unknown'],
        ['DiskPressure', 'True'],
        ['MemoryPressure', 'False'],
      ],
      [
        { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
        { key: 'example.com/mine', effect: 'NoSchedule' },
      ],
    );
    assert.deepEqual(noScheduleChanges(n), {
      add: [
        { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule' },
      ],
      remove: [{ key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' }],
    });
    assert.deepEqual(noScheduleChanges(node([['Ready', 'True']], [], true)).add, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]);
  });

  it('wants not-ready or unreachable NoExecute by Ready, never both', () => {
    assert.deepEqual(noExecuteFor(node([['Ready', 'False']])), {
      want: { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
      opposite: { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
    });
    assert.equal(noExecuteFor(node([['Ready', 'Unknown']]))?.want.key, 'node.kubernetes.io/unreachable');
    assert.equal(noExecuteFor(node([['Ready', 'True']])), undefined);
    assert.equal(noExecuteFor(node([])), undefined);
  });

  it('changes taints by key and effect, stamping what it adds', () => {
    const n = node(
      [],
      [
        { key: 'a', value: 'v', effect: 'NoSchedule' },
        { key: 'b', effect: 'NoExecute', timeAdded: 'old' },
      ],
    );
    assert.deepEqual(
      changedTaints(
        n,
        [
          { key: 'b', effect: 'NoExecute' },
          { key: 'c', effect: 'NoExecute' },
        ],
        [{ key: 'a', effect: 'NoExecute' }],
        'now',
      ),
      [
        { key: 'a', value: 'v', effect: 'NoSchedule' },
        { key: 'b', effect: 'NoExecute', timeAdded: 'old' },
        { key: 'c', effect: 'NoExecute', timeAdded: 'now' },
      ],
    );
    assert.equal(changedTaints(n, [{ key: 'a', effect: 'NoSchedule' }], [{ key: 'z', effect: 'NoSchedule' }], 'now'), undefined);
  });
});
