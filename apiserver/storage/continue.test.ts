import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../shared/api/errors.ts';
import { decodeContinue, encodeContinue } from './continue.ts';

const raw = (token: object): string => Buffer.from(JSON.stringify(token)).toString('base64');

function refusal(text: string): string {
  try {
    decodeContinue(text);
  } catch (err) {
    assert.ok(isStatusError(err, 'BadRequest'));
    return err.message;
  }
  assert.fail(`accepted ${text}`);
}

describe('continue tokens', () => {
  it("round-trip a revision and a start key in upstream's JSON form", () => {
    const token = encodeContinue({ revision: 42, start: 'ns/cm-1\x00' });
    assert.deepEqual(JSON.parse(Buffer.from(token, 'base64').toString('utf8')), { v: 'meta.k8s.io/v1', rv: 42, start: 'ns/cm-1\x00' });
    assert.deepEqual(decodeContinue(token), { revision: 42, start: 'ns/cm-1\x00' });
  });

  it('accept a negative revision (the newest, as in the token of a 410 for a compacted one)', () => {
    assert.deepEqual(decodeContinue(raw({ v: 'meta.k8s.io/v1', rv: -1, start: 'a\x00' })), { revision: -1, start: 'a\x00' });
  });

  it("refuse revision 0, an unknown version, an empty start and path traversal with upstream's messages", () => {
    assert.equal(
      refusal(raw({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' })),
      'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
    assert.equal(refusal(raw({ v: 'v2', rv: 1, start: 'a' })), 'invalid continue token: continue key is not valid: server does not recognize this encoded key');
    assert.equal(
      refusal(raw({ v: 'meta.k8s.io/v1', rv: 1, start: '' })),
      'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)',
    );
    assert.equal(
      refusal(raw({ v: 'meta.k8s.io/v1', rv: 1, start: '../secrets/x' })),
      'invalid continue token: continue key is not valid: path traversal not allowed',
    );
  });
});
