import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBool, ParseBoolError, queryBool, tryParseBool } from './parse-bool.ts';

test("parseBool accepts exactly strconv.ParseBool's twelve texts", () => {
  for (const text of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseBool(text), true, text);
  for (const text of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseBool(text), false, text);
  for (const text of ['', 'yes', 'no', 'tRUE', 'fALSE', 'on', ' true', 'true ', '2', 'y']) {
    assert.equal(tryParseBool(text), undefined, text);
    assert.throws(
      () => parseBool(text),
      (err: unknown) => err instanceof ParseBoolError && err.text === text,
    );
  }
});

test("its error is Go's, the text quoted as strconv.Quote quotes it", () => {
  assert.throws(() => parseBool('x'), { message: 'strconv.ParseBool: parsing "x": invalid syntax' });
  assert.throws(() => parseBool('a"b\n'), { message: 'strconv.ParseBool: parsing "a\\"b\\n": invalid syntax' });
});

test('queryBool is the options conversion: false only when absent, 0 or false in any case', () => {
  assert.equal(queryBool(null), false);
  for (const text of ['0', 'false', 'FALSE', 'False', 'fAlSe', 'fal\u017fe']) assert.equal(queryBool(text), false, text);
  for (const text of ['', '1', 'true', 'yes', 'no', 'f', 'F', 'off', '00', ' false']) assert.equal(queryBool(text), true, text);
});
