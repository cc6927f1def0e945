import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { runSteps } from '../../shared/apply/steps.ts';
import { ChangeDecoder, decodeChangesSteps, type ChangeDecoding, type StoredChange } from './changes.ts';
import type { StorageEvent } from './etcd/watch.ts';
import { decodeStoredObject, encodeStoredObject } from './stored-value.ts';

const text = (name: string, data: Record<string, string> = {}): string =>
  encodeStoredObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });
/** decodeChangesSteps at once. */
const decodeChanges = (changes: readonly StoredChange[], decoding: ChangeDecoding = {}): StorageEvent[] => runSteps(decodeChangesSteps(changes, decoding));
const key = (name: string): string => `/registry/configmaps/default/${name}`;

/** A ConfigMap whose stored text is well over the size parsed in one call. */
function largeText(name: string): string {
  const data: Record<string, string> = {};
  for (let i = 0; i < 30_000; i++) data[`key-${i}`] = 'value';
  return text(name, data);
}

describe('decodeChanges', () => {
  it('takes a previous value the caller holds instead of decoding it again', () => {
    const held = decodeStoredObject(key('a'), text('a'), 5);
    const bad: unknown[] = [];
    const [event] = decodeChanges([{ key: key('a'), revision: 7, value: text('a', { x: 'y' }), previous: { text: 'not json', modRevision: 5 } }], {
      known: (k) => (k === key('a') ? held : undefined),
      onBadValue: (err) => bad.push(err),
    });
    assert.equal(event?.previous, held);
    assert.deepEqual(event?.value.object.data, { x: 'y' });
    assert.equal(event?.value.object.metadata.resourceVersion, '7');
    assert.deepEqual(bad, []);
  });

  it('decodes a previous value the caller holds at another revision', () => {
    const held = decodeStoredObject(key('a'), text('a'), 4);
    const [event] = decodeChanges([{ key: key('a'), revision: 7, value: text('a'), previous: { text: text('a', { old: '1' }), modRevision: 5 } }], {
      known: () => held,
    });
    assert.notEqual(event?.previous, held);
    assert.deepEqual(event?.previous?.object.data, { old: '1' });
    assert.equal(event?.previous?.object.metadata.resourceVersion, '5');
  });

  it("gives a key changed twice in one batch its first change's value as the second's previous", () => {
    const events = decodeChanges([
      { key: key('a'), revision: 3, value: text('a', { n: '1' }), previous: null },
      { key: key('a'), revision: 4, value: text('a', { n: '2' }), previous: { text: text('a', { n: '1' }), modRevision: 3 } },
      { key: key('a'), revision: 5, value: null, previous: { text: text('a', { n: '2' }), modRevision: 4 } },
    ]);
    assert.deepEqual(
      events.map((e) => e.type),
      ['put', 'put', 'delete'],
    );
    assert.equal(events[1]?.previous, events[0]?.value);
    assert.equal(events[2]?.previous, events[1]?.value);
  });

  it('reports a delete with the last value under the deletion revision, leaving the shared previous object as it was', () => {
    const held = decodeStoredObject(key('a'), text('a', { n: '1' }), 4);
    const [event] = decodeChanges([{ key: key('a'), revision: 9, value: null, previous: { text: text('a', { n: '1' }), modRevision: 4 } }], {
      known: () => held,
    });
    assert.equal(event?.type, 'delete');
    assert.equal(event?.value.modRevision, 9);
    assert.equal(event?.value.object.metadata.resourceVersion, '9');
    assert.deepEqual(event?.value.object.data, { n: '1' });
    assert.equal(held.object.metadata.resourceVersion, '4');
    assert.equal(event?.previous, held);
  });

  it("takes a 'held' previous value from the caller or the batch: an update, a delete, a create and a delete of a key never held", () => {
    const held = decodeStoredObject(key('a'), text('a', { n: '1' }), 4);
    const known = (k: string) => (k === key('a') ? held : undefined);
    const events = decodeChanges(
      [
        { key: key('a'), revision: 6, value: text('a', { n: '2' }), previous: 'held' },
        { key: key('a'), revision: 7, value: null, previous: 'held' },
        { key: key('b'), revision: 8, value: text('b'), previous: 'held' },
        { key: key('c'), revision: 9, value: null, previous: 'held' },
      ],
      { known },
    );
    assert.deepEqual(
      events.map((e) => [e.type, e.key, e.revision]),
      [
        ['put', key('a'), 6],
        ['delete', key('a'), 7],
        ['put', key('b'), 8],
      ],
    );
    assert.equal(events[0]?.previous, held, 'the caller holds it');
    assert.equal(events[1]?.previous, events[0]?.value, 'the batch changed it before');
    assert.deepEqual(events[1]?.value.object.data, { n: '2' });
    assert.equal(events[2]?.previous, null, 'a create: nobody holds it');
  });

  it("takes no 'held' previous value for a key deleted earlier in the batch, though the caller still holds it", () => {
    const held = decodeStoredObject(key('a'), text('a', { n: '1' }), 4);
    const events = decodeChanges(
      [
        { key: key('a'), revision: 6, value: null, previous: 'held' },
        { key: key('a'), revision: 7, value: text('a', { n: '2' }), previous: 'held' },
      ],
      { known: () => held },
    );
    assert.deepEqual(
      events.map((e) => [e.type, e.revision, e.previous?.modRevision ?? null]),
      [
        ['delete', 6, 4],
        ['put', 7, null],
      ],
    );
  });

  it('drops a delete of a value never seen, and skips a value that is not an object, reporting it', () => {
    const bad: unknown[] = [];
    const events = decodeChanges(
      [
        { key: key('gone'), revision: 2, value: null, previous: null },
        { key: key('corrupt'), revision: 3, value: '[1, 2', previous: null },
        { key: key('b'), revision: 4, value: text('b'), previous: null },
      ],
      { onBadValue: (err) => bad.push(err) },
    );
    assert.deepEqual(
      events.map((e) => e.key),
      [key('b')],
    );
    assert.equal(bad.length, 1);
    assert.match(String(bad[0]), /is not JSON/);
  });

  it('decodes a large value as JSON.parse would', () => {
    const large = largeText('large');
    const [event] = decodeChanges([{ key: key('large'), revision: 2, value: large, previous: null }]);
    const expected: unknown = { ...JSON.parse(large), metadata: { ...JSON.parse(large).metadata, resourceVersion: '2' } };
    assert.deepEqual(event?.value.object, expected);
  });
});

describe('ChangeDecoder', () => {
  const unexpected = (err: unknown): never => assert.fail(`unexpected failure: ${String(err)}`);
  const put = (name: string, revision: number, value = text(name)): StoredChange => ({ key: key(name), revision, value, previous: null });

  it('hands a batch of small values over at once', () => {
    const decoder = new ChangeDecoder({}, unexpected);
    const got: StorageEvent[][] = [];
    decoder.push([put('a', 2), put('b', 3)], (events) => got.push(events));
    assert.deepEqual(
      got.map((events) => events.map((e) => e.revision)),
      [[2, 3]],
    );
  });

  it('decodes a large value over turns of the loop, keeping the batches behind it, and the end, in order', async () => {
    const decoder = new ChangeDecoder({}, unexpected);
    const order: string[] = [];
    decoder.push([put('large', 2, largeText('large'))], (events) => order.push(`large@${events.map((e) => e.revision).join(',')}`));
    decoder.push([put('small', 3)], (events) => order.push(`small@${events.map((e) => e.revision).join(',')}`));
    decoder.after(() => order.push('end'));
    assert.deepEqual(order, [], 'nothing is handed over before the large value is decoded');
    while (order.length < 3) await nextTurn();
    assert.deepEqual(order, ['large@2', 'small@3', 'end']);
  });

  it('sees the values of the batches before it as known', async () => {
    const held = new Map<string, StorageEvent['value']>();
    const decoder = new ChangeDecoder({ known: (k) => held.get(k) }, unexpected);
    const got: StorageEvent[] = [];
    const take = (events: StorageEvent[]): void => {
      for (const e of events) {
        held.set(e.key, e.value);
        got.push(e);
      }
    };
    const large = largeText('a');
    decoder.push([put('a', 2, large)], take);
    decoder.push([{ key: key('a'), revision: 3, value: text('a'), previous: { text: large, modRevision: 2 } }], take);
    while (got.length < 2) await nextTurn();
    assert.equal(got[1]?.previous, got[0]?.value);
  });

  it('hands nothing over once stopped, and reports a failing receiver without stopping the batches behind it', async () => {
    const failures: unknown[] = [];
    const decoder = new ChangeDecoder({}, (err) => failures.push(err));
    const got: number[] = [];
    decoder.push([put('a', 2)], () => {
      throw new Error('receiver failed');
    });
    decoder.push([put('b', 3)], (events) => got.push(...events.map((e) => e.revision)));
    assert.deepEqual(got, [3]);
    assert.match(String(failures[0]), /receiver failed/);

    decoder.push([put('large', 4, largeText('large'))], (events) => got.push(...events.map((e) => e.revision)));
    decoder.stop();
    decoder.push([put('c', 5)], (events) => got.push(...events.map((e) => e.revision)));
    for (let i = 0; i < 50; i++) await nextTurn();
    assert.deepEqual(got, [3]);
  });
});
