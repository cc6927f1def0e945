import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invalid, maxListedFieldErrors } from './errors.ts';
import { FieldPath, required } from './field.ts';

const gk = { group: '', kind: 'ConfigMap' };

test('a 422 lists each distinct cause once and names each distinct error once', () => {
  const path = FieldPath.root('metadata').child('ownerReferences').child('name');
  const err = invalid(gk, 'a', [required(path), required(path), required(FieldPath.root('data'))]);
  assert.equal(err.code, 422);
  assert.deepEqual(
    err.status.details?.causes?.map((c) => c.field),
    ['metadata.ownerReferences.name', 'data'],
  );
  assert.equal(err.message, 'ConfigMap "a" is invalid: [metadata.ownerReferences.name: Required value, data: Required value]');
});

test('past the limit a 422 lists the first errors and says how many it left out', () => {
  const errors = Array.from({ length: maxListedFieldErrors + 5 }, (_, i) => required(FieldPath.root('spec').child('drivers').index(i).child('name')));
  const err = invalid(gk, 'a', errors);
  assert.equal(err.status.details?.causes?.length, maxListedFieldErrors);
  assert.match(err.message, /spec\.drivers\[999\]\.name: Required value, and 5 more errors\]$/);
  assert.doesNotMatch(err.message, /drivers\[1000\]/);
});
