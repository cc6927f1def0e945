import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldPath, fieldErrorString } from '../api/field.ts';
import { isIntegerResourceName, validateResourceQuantityValue } from './resource-quantity.ts';

const path = FieldPath.root('status').child('capacity', 'pods');

describe('isIntegerResourceName', () => {
  it('holds for object counts and extended resources, not for native compute resources', () => {
    for (const name of ['pods', 'services.nodeports', 'example.com/gpu']) assert.equal(isIntegerResourceName(name), true, name);
    for (const name of ['cpu', 'memory', 'kubernetes.io/something', 'requests.example.com/gpu']) assert.equal(isIntegerResourceName(name), false, name);
  });
});

describe('validateResourceQuantityValue', () => {
  it('requires a non-negative amount, whole for integer resources; malformed ones are left to decoding', () => {
    assert.deepEqual(validateResourceQuantityValue('cpu', '500m', path), []);
    assert.deepEqual(validateResourceQuantityValue('pods', 'lots', path), []);
    assert.deepEqual(validateResourceQuantityValue('pods', '-1.5', path).map(fieldErrorString), [
      'status.capacity.pods: Invalid value: "-1.5": must be greater than or equal to 0',
      'status.capacity.pods: Invalid value: "-1.5": must be an integer',
    ]);
  });
});
