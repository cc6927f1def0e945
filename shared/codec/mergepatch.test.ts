import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch } from './mergepatch.ts';

test('RFC 7386 examples', () => {
  assert.deepEqual(applyMergePatch({ a: 'b' }, { a: 'c' }), { a: 'c' });
  assert.deepEqual(applyMergePatch({ a: 'b' }, { b: 'c' }), { a: 'b', b: 'c' });
  assert.deepEqual(applyMergePatch({ a: 'b' }, { a: null }), {});
  assert.deepEqual(applyMergePatch({ a: 'b', b: 'c' }, { a: null }), { b: 'c' });
  assert.deepEqual(applyMergePatch({ a: ['b'] }, { a: 'c' }), { a: 'c' });
  assert.deepEqual(applyMergePatch({ a: { b: 'c' } }, { a: { b: 'd', c: null } }), { a: { b: 'd' } });
  assert.deepEqual(applyMergePatch({ a: [{ b: 'c' }] }, { a: [1] }), { a: [1] });
  assert.deepEqual(applyMergePatch(['a', 'b'], ['c', 'd']), ['c', 'd']);
  assert.deepEqual(applyMergePatch({ a: 'foo' }, 'bar'), 'bar');
  assert.deepEqual(applyMergePatch({ e: null }, { a: 1 }), { e: null, a: 1 });
});

test('the target is not mutated', () => {
  const target = { a: { b: 1 } };
  applyMergePatch(target, { a: { b: 2 } });
  assert.deepEqual(target, { a: { b: 1 } });
});
