/** Test helper: the StatusError a write is refused with; fails the test when the write succeeds. */
import assert from 'node:assert/strict';
import { isStatusError, type StatusError } from '../../shared/api/errors.ts';

export async function rejection(write: Promise<unknown>): Promise<StatusError> {
  try {
    await write;
  } catch (err) {
    if (isStatusError(err)) return err;
    throw err;
  }
  assert.fail('the write succeeded');
}
