import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { poolSizeFlag, sharedHostNodeFlags, sharedHostPoolSize } from './shared-host.ts';

describe('shared host flags', () => {
  it('gives V8 half the cores, at least one and at most its default four', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 8, 16, 64].map((cores) => sharedHostPoolSize(cores)),
      [1, 1, 1, 2, 4, 4, 4],
    );
    assert.deepEqual(sharedHostNodeFlags(6), ['--v8-pool-size=3']);
  });

  it('tells whether a pool size was chosen already, on the command line or in NODE_OPTIONS', () => {
    assert.equal(poolSizeFlag(['--import', 'tsx'], ''), undefined);
    assert.equal(poolSizeFlag(['--v8-pool-size=2'], ''), '--v8-pool-size=2');
    assert.equal(poolSizeFlag([], '--max-old-space-size=512 --v8-pool-size=1'), '--v8-pool-size=1');
    assert.equal(poolSizeFlag([], '--v8-pool-size-other'), undefined);
  });
});
