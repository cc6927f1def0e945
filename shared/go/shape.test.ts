import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { toGoShape } from './shape.ts';
import { array, boolean, int32, intOrString, keyedArray, kindSchema, map, microTime, object, pb, quantity, string, time, type Schema } from '../api/schema.ts';

const schema = object({
  spec: pb(1, object({ name: pb(1, string(), 'keepZero'), note: pb(2, string()) })),
  status: pb(
    2,
    object({
      attached: pb(1, boolean(), 'keepZero'),
      endpoint: pb(2, object({ port: pb(1, int32(), 'keepZero') })),
      pointer: pb(3, object({ port: pb(1, int32(), 'keepZero') }), 'optional'),
      labels: pb(4, map(string())),
      items: pb(5, keyedArray(object({ key: pb(1, string(), 'keepZero'), value: pb(2, string()) }), ['key'])),
    }),
  ),
  plain: pb(3, object({ a: pb(1, string()) })),
});

describe('toGoShape: non-omitempty zeros', () => {
  it('adds keepZero zeros, and the non-pointer structs that hold them, but no other field', () => {
    assert.deepEqual(toGoShape({}, schema), {
      spec: { name: '' },
      status: { attached: false, endpoint: { port: 0 } },
    });
  });

  it('keeps values that are set, fills list items one by one and leaves pointer structs absent', () => {
    const value = { spec: { name: 'x', note: 'n' }, status: { attached: true, items: [{ value: 'v' }, { key: 'k' }] } };
    assert.deepEqual(toGoShape(value, schema), {
      spec: { name: 'x', note: 'n' },
      status: { attached: true, endpoint: { port: 0 }, items: [{ key: '', value: 'v' }, { key: 'k' }] },
    });
  });

  it('fills a present pointer struct and changes nothing of the wrong type (validation reports it)', () => {
    assert.deepEqual(toGoShape({ status: { pointer: {} }, spec: 'oops' }, schema), {
      status: { pointer: { port: 0 }, attached: false, endpoint: { port: 0 } },
      spec: 'oops',
    });
  });

  it('returns the very value it was given', () => {
    const value = {};
    assert.equal(toGoShape(value, schema), value);
  });
});

const resources = object({ limits: map(quantity()), requests: map(quantity()) });
const quantitySchema = object({
  spec: object({
    containers: array(object({ name: string(), resources })),
    size: quantity(),
    port: intOrString(),
    note: string(),
  }),
  status: object({ capacity: map(quantity()), allocatable: map(quantity()) }),
  data: map(string()),
});

describe('toGoShape: canonical quantities', () => {
  it('rewrites quantities in place, in nested objects, maps and list items', () => {
    const value = {
      spec: {
        containers: [
          { name: 'a', resources: { limits: { cpu: '4000m', memory: '1024Mi' }, requests: { cpu: '0.5' } } },
          { name: 'b', resources: { requests: { 'example.com/dongle': '1000' } } },
        ],
        size: '1.5Gi',
      },
      status: { capacity: { cpu: '4000m', memory: '1024Mi', pods: 110 } },
    };
    const containers = value.spec.containers;
    assert.equal(toGoShape(value, quantitySchema), value);
    assert.equal(value.spec.containers, containers);
    assert.deepEqual(value, {
      spec: {
        containers: [
          { name: 'a', resources: { limits: { cpu: '4', memory: '1Gi' }, requests: { cpu: '500m' } } },
          { name: 'b', resources: { requests: { 'example.com/dongle': '1k' } } },
        ],
        size: '1536Mi',
      },
      status: { capacity: { cpu: '4', memory: '1Gi', pods: '110' } },
    });
  });

  it('reads JSON numbers as their decimal text and trims whitespace around strings, as upstream decoding does', () => {
    const value = { status: { capacity: { a: 0.5, b: 1000, c: -1, d: 0, e: ' 1 ', f: 1.5 } } };
    toGoShape(value, quantitySchema);
    assert.deepEqual(value.status.capacity, { a: '500m', b: '1k', c: '-1', d: '0', e: '1', f: '1500m' });
  });

  it('leaves values that are no quantity, and every other field, alone', () => {
    const value = {
      spec: { size: '1 Gi', port: '1000', note: '1000', containers: 'oops' },
      status: { capacity: { cpu: true, memory: 'lots', pods: ' 2x ' }, allocatable: null },
      data: { size: '1000m' },
    };
    toGoShape(value, quantitySchema);
    assert.deepEqual(value, {
      spec: { size: '1 Gi', port: '1000', note: '1000', containers: 'oops' },
      status: { capacity: { cpu: true, memory: 'lots', pods: ' 2x ' }, allocatable: null },
      data: { size: '1000m' },
    });
  });

  it('follows recursive schemas and skips subtrees without quantities', () => {
    const node: Schema = object({ amount: quantity() });
    node.properties = { ...node.properties, children: array(node) };
    const value = { amount: '2000m', children: [{ amount: '1e3', children: [{ amount: 1024 }] }] };
    toGoShape(value, node);
    assert.deepEqual(value, { amount: '2', children: [{ amount: '1e3', children: [{ amount: '1024' }] }] });

    const plain = object({ data: map(string()) });
    const untouched = { data: { a: '1000m' } };
    assert.deepEqual(toGoShape(untouched, plain), { data: { a: '1000m' } });
  });

  it("shapes a map's own members that are no named property, in their order, `__proto__` included", () => {
    const mixed: Schema = { ...object({ size: quantity(), note: string() }), additionalProperties: quantity() };
    const value = JSON.parse('{"b":"2000m","size":"1024Mi","note":"1000m","__proto__":"1000","a":" 1 "}');
    Object.setPrototypeOf(value, { inherited: '1000m' });
    toGoShape(value, mixed);
    assert.deepEqual(Object.entries(value), [
      ['b', '2'],
      ['size', '1Gi'],
      ['note', '1000m'],
      ['__proto__', '1k'],
      ['a', '1'],
    ]);
    assert.equal(value.inherited, '1000m');
  });
});

const timeSchema = kindSchema({
  lastTimestamp: pb(2, time()),
  eventTime: pb(3, microTime(), 'optional'),
  series: pb(4, object({ lastObservedTime: pb(1, microTime()), count: pb(2, int32()) }), 'optional'),
  history: pb(5, array(time())),
});

describe('toGoShape: times as MarshalJSON writes them', () => {
  it('writes Time in UTC to the second and MicroTime in UTC to the microsecond, metadata included', () => {
    const value = {
      metadata: { name: 'e', creationTimestamp: '2024-01-01T10:00:00.5+02:00', managedFields: [{ manager: 'm', time: '2024-01-01T00:00:00-00:30' }] },
      lastTimestamp: '2024-01-01T10:00:00.999Z',
      eventTime: '2024-01-01T10:00:00.500000+02:00',
      series: { lastObservedTime: '2024-01-01T10:00:00.000001-01:00', count: 2 },
      history: ['2024-01-01T10:00:00+02:00', '2024-01-02T10:00:00Z'],
    };
    toGoShape(value, timeSchema);
    assert.deepEqual(value, {
      metadata: { name: 'e', creationTimestamp: '2024-01-01T08:00:00Z', managedFields: [{ manager: 'm', time: '2024-01-01T00:30:00Z' }] },
      lastTimestamp: '2024-01-01T10:00:00Z',
      eventTime: '2024-01-01T08:00:00.500000Z',
      series: { lastObservedTime: '2024-01-01T11:00:00.000001Z', count: 2 },
      history: ['2024-01-01T08:00:00Z', '2024-01-02T10:00:00Z'],
    });
  });

  it("removes Go's zero time, which Go writes as null", () => {
    const value = { metadata: { name: 'e', creationTimestamp: '0001-01-01T00:00:00Z' }, eventTime: '0001-01-01T00:00:00.000000Z' };
    toGoShape(value, timeSchema);
    assert.deepEqual(value, { metadata: { name: 'e' } });
  });

  it('leaves what Go would not parse as it came (decoding refuses it; validation judges what strategies write)', () => {
    const value = { metadata: { creationTimestamp: 'yesterday' }, lastTimestamp: 5, eventTime: '2024-01-01T10:00:00Z' };
    toGoShape(value, timeSchema);
    assert.deepEqual(value, { metadata: { creationTimestamp: 'yesterday' }, lastTimestamp: 5, eventTime: '2024-01-01T10:00:00Z' });
  });
});
