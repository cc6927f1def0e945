import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WatchBudget, type WatchBudgetLimits, type WatchCloseReason } from './watch-budget.ts';

const limits: WatchBudgetLimits = { totalBytes: 1000, watcherBytes: 100, watcherFrames: 10, blockedTimeoutMs: 5_000 };

/** A budget on a clock the test moves, and the closes it decided, in order. */
function setup(overrides: Partial<WatchBudgetLimits> = {}) {
  let now = 0;
  const budget = new WatchBudget({ ...limits, ...overrides }, () => now);
  const closed: string[] = [];
  const watcher = (name: string) => budget.open((reason: WatchCloseReason) => closed.push(`${name}:${reason}`));
  return { budget, closed, watcher, advance: (ms: number) => void (now += ms) };
}

describe('WatchBudget', () => {
  it('counts charged bytes until they are released, per watcher and in total', () => {
    const { budget, watcher } = setup();
    const a = watcher('a');
    const b = watcher('b');
    assert.equal(a.charge(60), true);
    assert.equal(b.charge(30), true);
    assert.equal(a.charge(20), true);
    assert.equal(a.bufferedBytes, 80);
    assert.equal(budget.bufferedBytes, 110);
    a.release(60);
    assert.equal(a.bufferedBytes, 20);
    assert.equal(budget.bufferedBytes, 50);
    assert.equal(budget.peakBufferedBytes, 110);
    assert.equal(budget.watchers, 2);
  });

  it('lets a blocked watcher that drains in time go on', () => {
    const { closed, watcher, advance } = setup();
    const a = watcher('a');
    assert.equal(a.charge(150), true, 'a frame larger than the limit is written');
    advance(4_999);
    a.release(150);
    advance(10_000);
    assert.equal(a.charge(150), true, 'draining below the limit unblocked it');
    advance(4_999);
    assert.equal(a.charge(10), true);
    assert.deepEqual(closed, []);
  });

  it('closes a watcher still blocked after the timeout on its next frame', () => {
    const { budget, closed, watcher, advance } = setup();
    const a = watcher('a');
    assert.equal(a.charge(120), true);
    advance(3_000);
    a.release(10);
    assert.equal(a.charge(40), true, 'released some, still over its limit, still within the timeout');
    advance(2_000);
    assert.equal(a.charge(1), false);
    assert.deepEqual(closed, ['a:blocked']);
    assert.equal(a.open, false);
    assert.equal(budget.bufferedBytes, 0, 'a closed watcher holds nothing');
    assert.equal(budget.closed.blocked, 1);
    assert.equal(a.charge(1), false, 'a closed watcher stays closed');
    a.release(50);
    assert.equal(budget.bufferedBytes, 0, 'late releases are ignored');
  });

  it('blocks a watcher on unsent frames as well as bytes', () => {
    const { closed, watcher, advance } = setup();
    const a = watcher('a');
    for (let i = 0; i < 11; i++) assert.equal(a.charge(1), true);
    assert.equal(a.bufferedFrames, 11);
    advance(5_000);
    a.release(1);
    assert.equal(a.charge(1), true, 'ten frames unsent is within the limit: unblocked');
    advance(5_000);
    assert.equal(a.charge(1), false, 'eleven again, blocked since the last frame, and the timeout passed');
    assert.deepEqual(closed, ['a:blocked']);
  });

  it('the timeout counts from when the watcher went over its limit, not from its last frame', () => {
    const { closed, watcher, advance } = setup();
    const a = watcher('a');
    a.charge(101);
    for (let i = 0; i < 4; i++) {
      advance(1_000);
      assert.equal(a.charge(1), true);
    }
    advance(1_000);
    assert.equal(a.charge(1), false);
    assert.deepEqual(closed, ['a:blocked']);
  });

  it('keeps the total within budget by evicting blocked watchers, those holding most first', () => {
    const { budget, closed, watcher } = setup();
    const small = watcher('small');
    const large = watcher('large');
    const reading = watcher('reading');
    const within = watcher('within');
    assert.equal(small.charge(200), true);
    assert.equal(large.charge(500), true);
    assert.equal(within.charge(90), true);
    // 790 held; 300 more needs 90 freed: the largest blocked watcher goes, the others stay.
    assert.equal(reading.charge(300), true);
    assert.deepEqual(closed, ['large:budget']);
    assert.equal(budget.bufferedBytes, 590);
    assert.equal(small.open && within.open && reading.open, true);
    assert.ok(budget.peakBufferedBytes <= 1000);
    assert.equal(budget.closed.budget, 1);
  });

  it('closes the watcher whose frame does not fit when evicting blocked ones is not enough', () => {
    const { budget, closed, watcher } = setup({ watcherBytes: 600 });
    const a = watcher('a');
    const b = watcher('b');
    assert.equal(a.charge(500), true);
    assert.equal(b.charge(400), true);
    assert.equal(b.charge(200), false, 'nothing is blocked, so the frame that does not fit closes its watcher');
    assert.deepEqual(closed, ['b:budget']);
    assert.equal(a.open, true);
    assert.equal(budget.bufferedBytes, 500);
    assert.equal(budget.peakBufferedBytes, 900);
  });

  it('may evict the charging watcher itself when it is the one blocked', () => {
    const { budget, closed, watcher } = setup();
    const a = watcher('a');
    const b = watcher('b');
    assert.equal(a.charge(950), true);
    assert.equal(b.charge(50), true);
    assert.equal(a.charge(10), false);
    assert.deepEqual(closed, ['a:budget']);
    assert.equal(budget.bufferedBytes, 50);
  });

  it('a watch that ends by itself leaves the budget without a close callback', () => {
    const { budget, closed, watcher } = setup();
    const a = watcher('a');
    a.charge(700);
    a.close();
    assert.equal(budget.bufferedBytes, 0);
    assert.equal(budget.watchers, 0);
    const b = watcher('b');
    assert.equal(b.charge(900), true, 'its bytes are free for others');
    assert.deepEqual(closed, []);
  });

  it('never lets the total pass the budget, whatever the mix of frames', () => {
    const { budget, watcher, advance } = setup();
    const accounts = Array.from({ length: 20 }, (_, i) => watcher(`w${i}`));
    // A deterministic mix: most never release (hostile), every fifth releases what it wrote.
    for (let round = 0; round < 200; round++) {
      advance(100);
      accounts.forEach((account, i) => {
        const bytes = 10 + ((round * 7 + i * 13) % 90);
        if (account.charge(bytes) && i % 5 === 0) account.release(bytes);
      });
      assert.ok(budget.bufferedBytes <= 1000);
    }
    assert.ok(budget.peakBufferedBytes <= 1000);
    accounts.forEach((account, i) => assert.equal(account.open, i % 5 === 0, `w${i}`));
    assert.equal(budget.closed.blocked + budget.closed.budget, 16);
  });
});
