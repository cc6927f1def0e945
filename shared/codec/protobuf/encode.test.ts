import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  array,
  boolean,
  bytes,
  duration,
  embedded,
  fieldsV1,
  anyValue,
  int32,
  int64,
  intOrString,
  listSchema,
  map,
  microTime,
  object,
  pb,
  quantity,
  statusSchema,
  string,
  time,
} from '../../api/schema.ts';
import { canonicalTime } from '../../go/time.ts';
import { decodeMessage } from './decode.ts';
import { encodeMessage } from './encode.ts';
import { decodeEnvelope } from './envelope.ts';
import { ProtobufError } from './errors.ts';
import { decodeObject, encodeObject } from './object.ts';
import { configMapSchema, gogoConfigMap, hex, pbType, richConfigMap, upstreamEncode, upstreamEnvelope, type Json } from './test-fixtures.ts';

/**
 * Encoding checked byte for byte against upstream's (protobufjs with upstream's messages) and read
 * back with decode.ts.
 */
describe('byte-exact against protobufjs with upstream’s messages', () => {
  it('ConfigMap: same bytes from both encoders', () => {
    for (const cm of [richConfigMap, { metadata: { name: 'x', namespace: 'default' }, data: { a: 'b' } }, { metadata: {} }]) {
      const ours = encodeMessage(cm, configMapSchema);
      assert.equal(hex(ours), hex(upstreamEncode('ConfigMap', gogoConfigMap(cm))));
    }
  });

  it('ConfigMap: each decodes the other’s bytes', () => {
    const theirs = upstreamEncode('ConfigMap', gogoConfigMap(richConfigMap));
    assert.deepEqual(decodeMessage(theirs, configMapSchema), richConfigMap);
    const ConfigMap = pbType('ConfigMap');
    const parsed = ConfigMap.toObject(ConfigMap.decode(encodeMessage(richConfigMap, configMapSchema)), { longs: Number, bytes: String });
    const expected = ConfigMap.toObject(ConfigMap.decode(theirs), { longs: Number, bytes: String });
    assert.deepEqual(parsed, expected);
    assert.equal((parsed.metadata as Json).name, 'rich');
    assert.equal(((parsed.metadata as Json).deletionTimestamp as Json).seconds, -14182940);
  });

  it('lists: ConfigMapList with ListMeta', () => {
    const schema = listSchema(configMapSchema);
    const items = [richConfigMap, { metadata: { name: 'b' }, data: { a: 'b' } }];
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '77', continue: 'tok', remainingItemCount: 0 }, items };
    const theirs = upstreamEncode('ConfigMapList', {
      metadata: { selfLink: '', resourceVersion: '77', continue: 'tok', remainingItemCount: 0 },
      items: items.map(gogoConfigMap),
    });
    assert.equal(hex(encodeMessage(list, schema)), hex(theirs));
    assert.deepEqual(decodeObject(upstreamEnvelope('v1', 'ConfigMapList', theirs), schema), list);
    // An empty list has an empty metadata message and no items.
    const empty = encodeObject({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: {}, items: [] }, schema);
    assert.deepEqual(decodeObject(empty, schema), { apiVersion: 'v1', kind: 'ConfigMapList' });
    assert.equal(hex(decodeEnvelope(empty).raw), '0a060a0012001a00');
  });

  it('Status with details and causes', () => {
    const status = {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message: 'ConfigMap "x" is invalid: data[a b]: Invalid value',
      reason: 'Invalid',
      details: {
        name: 'x',
        kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value', field: 'data[a b]' }, { reason: 'FieldValueRequired' }],
      },
      code: 422,
    };
    const schema = statusSchema();
    const theirs = upstreamEncode('Status', {
      metadata: { selfLink: '', resourceVersion: '', continue: '' },
      status: 'Failure',
      message: status.message,
      reason: 'Invalid',
      details: {
        name: 'x',
        group: '',
        kind: 'ConfigMap',
        uid: '',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value', field: 'data[a b]' },
          { reason: 'FieldValueRequired', message: '', field: '' },
        ],
        retryAfterSeconds: 0,
      },
      code: 422,
    });
    assert.equal(hex(encodeMessage(status, schema)), hex(theirs));
    const { metadata: _metadata, ...withoutMetadata } = status;
    assert.deepEqual(decodeObject(upstreamEnvelope('v1', 'Status', theirs), schema), withoutMetadata);
    // A success Status: no details, code 0 written but dropped on decode.
    const success = encodeObject({ apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success' }, schema);
    assert.equal(hex(decodeEnvelope(success).raw), '0a060a0012001a00' + '1207537563636573731a0022003000');
    assert.deepEqual(decodeObject(success, schema), { apiVersion: 'v1', kind: 'Status', status: 'Success' });
  });

  const sampleSchema = object({
    count: pb(1, int32()),
    total: pb(2, int64()),
    maybe: pb(3, int32(), 'optional'),
    capacity: pb(4, map(quantity())),
    port: pb(5, intOrString()),
    extra: pb(6, map(array(string()))),
    numbers: pb(7, array(int32())),
    at: pb(8, time(), 'optional'),
  });

  it('negative int32 and int64 as 10-byte varints, quantities, int-or-string, ExtraValue lists, repeated numbers unpacked', () => {
    const value = {
      count: -1,
      total: -9_007_199_254_740_991,
      maybe: -2147483648,
      capacity: { memory: '16Gi', cpu: '4', 'example.com/dev': '0' },
      port: 'http',
      extra: { scopes: ['a', 'b'], empty: [] },
      numbers: [1, -1, 300],
      at: '2024-01-01T00:00:00Z',
    };
    const theirs = upstreamEncode('Sample', {
      count: -1,
      total: -9_007_199_254_740_991,
      maybe: -2147483648,
      capacity: { cpu: { string: '4' }, 'example.com/dev': { string: '0' }, memory: { string: '16Gi' } },
      port: { type: 1, intVal: 0, strVal: 'http' },
      extra: { empty: { items: [] }, scopes: { items: ['a', 'b'] } },
      numbers: [1, -1, 300],
      at: { seconds: 1704067200, nanos: 0 },
    });
    const ours = encodeMessage(value, sampleSchema);
    assert.equal(hex(ours), hex(theirs));
    assert.ok(hex(ours).startsWith('08ffffffffffffffffff01'), 'count -1 takes ten bytes');
    assert.deepEqual(decodeMessage(theirs, sampleSchema), {
      ...value,
      capacity: { cpu: '4', 'example.com/dev': '0', memory: '16Gi' },
      extra: { empty: [], scopes: ['a', 'b'] },
    });
    const numeric = encodeMessage({ count: 0, total: 0, port: 8080 }, sampleSchema);
    assert.equal(hex(numeric), hex(upstreamEncode('Sample', { count: 0, total: 0, port: { type: 0, intVal: 8080, strVal: '' } })));
    assert.deepEqual(decodeMessage(numeric, sampleSchema), { port: 8080 });
  });

  it('structs embedded inline: flat in JSON, a nested message always written in protobuf', () => {
    // core/v1 Probe embeds ProbeHandler (`json:",inline"`) as its field 1.
    const probeSchema = object({
      ...embedded(1, {
        exec: pb(1, object({ command: pb(1, array(string())) }), 'optional'),
        tcpSocket: pb(3, object({ port: pb(1, intOrString()), host: pb(2, string()) }), 'optional'),
      }),
      initialDelaySeconds: pb(2, int32()),
      timeoutSeconds: pb(3, int32()),
      periodSeconds: pb(4, int32()),
      successThreshold: pb(5, int32()),
      failureThreshold: pb(6, int32()),
      terminationGracePeriodSeconds: pb(7, int64(), 'optional'),
    });
    const probe = { tcpSocket: { port: 'http' }, periodSeconds: 10, terminationGracePeriodSeconds: 0 };
    const theirs = upstreamEncode('Probe', {
      handler: { tcpSocket: { port: { type: 1, intVal: 0, strVal: 'http' }, host: '' } },
      initialDelaySeconds: 0,
      timeoutSeconds: 0,
      periodSeconds: 10,
      successThreshold: 0,
      failureThreshold: 0,
      terminationGracePeriodSeconds: 0,
    });
    assert.equal(hex(encodeMessage(probe, probeSchema)), hex(theirs));
    const decoded = decodeMessage(theirs, probeSchema);
    assert.deepEqual(decoded, probe);
    assert.deepEqual(Object.keys(decoded), ['tcpSocket', 'periodSeconds', 'terminationGracePeriodSeconds']);
    // Without any of its fields the embedded message is still written, empty.
    assert.equal(hex(encodeMessage({}, probeSchema)), '0a00' + '1000180020002800' + '3000');
  });
});

describe('large lists', () => {
  it('encodes and decodes 10,000 objects of about 2 KiB', () => {
    const schema = listSchema(configMapSchema);
    const items = Array.from({ length: 10_000 }, (_, i) => ({
      metadata: {
        name: `cm-${i}`,
        namespace: 'default',
        uid: `6f1c0b7e-4a5b-4c3d-9e8f-${String(i).padStart(12, '0')}`,
        resourceVersion: String(100_000 + i),
        creationTimestamp: '2024-05-01T10:00:00Z',
        labels: { app: 'bench', index: String(i) },
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Update',
            apiVersion: 'v1',
            time: '2024-05-01T10:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
          },
        ],
      },
      data: { a: 'y'.repeat(1500), b: String(i) },
    }));
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '200000' }, items };
    const started = process.cpuUsage();
    const encoded = encodeObject(list, schema);
    const decoded = decodeObject(encoded, schema);
    const used = process.cpuUsage(started);
    assert.ok(encoded.length > 10_000 * 1600, `${encoded.length} bytes`);
    assert.equal((decoded.items as Json[]).length, 10_000);
    assert.deepEqual((decoded.items as Json[])[9_999], items[9_999]);
    // Generous: about 0.3 s on a quiet machine, JSON.stringify and JSON.parse take about as long.
    assert.ok(used.user + used.system < 10_000_000, `took ${(used.user + used.system) / 1000} ms of CPU`);
  });
});

/**
 * The encoder reserves a length prefix as wide as the same field's last one and moves the content
 * when the guess was wrong; the decoder reads short strings from a cache and FieldsV1 without
 * JSON.parse. None of it may change bytes or shapes.
 */
describe('fast paths keep bytes and shapes', () => {
  const listOf = (values: string[]): Json => ({
    apiVersion: 'v1',
    kind: 'ConfigMapList',
    metadata: { resourceVersion: '1' },
    items: values.map((v, i) => ({
      metadata: { name: `cm-${i}`, annotations: { note: v } },
      data: { v, [`k${v.length}`]: Array.from(v).slice(0, 3).join('') },
    })),
  });
  const upstreamList = (list: Json): Uint8Array =>
    upstreamEncode('ConfigMapList', { metadata: { selfLink: '', resourceVersion: '1', continue: '' }, items: (list.items as Json[]).map(gogoConfigMap) });

  it('lengths of 1, 2 and 3 bytes in every order, items after larger and smaller ones, ASCII or not', () => {
    const schema = listSchema(configMapSchema);
    const sizes = [1, 100, 120, 130, 16_300, 16_400, 20, 16_400, 127, 128, 125, 200, 5, 70_000, 3];
    const values = sizes.flatMap((n) => ['x'.repeat(n), 'é'.repeat(Math.ceil(n / 2)), '𝄞'.repeat(Math.ceil(n / 4))]);
    for (const order of [values, [...values].reverse()]) {
      const list = listOf(order);
      // Twice: the second encoding starts from the guesses the first left.
      for (let round = 0; round < 2; round++) {
        const ours = encodeMessage(list, schema);
        assert.equal(Buffer.compare(ours, upstreamList(list)), 0, `round ${round}`);
        assert.deepEqual(decodeMessage(ours, schema), { metadata: list.metadata, items: list.items });
      }
    }
  });

  it('short strings: alike ones stay apart, non-ASCII and up to the cache’s length limit', () => {
    const schema = object({ d: pb(1, map(string())), l: pb(2, array(string())) });
    const alike = [
      // 1 to 3 bytes, 4 and 8 (first and last four bytes are the whole string).
      ...['a', 'b', 'ab', 'ba', 'abc', 'é', 'abcd', 'abce', 'abcdwxyz', 'abcdwxyZ'],
      // The same length and first and last four bytes: the slot is the same, the middle differs.
      ...['abcd-X-wxyz', 'abcd-Y-wxyz', 'abcd-XY-wxyz', 'abcd-é-wxyz', 'abcdXwxyz', 'abcdYwxyz'],
      ...['q'.repeat(31), 'q'.repeat(32), 'q'.repeat(33), `${'q'.repeat(15)}r${'q'.repeat(16)}`, `${'q'.repeat(15)}é${'q'.repeat(15)}`],
    ];
    const value = { d: Object.fromEntries(alike.map((k, i) => [k, alike[(i + 1) % alike.length]!])), l: [...alike, ...[...alike].reverse(), ''] };
    for (let round = 0; round < 3; round++) {
      const decoded = decodeMessage(encodeMessage(value, schema), schema);
      assert.deepEqual(decoded, { d: Object.fromEntries(Object.entries(value.d).sort(([a], [b]) => (a < b ? -1 : 1))), l: value.l });
    }
    // More strings than the cache has slots, alike but for their last or first bytes: some share a slot.
    const many = { l: Array.from({ length: 6000 }, (_, i) => (i % 2 ? `abcd${String(i).padStart(4, '0')}` : `${String(i).padStart(4, '0')}wxyz`)) };
    for (let round = 0; round < 2; round++) assert.deepEqual(decodeMessage(encodeMessage(many, schema), schema), many);
  });

  it('entries of a map and elements of a list split by other fields end up together', () => {
    const part = (cm: Json): Uint8Array => encodeMessage(cm, configMapSchema);
    // Concatenated messages merge (protobuf's rule): ObjectMeta merges, map entries and list elements add up.
    const bytes = Buffer.concat([
      part({ metadata: { name: 'a', finalizers: ['f1'] }, data: { k1: 'v1' } }),
      part({ metadata: { name: 'a', finalizers: ['f2'] }, binaryData: { b: 'AQ==' }, data: { k2: 'v2' } }),
      part({ metadata: { name: 'a', labels: { l: 'x' } }, data: { k1: 'again' } }),
    ]);
    assert.deepEqual(decodeMessage(bytes, configMapSchema), {
      metadata: { name: 'a', labels: { l: 'x' }, finalizers: ['f1', 'f2'] },
      data: { k1: 'again', k2: 'v2' },
      binaryData: { b: 'AQ==' },
    });
  });

  it('decoded objects follow the schema’s order whether or not the field numbers do', () => {
    // Items of a list: nested messages (the top level is reordered apart).
    const schema = listSchema(configMapSchema);
    const items = [
      { metadata: { name: 'a' }, data: { a: 'b' }, immutable: true },
      { metadata: { name: 'b' }, data: { a: 'b' }, binaryData: { b: 'AQ==' } },
      { metadata: { name: 'c' }, immutable: false, binaryData: { b: 'AQ==' } },
    ];
    const decoded = decodeMessage(encodeMessage({ items }, schema), schema).items as Json[];
    assert.deepEqual(
      decoded.map((item) => Object.keys(item)),
      [
        ['metadata', 'immutable', 'data'],
        ['metadata', 'data', 'binaryData'],
        ['metadata', 'immutable', 'binaryData'],
      ],
    );
  });
});

describe('zero values', () => {
  const schema = object({
    s: pb(1, string()),
    sp: pb(2, string(), 'optional'),
    i: pb(3, int32()),
    ip: pb(4, int32(), 'optional'),
    b: pb(5, boolean()),
    bp: pb(6, boolean(), 'optional'),
    m: pb(7, object({ x: pb(1, string()) })),
    mp: pb(8, object({ x: pb(1, string()) }), 'optional'),
    t: pb(9, time()),
    tp: pb(10, time(), 'optional'),
    list: pb(11, array(string())),
    dict: pb(12, map(string())),
    raw: pb(13, bytes()),
    q: pb(14, quantity()),
    ios: pb(15, intOrString()),
    i64: pb(16, int64()),
  });

  it('writes non-pointer fields as their Go zero values and skips unset pointers, lists, maps and []byte', () => {
    assert.equal(hex(encodeMessage({}, schema)), ['0a00', '1800', '2800', '3a020a00', '4a00', '72030a0130', '7a06080010001a00', '800100'].join(''));
  });

  it('drops zero values of non-pointer fields on decode, keeping Quantity as Go’s JSON does', () => {
    assert.deepEqual(decodeMessage(encodeMessage({}, schema), schema), { q: '0' });
    const zeros = { s: '', i: 0, b: false, m: { x: '' }, list: [], dict: {}, raw: '', ios: 0, i64: 0 };
    assert.deepEqual(decodeMessage(encodeMessage(zeros, schema), schema), { q: '0' });
  });

  it('keeps explicit zeros of pointer fields', () => {
    const value = { sp: '', ip: 0, bp: false, mp: {}, tp: '2024-01-01T00:00:00Z', q: '1' };
    assert.equal(
      hex(encodeMessage(value, schema)),
      ['0a00', '1200', '1800', '2000', '2800', '3000', '3a020a00', '42020a00', '4a00', '5208088081c8ac061000', '72030a0131', '7a06080010001a00', '800100'].join(
        '',
      ),
    );
    assert.deepEqual(decodeMessage(encodeMessage(value, schema), schema), value);
  });

  it('keeps empty strings, zeros and empty messages inside lists and maps', () => {
    const listSchemaOf = object({ names: pb(1, array(string())), ms: pb(2, array(object({ x: pb(1, string()) }))), d: pb(3, map(string())) });
    const value = { names: ['', 'a'], ms: [{}, { x: 'y' }], d: { k: '' } };
    assert.deepEqual(decodeMessage(encodeMessage(value, listSchemaOf), listSchemaOf), value);
  });
});

describe('well-known types', () => {
  const schema = object({
    t: pb(1, time(), 'optional'),
    mt: pb(2, microTime(), 'optional'),
    d: pb(3, duration()),
    f: pb(4, fieldsV1(), 'optional'),
    raw: pb(5, anyValue()),
  });

  it('Time keeps whole seconds in UTC; MicroTime microseconds', () => {
    const decoded = decodeMessage(encodeMessage({ t: '2024-05-01T12:00:00.999+02:00', mt: '2024-05-01T12:00:00.1234567+02:00' }, schema), schema);
    assert.equal(decoded.t, '2024-05-01T10:00:00Z');
    assert.equal(decoded.mt, '2024-05-01T10:00:00.123456Z');
    // Time drops the fraction (nanos 0); MicroTime keeps microseconds (123456000 ns).
    assert.equal(hex(encodeMessage({ t: '2024-05-01T12:00:00.999+02:00' }, schema)).slice(0, 20), '0a0808a0a5c8b1061000');
    assert.equal(hex(encodeMessage({ mt: '2024-05-01T12:00:00.1234567+02:00' }, schema)).slice(0, 26), '120b08a0a5c8b106108094ef3a');
    const bytesOf = encodeMessage({ mt: '1970-01-01T00:00:01.000002Z' }, schema);
    assert.equal(hex(bytesOf).slice(0, 14), '1205080110d00f');
    assert.throws(() => encodeMessage({ t: '2024-02-30T00:00:00Z' }, schema), ProtobufError);
  });

  it('a time canonicalized on write (shared/go/time.ts) reads back the same from protobuf', () => {
    const inputs: [string, 'Time' | 'MicroTime'][] = [
      ['2024-01-01T10:00:00.5+02:00', 'Time'],
      ['2024-01-01T10:00:00.999999999-00:30', 'Time'],
      ['1969-07-20T20:17:40Z', 'Time'],
      ['2024-01-01T10:00:00.500000+02:00', 'MicroTime'],
      ['1969-12-31T23:59:59.999999Z', 'MicroTime'],
    ];
    for (const [text, kind] of inputs) {
      const stored = canonicalTime(text, kind);
      const field = kind === 'Time' ? 't' : 'mt';
      assert.equal(decodeMessage(encodeMessage({ [field]: stored }, schema), schema)[field], stored, text);
      assert.equal(decodeMessage(encodeMessage({ [field]: text }, schema), schema)[field], stored, text);
    }
    // Go's zero time, however it is written, is an empty message, and an explicit one reads as absent.
    assert.equal(canonicalTime('0001-01-01T00:00:00Z', 'Time'), null);
    assert.equal(hex(encodeMessage({ t: '0001-01-01T00:00:00Z' }, schema)).slice(0, 4), '0a00');
    const explicitZero = Buffer.from('0a0b088092b8c398feffffff01', 'hex');
    assert.equal(decodeMessage(explicitZero, object({ t: pb(1, time(), 'optional') })).t, undefined);
  });

  it('Duration is nanoseconds in protobuf and Go’s duration text in JSON', () => {
    const bytesOf = encodeMessage({ d: '1h30m' }, schema);
    assert.equal(hex(bytesOf), '1a080880e0d3c8949d01' + '2a00');
    assert.equal(decodeMessage(bytesOf, schema).d, '1h30m0s');
    const cases: [string, string][] = [
      ['0', '0s'],
      ['1.5s', '1.5s'],
      ['1500ms', '1.5s'],
      ['100ms', '100ms'],
      ['1us', '1µs'],
      ['2.5µs', '2.5µs'],
      ['-90s', '-1m30s'],
      ['8760h', '8760h0m0s'],
      ['1h0.5m', '1h0m30s'],
      ['3ns', '3ns'],
    ];
    for (const [input, output] of cases) assert.equal(decodeMessage(encodeMessage({ d: input }, schema), schema).d, output, input);
    for (const input of ['1x', '', '.s']) assert.throws(() => encodeMessage({ d: input }, schema), /"d" must be a duration/, input);
  });

  it('FieldsV1 and RawExtension carry JSON bytes', () => {
    const value = { f: { 'f:metadata': { 'f:labels': { '.': {} } } }, raw: { kind: 'Thing', list: [1, 'two', null] }, d: '0s' };
    const bytesOf = encodeMessage(value, schema);
    assert.deepEqual(decodeMessage(bytesOf, schema), value);
    assert.ok(Buffer.from(bytesOf).includes(Buffer.from('{"f:metadata":{"f:labels":{".":{}}}}')));
    const notJson = encodeMessage({ raw: Uint8Array.of(0x6b, 0x38, 0x73, 0x00, 1) }, schema);
    assert.throws(() => decodeMessage(notJson, schema), /RawExtension holds a protobuf object/);
  });
});
