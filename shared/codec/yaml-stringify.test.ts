import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stringifyYaml } from './yaml-stringify.ts';

test('YAML as sigs.k8s.io/yaml writes it: sorted keys, unindented sequences, YAML 1.1 quoting', () => {
  assert.equal(stringifyYaml({ b: ['x', 'y'], a: { on: 'yes', t: '2024-01-02' } }), 'a:\n  "on": "yes"\n  t: "2024-01-02"\nb:\n- x\n- "y"\n');
});

test('an object met twice is written twice, never as an anchor and an alias', () => {
  const shared = { a: 1 };
  assert.equal(stringifyYaml({ x: shared, z: [shared] }), 'x:\n  a: 1\nz:\n- a: 1\n');
});
