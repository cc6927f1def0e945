import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldPath, fieldErrorString } from '../api/field.ts';
import { sameAsGoValue, semanticEqual, validateImmutableField } from './immutable.ts';

describe('validateImmutableField', () => {
  it('reports a changed value with upstream text, comparing as Go values by default', () => {
    const path = FieldPath.root('spec').child('ipv4');
    assert.deepEqual(validateImmutableField('', undefined, path), []);
    assert.deepEqual(validateImmutableField('10.1.0.0/16', '10.0.0.0/8', path).map(fieldErrorString), [
      'spec.ipv4: Invalid value: "10.1.0.0/16": field is immutable',
    ]);
  });
});

describe('sameAsGoValue', () => {
  it('treats zero values as absent', () => {
    assert.equal(sameAsGoValue({ a: 0, b: '', c: false, d: {} }, undefined), true);
    assert.equal(sameAsGoValue({ a: 1 }, {}), false);
  });
});

describe('semanticEqual', () => {
  it('equates missing, null and empty lists, but not an empty object with a missing one', () => {
    assert.equal(semanticEqual({ list: [] }, { list: null }), true);
    assert.equal(semanticEqual(undefined, []), true);
    assert.equal(semanticEqual({}, undefined), false);
    assert.equal(semanticEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), true);
    assert.equal(semanticEqual({ a: [1] }, { a: [2] }), false);
  });
});
