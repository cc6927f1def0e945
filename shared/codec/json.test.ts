import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findDuplicateKeys, parseJson, JsonSyntaxError, textNestingExceeds } from './json.ts';

test('finds duplicated keys with their dotted paths', () => {
  assert.deepEqual(findDuplicateKeys('{"a":1,"b":{"c":1,"c":2},"a":3}'), ['b.c', 'a']);
  assert.deepEqual(findDuplicateKeys('{"items":[{"x":1,"x":2},{"x":3}]}'), ['items.x']);
});

test('keys inside strings and escaped keys are handled', () => {
  assert.deepEqual(findDuplicateKeys('{"a":"{\\"a\\":1,\\"a\\":2}","b":"x"}'), []);
  assert.deepEqual(findDuplicateKeys('{"q\\"k":1,"q\\"k":2}'), ['q"k']);
  assert.deepEqual(findDuplicateKeys('{"a" : {"b": [1, {"c": "d"}]}, "e": null}'), []);
});

test('string values equal to keys are not keys', () => {
  assert.deepEqual(findDuplicateKeys('{"a":"a","b":"a"}'), []);
});

test('syntax errors surface as JsonSyntaxError', () => {
  assert.throws(() => parseJson('{"a":'), JsonSyntaxError);
});

test('duplicates are reported in order of appearance, at any level, however spaced', () => {
  const text = '{ "a" : { "x":1 , "y":{"x":[{"k":1,"k":2}]}, "x" :3 } ,\n"b":[{"a":1},{"a":2,"a":3}], "a":{}, "c":"a", "a":0 }';
  assert.deepEqual(findDuplicateKeys(text), ['a.y.x.k', 'a.x', 'b.a', 'a', 'a']);
  // An object's first key repeated (checked before its key set exists), and a third one.
  assert.deepEqual(findDuplicateKeys('{"o":{"k":1,"k":2,"j":3,"k":4,"j":5}}'), ['o.k', 'o.k', 'o.j']);
  // Keys with escapes compare by value: "\u0061" is "a".
  assert.deepEqual(findDuplicateKeys('{"a":1,"\\u0061":2}'), ['a']);
  assert.deepEqual(findDuplicateKeys('[{"a":1},{"a":1}]'), []);
});

test('a large flat object is scanned as one (150,000 keys, two of them repeated)', () => {
  const keys = Array.from({ length: 150_000 }, (_, i) => `"l${i}":"v${i}"`);
  keys.push('"l7":"again"', '"l149999":"again"');
  assert.deepEqual(findDuplicateKeys(`{"metadata":{"labels":{${keys.join(',')}}}}`), ['metadata.labels.l7', 'metadata.labels.l149999']);
});

test('nesting is measured on the text: strings do not count, the limit itself passes', () => {
  const deep = (levels: number): string => `${'{"a":['.repeat(levels / 2)}${']}'.repeat(levels / 2)}`;
  assert.equal(textNestingExceeds(deep(500), 500), false);
  assert.equal(textNestingExceeds(deep(502), 500), true);
  assert.equal(textNestingExceeds(`["${'['.repeat(1000)}"]`, 500), false);
  assert.equal(textNestingExceeds(`["\\"${'['.repeat(1000)}"]`, 500), false);
  assert.doesNotThrow(() => parseJson(deep(500)));
  assert.throws(
    () => parseJson(deep(502)),
    (err: unknown) => err instanceof JsonSyntaxError && err.message === 'exceeded max depth',
  );
});
