import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../shared/api/types.ts';
import { gracefulDeletion } from './graceful-deletion.ts';

const now = new Date('2024-05-06T07:08:09Z');
const thirty = (): number => 30;

describe('gracefulDeletion', () => {
  it('marks an object not yet being deleted with the period the kind picks, from now', () => {
    const obj: KubeObject = { metadata: { name: 'p' } };
    assert.deepEqual(gracefulDeletion(obj, undefined, thirty, now), { kind: 'graceful', period: 30, deletionTimestamp: '2024-05-06T07:08:39Z' });
    assert.deepEqual(
      gracefulDeletion(obj, 5, (_o, requested) => requested ?? 30, now),
      { kind: 'graceful', period: 5, deletionTimestamp: '2024-05-06T07:08:14Z' },
    );
    assert.deepEqual(
      gracefulDeletion(obj, -5, (_o, requested) => requested ?? 30, now),
      { kind: 'graceful', period: 1, deletionTimestamp: '2024-05-06T07:08:10Z' },
    );
  });

  it('only shortens a pending grace period, moving the timestamp by the difference', () => {
    const marked: KubeObject = { metadata: { name: 'p', deletionTimestamp: '2024-05-06T07:08:39Z', deletionGracePeriodSeconds: 30 } };
    assert.deepEqual(gracefulDeletion(marked, undefined, thirty, now), { kind: 'pending' });
    assert.deepEqual(gracefulDeletion(marked, 30, thirty, now), { kind: 'pending' });
    assert.deepEqual(gracefulDeletion(marked, 0, thirty, now), { kind: 'graceful', period: 0, deletionTimestamp: '2024-05-06T07:08:09Z' });
  });

  it('leaves an object whose grace period is over to the generic rules', () => {
    const done: KubeObject = { metadata: { name: 'p', deletionTimestamp: '2024-05-06T07:08:09Z', deletionGracePeriodSeconds: 0 } };
    assert.deepEqual(gracefulDeletion(done, 10, thirty, now), { kind: 'none' });
  });
});
