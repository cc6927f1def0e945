import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../shared/api/errors.ts';
import { configMapDefinition } from '../registry/core/configmap.ts';
import type { ResourceDefinition } from '../registry/definition.ts';
import { TimeSlice } from '../registry/time-slice.ts';
import { checkDecoded, decodeObject, goJsonSyntaxMessage, parseBody } from './decode.ts';

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

test('a decoded body yields between its passes; results and errors are those of the passes', async () => {
  const def = configMapDefinition as unknown as ResourceDefinition;
  let clock = 0;
  const slice = new TimeSlice(0, () => clock++);
  const body = Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"a":"1","a":"2"},"extra":1}');
  const decoded = await decodeObject(def, body, 'json', 'Warn', slice);
  assert.deepEqual(decoded, {
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { a: '2' } },
    warnings: ['unknown field "extra"', 'duplicate field "data.a"'],
  });
  // Parsing, the duplicate scan, the schema check.
  assert.equal(slice.yields, 2);
  await assert.rejects(
    decodeObject(def, body, 'json', 'Strict', slice),
    badRequestWith(/strict decoding error: unknown field "extra", duplicate field "data.a"$/),
  );
  await assert.rejects(
    decodeObject(def, Buffer.from('{"a":'), 'json', 'Warn', slice),
    badRequestWith(
      /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: unexpected end of JSON input \(\{"a":\)$/,
    ),
  );
});

test('a body of 100,000 labels is parsed in slices: the same object and warnings, the same errors as one parse', async () => {
  const def = configMapDefinition as unknown as ResourceDefinition;
  const labels: Record<string, string> = {};
  for (let i = 0; i < 100_000; i++) labels[`l${i}`] = `v${i}`;
  const text = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels }, data: { a: '1' } });
  const withDuplicate = `${text.slice(0, -2)},"a":"2"},"extra":1}`;
  let clock = 0;
  const slice = new TimeSlice(0, () => clock++);
  const decoded = await decodeObject(def, Buffer.from(withDuplicate), 'json', 'Warn', slice);
  assert.deepEqual(decoded, parseAndCheck(def, withDuplicate));
  assert.deepEqual(decoded.warnings, ['unknown field "extra"', 'duplicate field "data.a"']);
  // Pieces of the parse and of the duplicate scan, besides the passes themselves.
  assert.ok(slice.yields > 10, `${slice.yields} yields`);
  for (const bad of [`${text.slice(0, -1)},}`, `${text.slice(0, -2)}]}`, `${text.slice(0, 100)}`, `${text} x`]) {
    const rejected = await decodeObject(def, Buffer.from(bad), 'json', 'Warn', new TimeSlice()).catch((err: unknown) => err);
    assert.ok(isStatusError(rejected, 'BadRequest'));
    let message: string | undefined;
    try {
      JSON.parse(bad);
    } catch (err) {
      message = err instanceof Error ? err.message : String(err);
    }
    assert.ok(message !== undefined);
    assert.equal(
      rejected.message,
      `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ${goJsonSyntaxMessage(bad, message)} (${bad.slice(0, 30)} ...)`,
    );
  }
});

/** What one JSON.parse of a body decodes to, for comparison with the sliced decoding. */
function parseAndCheck(def: ResourceDefinition, text: string): ReturnType<typeof checkDecoded> {
  const { value, duplicates } = parseBody(text, 'json', true);
  return checkDecoded(def, value as Record<string, unknown>, duplicates, 'Warn');
}

test('an apiVersion or kind that is no string is the decoding error upstream reports, whatever it holds', () => {
  for (const [field, value, type] of [
    ['kind', [{ toString: 'xy' }], 'array'],
    ['apiVersion', { valueOf: 1 }, 'object'],
    ['kind', 7, 'number'],
  ] as const) {
    assert.throws(
      () => checkDecoded(configMapDefinition, { [field]: value, metadata: { name: 'a' } }, [], 'Strict'),
      badRequestWith(
        new RegExp(`^couldn't get version/kind; json parse error: json: cannot unmarshal ${type} into Go struct field \\.${field} of type string$`),
      ),
    );
  }
});
