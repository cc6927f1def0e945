import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { computeDetachedSignature, detachedSignatureIsValid, signingKey } from './jws.ts';

// Upstream's vectors (k8s.io/cluster-bootstrap/token/jws/jws_test.go), which go-jose computes with
// the key "my voice is my passcode": the header and the HMAC match it byte for byte.
const content = 'Hello from the other side. I must have called a thousand times.';
const secret = 'my voice is my passcode';
const id = 'joshua';

describe('detached JWS', () => {
  it("computes upstream's signatures for a given key", () => {
    assert.equal(computeDetachedSignature(content, id, secret), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8');
    assert.equal(computeDetachedSignature('', id, secret), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..7Ui1ALizW4jXphVUB7xUqC9vLYLL9RZeOFfVLoB7Tgk');
    assert.equal(computeDetachedSignature(content, id, ''), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..UfkqvDGiIFxrMnFseDj9LYJOLNrvjW8aHhF71mvvAs8');
  });

  it('has the protected header {"alg":"HS256","kid":<id>}', () => {
    const [header] = computeDetachedSignature(content, 'abcdef', 'k').split('.');
    assert.equal(Buffer.from(header ?? '', 'base64url').toString(), '{"alg":"HS256","kid":"abcdef"}');
  });

  it("signs with the full token, verifiable by the spec's recipe", () => {
    const token = { id: 'abcdef', secret: '0123456789abcdef' };
    const kubeconfig = 'apiVersion: v1\nkind: Config\n';
    const jws = computeDetachedSignature(kubeconfig, token.id, signingKey(token.id, token.secret));
    // The recipe: put the unpadded base64url payload between the dots, check HS256 with `<id>.<secret>`.
    const [header = '', empty, signature] = jws.split('.');
    assert.equal(empty, '');
    assert.equal(JSON.parse(Buffer.from(header, 'base64url').toString()).alg, 'HS256');
    const payload = Buffer.from(kubeconfig).toString('base64url');
    assert.doesNotMatch(payload, /=/);
    assert.equal(signature, createHmac('sha256', 'abcdef.0123456789abcdef').update(`${header}.${payload}`).digest('base64url'));
  });

  it('validates exactly its own signatures', () => {
    const good = computeDetachedSignature(content, id, secret);
    assert.equal(detachedSignatureIsValid(good, content, id, secret), true);
    assert.equal(detachedSignatureIsValid(`${good}foo`, content, id, secret), false);
    assert.equal(detachedSignatureIsValid(good, `${content}!`, id, secret), false);
    assert.equal(detachedSignatureIsValid(good, content, 'other', secret), false);
  });
});
