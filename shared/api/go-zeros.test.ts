import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fillGoZeros } from './go-zeros.ts';
import { boolean, int32, keyedArray, map, object, pb, string } from './schema.ts';

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

describe('fillGoZeros', () => {
  it('adds keepZero zeros, and the non-pointer structs that hold them, but no other field', () => {
    assert.deepEqual(fillGoZeros({}, schema), {
      spec: { name: '' },
      status: { attached: false, endpoint: { port: 0 } },
    });
  });

  it('keeps values that are set, fills list items one by one and leaves pointer structs absent', () => {
    const value = { spec: { name: 'x', note: 'n' }, status: { attached: true, items: [{ value: 'v' }, { key: 'k' }] } };
    assert.deepEqual(fillGoZeros(value, schema), {
      spec: { name: 'x', note: 'n' },
      status: { attached: true, endpoint: { port: 0 }, items: [{ key: '', value: 'v' }, { key: 'k' }] },
    });
  });

  it('fills a present pointer struct and changes nothing of the wrong type (validation reports it)', () => {
    assert.deepEqual(fillGoZeros({ status: { pointer: {} }, spec: 'oops' }, schema), {
      status: { pointer: { port: 0 }, attached: false, endpoint: { port: 0 } },
      spec: 'oops',
    });
  });

  it('returns the very value it was given', () => {
    const value = {};
    assert.equal(fillGoZeros(value, schema), value);
  });
});
