import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { shareUnchanged } from './share-unchanged.ts';

interface LeaseFixture extends Record<string, unknown> {
  metadata: Record<string, unknown>;
  spec: { holderIdentity: string; leaseDurationSeconds: number; renewTime: string };
}

/** A Lease as JSON.parse makes it: every part a new object. */
const lease = (renewTime: string): LeaseFixture =>
  JSON.parse(
    JSON.stringify({
      metadata: {
        name: 'node-1',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'u-1' }],
        managedFields: [{ manager: 'agent', fieldsV1: { 'f:spec': { 'f:holderIdentity': {}, 'f:renewTime': {} } } }],
      },
      spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime },
    }),
  ) as LeaseFixture;

describe('shareUnchanged', () => {
  it("takes the previous version's parts that did not change, and keeps its own that did", () => {
    const previous = lease('2026-11-28T21:00:00.000000Z');
    const next = lease('2026-11-28T21:00:10.000000Z');
    const text = JSON.stringify(next);
    assert.equal(shareUnchanged(next, previous), false);
    assert.equal(next.metadata, previous.metadata, 'metadata is equal throughout');
    assert.notEqual(next.spec, previous.spec);
    assert.equal(next.spec.renewTime, '2026-11-28T21:00:10.000000Z');
    assert.equal(JSON.stringify(next), text, 'it serializes as before');
  });

  it('says two equal versions are equal, sharing every part', () => {
    const previous = lease('t');
    const next = lease('t');
    assert.equal(shareUnchanged(next, previous), true);
    assert.equal(next.spec, previous.spec);
  });

  it('shares no object whose keys come in another order, since it would serialize differently', () => {
    const previous = { spec: { a: 1, b: { c: 2 } } };
    const next = { spec: { b: { c: 2 }, a: 1 } };
    assert.equal(shareUnchanged(next, previous), false);
    assert.notEqual(next.spec, previous.spec);
    assert.equal(next.spec.b, previous.spec.b, 'an equal part of it is still shared');
    assert.equal(JSON.stringify(next), '{"spec":{"b":{"c":2},"a":1}}');
  });

  it('shares an own __proto__ key without changing the prototype', () => {
    const text = '{"__proto__":{"x":1},"y":{"z":1},"w":{"__proto__":null}}';
    const previous = JSON.parse(text) as Record<string, unknown>;
    const next = JSON.parse(text) as Record<string, unknown>;
    assert.equal(shareUnchanged(next, previous), true);
    assert.equal(Object.getPrototypeOf(next), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(next, '__proto__')?.value, previous['__proto__']);
    assert.equal(next['y'], previous['y']);
    assert.equal(JSON.stringify(next), text);
  });

  it('never changes what either serializes to, and is equal exactly when the texts are', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const edit = fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.option(json, { freq: 3 }));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), json), fc.array(edit, { maxLength: 2 }), (base, edits) => {
        const previous = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
        const next = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
        for (const [key, value] of edits) {
          if (value === null) delete next[key];
          else next[key] = JSON.parse(JSON.stringify(value)) as unknown;
        }
        const [before, previousBefore] = [JSON.stringify(next), JSON.stringify(previous)];
        const equal = shareUnchanged(next, previous);
        assert.equal(JSON.stringify(next), before);
        assert.equal(JSON.stringify(previous), previousBefore);
        assert.equal(equal, before === previousBefore);
      }),
      // Once found by CI: equal texts with an own `__proto__` key, deep down.
      { numRuns: 2000, examples: [[{ a: JSON.parse('{"":{"__proto__":null}}') as fc.JsonValue }, []]] },
    );
  });
});
