import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalizeQuantities } from './canonical-quantities.ts';
import { array, intOrString, map, object, quantity, string } from './schema.ts';
import type { Schema } from './schema.ts';

const resources = object({ limits: map(quantity()), requests: map(quantity()) });
const schema = object({
  spec: object({
    containers: array(object({ name: string(), resources })),
    size: quantity(),
    port: intOrString(),
    note: string(),
  }),
  status: object({ capacity: map(quantity()), allocatable: map(quantity()) }),
  data: map(string()),
});

describe('canonicalizeQuantities', () => {
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
    assert.equal(canonicalizeQuantities(value, schema), value);
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
    canonicalizeQuantities(value, schema);
    assert.deepEqual(value.status.capacity, { a: '500m', b: '1k', c: '-1', d: '0', e: '1', f: '1500m' });
  });

  it('leaves values that are no quantity, and every other field, alone', () => {
    const value = {
      spec: { size: '1 Gi', port: '1000', note: '1000', containers: 'oops' },
      status: { capacity: { cpu: true, memory: 'lots', pods: ' 2x ' }, allocatable: null },
      data: { size: '1000m' },
    };
    canonicalizeQuantities(value, schema);
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
    canonicalizeQuantities(value, node);
    assert.deepEqual(value, { amount: '2', children: [{ amount: '1e3', children: [{ amount: '1024' }] }] });

    const plain = object({ data: map(string()) });
    const untouched = { data: { a: '1000m' } };
    assert.deepEqual(canonicalizeQuantities(untouched, plain), { data: { a: '1000m' } });
  });
});
