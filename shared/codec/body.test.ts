import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../api/errors.ts';
import { parseBody } from './body.ts';

const badRequestWith = (pattern: RegExp) => (err: unknown) => isStatusError(err, 'BadRequest') && pattern.test(err.message);

test('YAML duplicate keys are reported in document order with their lines, in upstream wording', () => {
  const text = 'metadata:\n  name: a\n  labels:\n    x: "1"\n    x: "2"\ndata:\n  a: b\n  a: c\nlist:\n- k: 1\n  k: 2\n';
  assert.deepEqual(parseBody(text, 'yaml', true).duplicates, [
    'line 5: key "x" already set in map',
    'line 8: key "a" already set in map',
    'line 11: key "k" already set in map',
  ]);
  assert.deepEqual(parseBody(text, 'yaml', false).duplicates, []);
  assert.deepEqual(parseBody(text, 'yaml', false).value, { metadata: { name: 'a', labels: { x: '2' } }, data: { a: 'c' }, list: [{ k: 2 }] });
});

test('duplicates among 120,000 keys are found in one pass', () => {
  const lines = ['labels:'];
  for (let i = 0; i < 120_000; i++) lines.push(`  l${i}: v`);
  lines.push('  l7: again');
  assert.deepEqual(parseBody(lines.join('\n'), 'yaml', true).duplicates, ['line 120002: key "l7" already set in map']);
});

test("YAML without a JSON form is the client's 400, never the server's failure", () => {
  assert.deepEqual(parseBody('data:\n  a: !!binary aGVsbG8=\n', 'yaml', false).value, { data: { a: 'aGVsbG8=' } });
  assert.throws(() => parseBody('a: *nope\n', 'yaml', false), badRequestWith(/yaml: .*alias/i));
  const bomb = [
    'a: &a ["x","x","x","x","x","x","x","x","x"]',
    'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
    'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
    'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  ].join('\n');
  assert.throws(() => parseBody(bomb, 'yaml', false), badRequestWith(/yaml: Excessive alias count/));
  assert.throws(() => parseBody(`x: ${'['.repeat(10_000)}${']'.repeat(10_000)}`, 'yaml', false), badRequestWith(/yaml: exceeded max depth$/));
  const block = Array.from({ length: 600 }, (_, i) => `${' '.repeat(i)}a:`).join('\n');
  assert.throws(() => parseBody(`${block} 1`, 'yaml', false), badRequestWith(/yaml: exceeded max depth$/));
});

test('YAML numbers that JSON cannot hold are 400s in encoding/json words', () => {
  assert.throws(() => parseBody('spec:\n  replicas: .inf\n', 'yaml', false), badRequestWith(/^error converting YAML to JSON: json: unsupported value: \+Inf$/));
  assert.throws(() => parseBody('a: [1, -.Inf]\n', 'yaml', false), badRequestWith(/unsupported value: -Inf$/));
  assert.throws(() => parseBody('a: &n .NaN\nb: *n\n', 'yaml', false), badRequestWith(/unsupported value: NaN$/));
  // Strings that only look like them stay strings.
  assert.deepEqual(parseBody('a: ".inf"\nb: inf\n', 'yaml', false).value, { a: '.inf', b: 'inf' });
});
