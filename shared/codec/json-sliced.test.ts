import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson } from './json.ts';
import { parseJsonSliced, parseJsonSteps, slicedParseMinLength } from './json-sliced.ts';
import { maxNestingDepth } from './nesting.ts';

/** The outcome of a parse: its value, or its error's class and message. */
function outcome(parse: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: parse() };
  } catch (err) {
    return { error: err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err) };
  }
}

/** Asserts that the sliced parse gives what parseJson gives, key order and own `__proto__` included. */
function assertSame(text: string): void {
  assert.ok(text.length >= slicedParseMinLength, `a test text of ${text.length} characters would not be sliced`);
  const expected = outcome(() => parseJson(text));
  const actual = outcome(() => parseJsonSliced(text));
  assert.deepEqual(actual, expected);
  // deepEqual ignores key order: compare it through a serialization that keeps it.
  if ('value' in expected && 'value' in actual) assert.equal(JSON.stringify(actual.value), JSON.stringify(expected.value));
}

function labels(n: number, value = (i: number) => `v${i}`): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`l${i}`] = value(i);
  return out;
}

const largeNode = JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'large', labels: labels(30_000) } });

describe('parseJsonSteps', () => {
  it('parses a large object as JSON.parse does, yielding between pieces', () => {
    assertSame(largeNode);
    const steps = parseJsonSteps(largeNode);
    let yields = 0;
    while (!steps.next().done) yields++;
    assert.ok(yields > 1, `${yields} yields`);
  });

  it('keeps small texts to one call, without yielding', () => {
    const steps = parseJsonSteps('{"a":[1,2]}');
    const first = steps.next();
    assert.equal(first.done, true);
    assert.deepEqual(first.value, { a: [1, 2] });
  });

  it('joins arrays, nested large containers, long strings, whitespace, integer and repeated keys as JSON.parse does', () => {
    const items = Array.from({ length: 4000 }, (_, i) => ({ name: `item-${i}`, values: [i, `s${i}`, null, true, { deep: [i] }] }));
    assertSame(JSON.stringify({ items, more: { list: items.slice(0, 2000) } }, null, 2));
    assertSame(JSON.stringify([items, 'x'.repeat(300_000), items]));
    assertSame(JSON.stringify({ a: 'x'.repeat(100_000), b: 'y'.repeat(200_000), c: labels(2000) }));
    // Integer-like keys come first in ascending order whichever batch they are in.
    const numbered: Record<string, number> = {};
    for (let i = 30_000; i >= 0; i--) numbered[i % 2 ? `k${i}` : String(i)] = i;
    assertSame(`{"map":${JSON.stringify(numbered)}}`);
    // A key repeated across batches, and a large member repeated: first place, last value.
    const body = JSON.stringify(labels(20_000)).slice(1, -1);
    assertSame(`{"l5":"first",${body},"l5":"last","big":{${body}},"z":1,"big":{${body},"extra":2}}`);
    assertSame(`{"__proto__":{"polluted":true},"m":{${body},"__proto__":{"x":1}},"n":{"__proto__":{${body}}}}`);
    assertSame(`  \n\t[ {${body}} , [ ] , { } , "\\"}]\\\\" ]  \r\n`);
  });

  it('throws what parseJson throws for malformed and too deeply nested texts', () => {
    const body = JSON.stringify(labels(20_000)).slice(1, -1);
    for (const text of [
      `{${body},}`,
      `{${body},,"a":1}`,
      `{${body} "a":1}`,
      `{${body},"a" 1}`,
      `{${body},"a":1]`,
      `{"m":{${body}},}`,
      `{"m":{${body}} x}`,
      `{"m":[{${body}}}`,
      `{${body}} trailing`,
      `{${body},"a":"unterminated}`,
      `{${body},"a":"control\u0001"}`,
      `{${body},"a":tru}`,
      `{${body},1:2}`,
      `{"m":{${body}`,
      `[${JSON.stringify('x'.repeat(300_000))},]`,
    ]) {
      assertSame(text);
    }
    const deep = `${'['.repeat(maxNestingDepth + 1)}${JSON.stringify('x'.repeat(300_000))}${']'.repeat(maxNestingDepth + 1)}`;
    assertSame(deep);
    assert.throws(() => parseJsonSliced(deep), /exceeded max depth/);
  });
});
