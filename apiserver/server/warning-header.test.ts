import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateHeaderValue } from 'node:http';
import { warningHeaderValue, warningHeaderValues } from './warning-header.ts';

test('quotes and backslashes are escaped as upstream does', () => {
  assert.equal(warningHeaderValue('unknown field "a\\b"'), '299 - "unknown field \\"a\\\\b\\""');
});

test('text beyond latin1 goes out as its UTF-8 bytes, which Node accepts as a header', () => {
  const value = warningHeaderValue('unknown field "Āx"');
  assert.ok(value);
  assert.doesNotThrow(() => validateHeaderValue('warning', value));
  assert.equal(Buffer.from(value, 'latin1').toString('utf8'), '299 - "unknown field \\"Āx\\""');
  // A raw \xff byte in a key decodes as U+FFFD, which is valid UTF-8 and sent as such.
  assert.ok(warningHeaderValue('unknown field "\ufffd"'));
});

test('control characters and invalid UTF-8 drop the warning, as upstream NewWarningHeader refuses them', () => {
  assert.equal(warningHeaderValue('a\nb'), undefined);
  assert.equal(warningHeaderValue('a\u0085b'), undefined);
  assert.equal(warningHeaderValue('a\ud800b'), undefined);
  assert.deepEqual(warningHeaderValues(['ok', 'bad\r\n', 'fine']), ['299 - "ok"', '299 - "fine"']);
});

test('duplicates once; past 4,096 characters every text is cut to 256 and the rest dropped', () => {
  assert.deepEqual(warningHeaderValues(['a', 'a', 'b']), ['299 - "a"', '299 - "b"']);
  const long = 'x'.repeat(1000);
  const texts = Array.from({ length: 30 }, (_, i) => `${i}${long}`);
  const values = warningHeaderValues(texts);
  assert.equal(values.length, 16, 'sixteen texts of 256 characters fill the budget');
  for (const value of values) assert.equal(value.length, '299 - ""'.length + 256);
  assert.doesNotThrow(() => values.forEach((v) => validateHeaderValue('warning', v)));
});
