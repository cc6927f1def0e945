import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { QueueSet, type Waiter } from './queue-set.ts';

/** A waiter that records the order in which waiters are dispatched. */
function waiter(name: string, order: string[]): Waiter {
  return { dispatch: () => order.push(name) };
}

const queuing = { queues: 8, handSize: 2, queueLengthLimit: 3 };

describe('QueueSet', () => {
  it('dispatches at once up to its limit, then queues, and gives freed seats to the waiting', () => {
    const order: string[] = [];
    const set = new QueueSet(2, queuing);
    assert.equal(
      set.enqueue(waiter('a', order), () => 1),
      'dispatched',
    );
    assert.equal(
      set.enqueue(waiter('b', order), () => 1),
      'dispatched',
    );
    assert.equal(
      set.enqueue(waiter('c', order), () => 1),
      'queued',
    );
    assert.deepEqual([set.executing, set.waiting], [2, 1]);
    assert.deepEqual(order, []);
    set.release();
    assert.deepEqual(order, ['c']);
    assert.deepEqual([set.executing, set.waiting], [2, 0]);
  });

  it('turns a request away when the shortest queue of its hand is full', () => {
    const order: string[] = [];
    const set = new QueueSet(1, { queues: 1, handSize: 1, queueLengthLimit: 2 });
    assert.equal(
      set.enqueue(waiter('run', order), () => 0),
      'dispatched',
    );
    assert.equal(
      set.enqueue(waiter('w1', order), () => 0),
      'queued',
    );
    assert.equal(
      set.enqueue(waiter('w2', order), () => 0),
      'queued',
    );
    assert.equal(
      set.enqueue(waiter('w3', order), () => 0),
      'queue-full',
    );
    assert.equal(set.waiting, 2);
  });

  it('spreads one flow over the queues of its hand', () => {
    const order: string[] = [];
    const set = new QueueSet(1, { queues: 8, handSize: 2, queueLengthLimit: 1 });
    set.enqueue(waiter('run', order), () => 5);
    assert.equal(
      set.enqueue(waiter('x1', order), () => 5),
      'queued',
    );
    assert.equal(
      set.enqueue(waiter('x2', order), () => 5),
      'queued',
    );
    assert.equal(
      set.enqueue(waiter('x3', order), () => 5),
      'queue-full',
    );
  });

  it('serves a light flow in its turn however many requests a heavy flow queued before it', () => {
    const order: string[] = [];
    const set = new QueueSet(1, { queues: 64, handSize: 1, queueLengthLimit: 50 });
    set.enqueue(waiter('run', order), () => 0);
    for (let i = 0; i < 20; i++) set.enqueue(waiter(`heavy${i}`, order), () => 3);
    set.enqueue(waiter('light', order), () => 40);
    for (let i = 0; i < 4; i++) set.release();
    assert.deepEqual(order, ['heavy0', 'light', 'heavy1', 'heavy2']);
  });

  it('takes a withdrawn request out of its queue without a dispatch', () => {
    const order: string[] = [];
    const set = new QueueSet(1, queuing);
    set.enqueue(waiter('run', order), () => 0);
    const leaving = waiter('leaving', order);
    set.enqueue(leaving, () => 0);
    set.enqueue(waiter('staying', order), () => 0);
    assert.equal(set.withdraw(leaving), true);
    assert.equal(set.withdraw(leaving), false);
    set.release();
    assert.deepEqual(order, ['staying']);
    assert.deepEqual([set.executing, set.waiting], [1, 0]);
  });

  it('rejects beyond its limit when it has no queues (limit response Reject)', () => {
    const order: string[] = [];
    const set = new QueueSet(1, undefined);
    assert.equal(
      set.enqueue(waiter('a', order), () => 0),
      'dispatched',
    );
    assert.equal(
      set.enqueue(waiter('b', order), () => 0),
      'concurrency-limit',
    );
    set.release();
    assert.equal(
      set.enqueue(waiter('c', order), () => 0),
      'dispatched',
    );
  });
});
