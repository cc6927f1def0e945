import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../shared/api/errors.ts';
import { configMapDefinition } from '../registry/core/configmap.ts';
import type { ResourceDefinition } from '../registry/definition.ts';
import { TimeSlice } from '../../shared/apply/time-slice.ts';
import { checkDecoded, decodeObject } from './decode.ts';
import { goJsonSyntaxMessage, parseBody } from '../../shared/codec/body.ts';

const badRequestWith = (pattern: RegExp) => (err: unknown) => isStatusError(err, 'BadRequest') && pattern.test(err.message);

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
