import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringifyJsonSliced, stringifyJsonSteps } from './json-stringify-sliced.ts';

/** The yields of a stringify and its result. */
function run(value: unknown): { yields: number; text: string } {
  const steps = stringifyJsonSteps(value);
  let yields = 0;
  for (;;) {
    const next = steps.next();
    if (next.done) return { yields, text: next.value };
    yields++;
  }
}

/** Asserts that the sliced stringify gives JSON.stringify's text; returns how many times it yielded. */
function assertSame(value: unknown): number {
  const { yields, text } = run(value);
  assert.equal(text, JSON.stringify(value));
  assert.equal(stringifyJsonSliced(value), text);
  return yields;
}

/** Asserts as assertSame, for a value large enough to be written in pieces. */
function assertSameSliced(value: unknown): void {
  const yields = assertSame(value);
  assert.ok(yields > 0, 'a test value that would not be sliced');
}

function labels(n: number, value = (i: number): unknown => `v${i}`, key = (i: number): string => `l${i}`): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[key(i)] = value(i);
  return out;
}

/** An object with `__proto__` as an own member, as JSON.parse makes it. */
function withOwnProto(members: Record<string, unknown>, proto: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  Object.defineProperty(out, '__proto__', { value: proto, writable: true, enumerable: true, configurable: true });
  return Object.assign(out, members);
}

describe('stringifyJsonSteps', () => {
  it('writes a large Node as JSON.stringify does, yielding several times', () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'large',
        labels: labels(30_000),
        managedFields: [
          {
            manager: 'm',
            operation: 'Apply',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': {
                'f:labels': labels(
                  30_000,
                  () => ({}),
                  (i) => `f:l${i}`,
                ),
              },
            },
          },
        ],
      },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const { yields, text } = run(node);
    assert.equal(text, JSON.stringify(node));
    assert.ok(yields >= 10, `${yields} yields`);
  });

  it('writes small values in one call, without yielding', () => {
    for (const value of [{}, [], '', 'x', 0, -0, 1.5e300, true, false, null, { a: [1, { b: 'c' }], d: undefined }, [undefined, () => 1]]) {
      const steps = stringifyJsonSteps(value);
      const first = steps.next();
      assert.equal(first.done, true);
      assert.equal(first.value, JSON.stringify(value));
    }
    assert.equal(stringifyJsonSliced(undefined), undefined);
  });

  it('writes empty and nested large containers, large arrays of objects, null-prototype objects', () => {
    const items = Array.from({ length: 6000 }, (_, i) => ({ name: `item-${i}`, values: [i, `s${i}`, null, true, { deep: [i], empty: {} }, []] }));
    assertSameSliced({ items, empty: {}, none: [], more: { list: items.slice(0, 3000), inner: { labels: labels(5000) } } });
    assertSameSliced([items, [], {}, [[]], labels(6000), [labels(3000), labels(3000)]]);
    assertSameSliced(Array.from({ length: 20_000 }, (_, i) => (i % 3 ? i * 1.5 : `s${i}`)));
    assertSameSliced(
      Object.assign(Object.create(null) as Record<string, unknown>, labels(10_000), { nested: Object.assign(Object.create(null) as object, labels(5000)) }),
    );
    // A chain of large containers, each inside the last.
    let chain: Record<string, unknown> = labels(2000);
    for (let i = 0; i < 20; i++) chain = { ...labels(2000, (j) => j), inner: chain, tail: labels(100) };
    assertSameSliced(chain);
  });

  it('keeps key order with integer-like keys mixed in a large object', () => {
    const numbered: Record<string, unknown> = {};
    for (let i = 30_000; i >= 0; i--) numbered[i % 2 ? `k${i}` : String(i)] = i % 5 ? i : { at: i };
    for (const key of ['4294967294', '4294967295', '-1', '01', '1.5', '1e3', '']) numbered[key] = key;
    assertSameSliced(numbered);
    assertSameSliced({
      map: numbered,
      scalars: labels(
        10_000,
        (i) => i,
        (i) => (i % 3 ? String(i * 7) : `x${i}`),
      ),
    });
  });

  it('keeps an own __proto__ member, in a batch of scalars, a batch of objects and as a large member', () => {
    assertSameSliced(withOwnProto(labels(10_000), 'scalar'));
    assertSameSliced(
      withOwnProto(
        labels(10_000, (i) => ({ i })),
        { polluted: true },
      ),
    );
    assertSameSliced({ m: withOwnProto(labels(3000), labels(10_000)) });
    assertSameSliced(JSON.parse(`{"a":${JSON.stringify(labels(8000))},"__proto__":${JSON.stringify(labels(8000))}}`));
  });

  it('omits undefined members and writes undefined items as null', () => {
    assertSameSliced(labels(10_000, (i) => (i % 2 ? undefined : i)));
    // Whole batches of members JSON.stringify omits, at the start, middle and end.
    assertSameSliced(labels(12_000, (i) => (i < 3000 || (i > 5000 && i < 8000) || i > 10_000 ? undefined : { i })));
    assertSameSliced(labels(12_000, (i) => (i % 4000 < 2500 ? undefined : i)));
    assertSameSliced({ a: labels(6000, () => undefined), b: 1, c: labels(6000, () => () => 0), d: labels(6000, () => Symbol('s')) });
    assertSameSliced(Array.from({ length: 10_000 }, (_, i) => (i % 3 ? undefined : i)));
    assertSameSliced(new Array<unknown>(10_000));
  });

  it('escapes keys and values as JSON.stringify does, lone surrogates included', () => {
    const odd = ['"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '😀', '\ud800', '\udfff', '\udfff\ud800', 'é', '</script>'];
    const value = labels(
      12_000,
      (i) => (i % 7 ? `${odd[i % odd.length]}${i}` : { [odd[i % odd.length] as string]: odd[(i + 1) % odd.length] }),
      (i) => `${odd[(i * 3) % odd.length]}${i}`,
    );
    assertSameSliced(value);
    assertSameSliced([value, Object.values(value)]);
  });

  it('writes a huge string in chunks, never between the halves of a surrogate pair', () => {
    const chunk = 64 * 1024;
    const huge = 'x'.repeat(3 * 1024 * 1024);
    const strings = [
      huge,
      `${'a'.repeat(chunk - 1)}😀${'b'.repeat(chunk)}😀`,
      `${'a'.repeat(chunk - 1)}\ud800${'b'.repeat(chunk)}\udc00`,
      `${'a'.repeat(chunk - 1)}\udc00\ud800${'b'.repeat(chunk + 5)}`,
      `${'"\\\n😀\ud800'.repeat(100_000)}`,
    ];
    for (const s of strings) {
      assertSameSliced(s);
      assertSameSliced({ before: 1, s, after: [s] });
      assertSameSliced(labels(5000, (i) => (i === 2500 ? s : i)));
    }
    assertSame({ s: 'y'.repeat(chunk + 1) });
  });

  it('hands what it does not walk to JSON.stringify: classes, toJSON, and throws its error on cycles', () => {
    class Box {
      constructor(readonly members: Record<string, unknown>) {}
    }
    const withToJson = { ...labels(10_000), toJSON: () => 'replaced' };
    assertSame(withToJson);
    assertSame(new Box(labels(10_000)));
    assertSameSliced({ a: labels(5000), date: new Date(0), box: new Box(labels(5000)), json: withToJson, s: new String('boxed') });
    const cyclic: Record<string, unknown> = labels(10_000);
    cyclic.self = { big: labels(5000), back: cyclic };
    assert.throws(() => stringifyJsonSliced(cyclic), TypeError);
    assert.throws(() => stringifyJsonSliced({ n: 1n, more: labels(10_000) }), TypeError);
  });

  it('matches JSON.stringify on arbitrary JSON values, small and large', () => {
    const stringUnit = fc.constantFrom<'binary' | 'grapheme'>('binary', 'grapheme');
    fc.assert(
      fc.property(
        stringUnit.chain((unit) => fc.jsonValue({ maxDepth: 4, stringUnit: unit })),
        (value) => assertSame(value) === 0 || JSON.stringify(value).length > 4096,
      ),
      { numRuns: 300 },
    );
    // Large values: an object (or array) of thousands of members drawn from a few arbitrary ones,
    // under keys arbitrary, integer-like or plain, with large containers nested in it.
    const large = fc
      .record({
        samples: fc.array(fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }), { minLength: 1, maxLength: 20 }),
        keys: fc.array(fc.string({ unit: 'binary', maxLength: 8 }), { minLength: 1, maxLength: 20 }),
        size: fc.integer({ min: 4500, max: 9000 }),
        nested: fc.integer({ min: 0, max: 3 }),
        asArray: fc.boolean(),
      })
      .map(({ samples, keys, size, nested, asArray }) => {
        const member = (i: number): unknown => (i % 1000 === 7 && nested > 0 ? labels(size >> nested) : samples[i % samples.length]);
        if (asArray) return Array.from({ length: size }, (_, i) => member(i));
        return labels(size, member, (i) => (i % 5 === 0 ? String(i) : `${keys[i % keys.length]}${i}`));
      });
    fc.assert(
      fc.property(large, (value) => {
        assertSameSliced(value);
      }),
      { numRuns: 25 },
    );
  });
});
