import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findDuplicateKeys, parseJson, JsonSyntaxError } from './json.ts';

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
