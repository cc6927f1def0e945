import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StorageEvent } from '../etcd/watch.ts';
import { EventHistory } from './event-history.ts';

const event = (revision: number): StorageEvent => {
  const value = { object: { metadata: { name: `o${revision}`, resourceVersion: String(revision) } }, modRevision: revision };
  return { type: 'put', key: `/registry/configmaps/ns/o${revision}`, value, previous: null, revision };
};

/** A history on a clock the test moves. */
function history(bounds: { freshMs: number; lowerBound: number; upperBound: number }): { history: EventHistory; at: (ms: number) => void } {
  let now = 0;
  return { history: new EventHistory({ ...bounds, now: () => now }), at: (ms) => void (now = ms) };
}

const revisionsAfter = (h: EventHistory, revision: number): number[] => {
  const out: number[] = [];
  h.forEachAfter(revision, (e) => out.push(e.revision));
  return out;
};

describe('the watch cache’s event history', () => {
  it('keeps every event younger than the fresh duration, however many', () => {
    const { history: h, at } = history({ freshMs: 75_000, lowerBound: 2, upperBound: 100_000 });
    h.reset(10);
    for (let r = 11; r <= 5010; r++) {
      at(r);
      h.push(event(r));
    }
    assert.equal(h.length, 5000);
    assert.equal(h.startRevision, 10);
    assert.deepEqual(revisionsAfter(h, 5007), [5008, 5009, 5010]);
  });

  it('drops events past the fresh duration down to the lower bound, and resumes only after what it dropped', () => {
    const { history: h, at } = history({ freshMs: 75_000, lowerBound: 2, upperBound: 100_000 });
    h.reset(10);
    for (let r = 11; r <= 15; r++) {
      at(r * 1000);
      h.push(event(r));
    }
    at(91_000); // 11..15 are all more than 75 s old now; the lower bound keeps 15 with 16.
    h.push(event(16));
    assert.deepEqual(revisionsAfter(h, 0), [15, 16]);
    assert.equal(h.startRevision, 14, 'a watch can resume after 14, not before');
    assert.equal(h.lastRevision, 16);
  });

  it('never holds more than the upper bound, and stays correct across its compaction', () => {
    const { history: h } = history({ freshMs: 75_000, lowerBound: 2, upperBound: 1500 });
    h.reset(0);
    for (let r = 1; r <= 10_000; r++) h.push(event(r));
    assert.equal(h.length, 1500);
    assert.equal(h.startRevision, 8500);
    const all = revisionsAfter(h, 0);
    assert.equal(all.length, 1500);
    assert.equal(all[0], 8501);
    assert.equal(all.at(-1), 10_000);
    assert.deepEqual(revisionsAfter(h, 9998), [9999, 10_000]);
    h.reset(20_000);
    assert.equal(h.length, 0);
    assert.equal(h.lastRevision, undefined);
    assert.equal(h.startRevision, 20_000);
  });
});
