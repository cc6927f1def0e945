import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { FakeClock } from '../../shared/client/clock.ts';
import { ExponentialBackoff, TokenBucket, defaultControllerRateLimiter } from './rate-limiter.ts';
import { WorkQueue } from './work-queue.ts';

const newQueue = (clock = new FakeClock()): WorkQueue => new WorkQueue('test', clock, defaultControllerRateLimiter(clock));

describe('WorkQueue', () => {
  it('holds a key once however often it is added, in first-added order', async () => {
    const q = newQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.length, 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
  });

  it('never hands one key to two workers: a key added while processed waits for done', async () => {
    const q = newQueue();
    q.add('a');
    const first = await q.get();
    q.add('a');
    assert.equal(q.length, 0, 'the key is not queued while processing');
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await Promise.resolve();
    assert.equal(second, undefined);
    q.done(first!);
    await new Promise((r) => setImmediate(r));
    assert.equal(second, 'a');
  });

  it('done without a re-add drops the key', async () => {
    const q = newQueue();
    q.add('a');
    q.done((await q.get())!);
    assert.equal(q.length, 0);
  });

  it('addAfter waits on the clock, the earliest of two delays winning', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter('a', 1000);
    q.addAfter('a', 500);
    clock.step(499);
    assert.equal(q.length, 0);
    clock.step(1);
    assert.equal(q.length, 1);
    clock.step(1000);
    assert.equal(q.length, 1, 'the later delay was replaced, not added');
  });

  it('addRateLimited backs off per key and forget resets it', () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addRateLimited('a'); // 5 ms
    q.addRateLimited('a'); // the pending 5 ms wins over 10 ms
    assert.equal(q.retries('a'), 2);
    clock.step(5);
    assert.equal(q.length, 1);
    q.forget('a');
    assert.equal(q.retries('a'), 0);
  });

  it('shutDown releases waiting workers with undefined and drops delayed keys', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    const waiting = q.get();
    q.addAfter('late', 100);
    q.shutDown();
    assert.equal(await waiting, undefined);
    clock.step(100);
    assert.equal(q.length, 0);
    q.add('x');
    assert.equal(q.length, 0, 'adds after shutdown are ignored');
  });

  it('hands out no key before `ready` resolves', async () => {
    let open: () => void = () => {};
    const ready = new Promise<void>((resolve) => (open = resolve));
    const clock = new FakeClock();
    const q = new WorkQueue('gated', clock, defaultControllerRateLimiter(clock), undefined, () => ready);
    q.add('a');
    let got: string | undefined;
    void q.get().then((k) => (got = k));
    await new Promise((r) => setImmediate(r));
    assert.equal(got, undefined);
    open();
    await new Promise((r) => setImmediate(r));
    assert.equal(got, 'a');
  });
});

describe('rate limiters', () => {
  it('exponential back-off doubles from 5 ms up to 1000 s', () => {
    const backoff = new ExponentialBackoff();
    const delays = Array.from({ length: 3 }, () => backoff.when('k'));
    assert.deepEqual(delays, [5, 10, 20]);
    for (let i = 0; i < 40; i++) backoff.when('k');
    assert.equal(backoff.when('k'), 1000_000);
    assert.equal(backoff.when('other'), 5, 'keys back off independently');
  });

  it('the token bucket allows a burst of 100, then 10 a second', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(clock);
    for (let i = 0; i < 100; i++) assert.equal(bucket.when(), 0);
    assert.equal(bucket.when(), 100);
    clock.step(1000);
    assert.equal(bucket.when(), 0, 'a second refills 10 tokens');
  });
});
