import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredValue } from '../etcd/store.ts';
import type { StorageEvent } from '../etcd/watch.ts';
import { decodeStoredObject, encodeStoredObject } from '../stored-value.ts';
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

  describe('superseded values held as text', () => {
    const key = '/registry/leases/kube-node-lease/node-1';
    /** A put of the lease at `revision` as the cache's feed hands it: decoded, with its stored text. */
    const put = (revision: number, renewTime: string, previous: StoredValue | null, text = true): StorageEvent => {
      const stored = encodeStoredObject({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'node-1', namespace: 'kube-node-lease' },
        spec: { renewTime },
      });
      return { type: 'put', key, value: decodeStoredObject(key, stored, revision), previous, revision, ...(text ? { text: stored } : {}) };
    };
    const replay = (h: EventHistory, after = 0): StorageEvent[] => {
      const out: StorageEvent[] = [];
      h.forEachAfter(after, (e) => out.push(e));
      return out;
    };
    const renewTimeOf = (value: StoredValue | null | undefined): unknown => (value?.object['spec'] as Record<string, unknown> | undefined)?.['renewTime'];

    it('replays a superseded put from its text, equal to what was pushed, with the earlier value as its previous', () => {
      const { history: h } = history({ freshMs: 75_000, lowerBound: 2, upperBound: 100 });
      h.reset(1);
      const first = put(2, 't2', null);
      const second = put(3, 't3', first.value);
      h.push(first);
      h.push(second);
      // The cache's objects are shared and never changed; a change here shows what the history still holds.
      (first.value.object['spec'] as Record<string, unknown>)['renewTime'] = 'changed after it was superseded';
      const [a, b] = replay(h);
      assert.deepEqual(a?.value.object, { ...first.value.object, spec: { renewTime: 't2' } });
      assert.equal(a?.value.object.metadata.resourceVersion, '2');
      assert.equal(a?.previous, null);
      assert.equal(b?.value, second.value, 'the newest event of a key keeps its object');
      assert.equal(renewTimeOf(b?.previous), 't2');
      assert.equal(b?.previous?.modRevision, 2);
    });

    it('keeps the previous value of the oldest held event of a key once the event before it is dropped', () => {
      const { history: h, at } = history({ freshMs: 75_000, lowerBound: 1, upperBound: 100 });
      h.reset(1);
      const events: StorageEvent[] = [];
      for (let r = 2; r <= 4; r++) {
        at(r * 40_000);
        const event = put(r, `t${r}`, events.at(-1)?.value ?? null);
        events.push(event);
        h.push(event);
      }
      assert.equal(h.startRevision, 2, 'the event at 2 is dropped');
      const replayed = replay(h, 2);
      assert.deepEqual(
        replayed.map((e) => [e.revision, renewTimeOf(e.value), renewTimeOf(e.previous)]),
        [
          [3, 't3', 't2'],
          [4, 't4', 't3'],
        ],
      );
    });

    it('keeps the object of a put without text, and of a delete', () => {
      const { history: h } = history({ freshMs: 75_000, lowerBound: 2, upperBound: 100 });
      h.reset(1);
      const untexted = put(2, 't2', null, false);
      h.push(untexted);
      const deleted: StorageEvent = { type: 'delete', key, value: { ...untexted.value, modRevision: 3 }, previous: untexted.value, revision: 3 };
      h.push(deleted);
      const recreated = put(4, 't4', null);
      h.push(recreated);
      const [a, b, c] = replay(h);
      assert.equal(a?.value, untexted.value);
      assert.equal(b?.value, deleted.value);
      assert.equal(b?.previous, untexted.value);
      assert.equal(c?.value, recreated.value);
      assert.equal(c?.previous, null);
    });

    it('keeps the object of a value too large to decode in one call', () => {
      const { history: h } = history({ freshMs: 75_000, lowerBound: 2, upperBound: 100 });
      h.reset(1);
      const large = put(2, 'x'.repeat(300 * 1024), null);
      h.push(large);
      h.push(put(3, 't3', large.value));
      const [a, b] = replay(h);
      assert.equal(a?.value, large.value);
      assert.equal(b?.previous, large.value);
    });
  });
});
