import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { frameKey, RecentFrames } from './recent-frames.ts';

const bytes = (n: number): Uint8Array => new Uint8Array(n);

describe('RecentFrames', () => {
  it('keeps frames by object and key', () => {
    const frames = new RecentFrames(10, 1000);
    const object = {};
    const added = bytes(3);
    frames.set(object, frameKey('json', 'ADDED'), added);
    assert.equal(frames.get(object, 'ADDED'), added);
    assert.equal(frames.get(object, frameKey('protobuf', 'ADDED')), undefined);
    assert.equal(frames.get({}, 'ADDED'), undefined);
    assert.equal(frames.keptBytes, 3);
  });

  it('lets the oldest objects go beyond the count', () => {
    const frames = new RecentFrames(2, 1000);
    const [a, b, c] = [{}, {}, {}];
    frames.set(a, 'ADDED', bytes(1));
    frames.set(b, 'ADDED', bytes(1));
    frames.set(c, 'ADDED', bytes(1));
    assert.equal(frames.get(a, 'ADDED'), undefined);
    assert.ok(frames.get(b, 'ADDED'));
    assert.ok(frames.get(c, 'ADDED'));
    assert.equal(frames.size, 2);
    assert.equal(frames.keptBytes, 2);
  });

  it('lets the oldest objects go beyond the bytes, but keeps the newest whatever its size', () => {
    const frames = new RecentFrames(10, 100);
    const [a, b, c] = [{}, {}, {}];
    frames.set(a, 'ADDED', bytes(60));
    frames.set(b, 'ADDED', bytes(30));
    frames.set(b, 'MODIFIED', bytes(30));
    assert.equal(frames.get(a, 'ADDED'), undefined, 'a went for b');
    assert.equal(frames.keptBytes, 60);
    frames.set(c, 'ADDED', bytes(500));
    assert.equal(frames.size, 1);
    assert.equal(frames.get(c, 'ADDED')?.byteLength, 500);
    assert.equal(frames.keptBytes, 500);
  });

  it('keeps exactly the newest objects over a long stream of them, in the order they came', () => {
    const frames = new RecentFrames(100, 1_000_000);
    const objects = Array.from({ length: 10_000 }, () => ({}));
    objects.forEach((object, i) => frames.set(object, 'MODIFIED', bytes(1 + (i % 7))));
    assert.equal(frames.size, 100);
    assert.deepEqual(
      objects.map((object, i) => (frames.get(object, 'MODIFIED') ? i : -1)).filter((i) => i >= 0),
      Array.from({ length: 100 }, (_, i) => 9_900 + i),
    );
    let keptBytes = 0;
    for (let i = 9_900; i < 10_000; i++) keptBytes += 1 + (i % 7);
    assert.equal(frames.keptBytes, keptBytes);
  });

  it('counts a replaced frame once', () => {
    const frames = new RecentFrames(10, 100);
    const a = {};
    frames.set(a, 'ADDED', bytes(40));
    frames.set(a, 'ADDED', bytes(50));
    assert.equal(frames.keptBytes, 50);
  });

  it('makes a key per format and type', () => {
    assert.equal(frameKey('json', 'ADDED'), 'ADDED');
    assert.equal(frameKey('protobuf', 'ADDED'), 'protobuf ADDED');
    assert.equal(frameKey('protobuf', 'ADDED'), frameKey('protobuf', 'ADDED'));
  });
});
