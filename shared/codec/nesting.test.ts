import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exceedsNestingDepth, maxNestingDepth } from './nesting.ts';
import { JsonSyntaxError, parseJson } from './json.ts';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? { a: value } : [value];
  return value;
};

test('counts objects and arrays alike, scalars not', () => {
  assert.equal(exceedsNestingDepth(1, 0), false);
  assert.equal(exceedsNestingDepth({ a: [1] }, 2), false);
  assert.equal(exceedsNestingDepth({ a: [[1]] }, 2), true);
  assert.equal(exceedsNestingDepth(nested(maxNestingDepth)), false);
  assert.equal(exceedsNestingDepth(nested(maxNestingDepth + 1)), true);
});

test('any depth is measured without exhausting the stack', () => {
  assert.equal(exceedsNestingDepth(nested(1_000_000)), true);
});

test("client JSON deeper than the limit is a syntax error in Go's words", () => {
  const text = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  assert.throws(
    () => parseJson(text),
    (err: unknown) => err instanceof JsonSyntaxError && err.message === 'exceeded max depth',
  );
  assert.deepEqual(parseJson('{"a":[{"b":1}]}'), { a: [{ b: 1 }] });
});
