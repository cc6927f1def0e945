import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../shared/api/errors.ts';
import { checkResourceVersion } from './resource-version.ts';

test('resourceVersions parse as upstream parses them: a decimal uint64', () => {
  for (const ok of [undefined, '', '0', '1', '18446744073709551615']) assert.doesNotThrow(() => checkResourceVersion(ok), String(ok));
  for (const bad of ['-1', 'abc', '1.5', ' 1', '18446744073709551616', '9'.repeat(400)]) {
    assert.throws(
      () => checkResourceVersion(bad),
      (err: unknown) => isStatusError(err, 'BadRequest') && err.message === `invalid resource version: ${bad}`,
      bad,
    );
  }
});
