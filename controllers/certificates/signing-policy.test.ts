import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyUsage } from '../../shared/pki/certificates.ts';
import { certificateDuration, certificateUsages, SigningPolicyError, validityWindow } from './signing-policy.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const now = Date.parse('2026-03-01T12:00:00Z');

describe('signing policy', () => {
  it('maps usages to key usage bits and extended usages, each once, in Go order', () => {
    assert.deepEqual(
      certificateUsages(['signing', 'digital signature', 'content commitment', 'crl sign', 's/mime', 'email protection', 'netscape sgc', 'any']),
      {
        keyUsages: KeyUsage.digitalSignature | KeyUsage.nonRepudiation | KeyUsage.cRLSign,
        extKeyUsages: ['2.5.29.37.0', '1.3.6.1.5.5.7.3.4', '2.16.840.1.113730.4.1'],
      },
    );
    assert.deepEqual(certificateUsages(['client auth']), { keyUsages: 0, extKeyUsages: ['1.3.6.1.5.5.7.3.2'] });
  });

  it('refuses unknown usages all at once, quoted as Go does', () => {
    assert.throws(
      () => certificateUsages(['client auth', 'flying', 'tab\there']),
      new SigningPolicyError('unrecognized usage values: ["flying" "tab\\there"]'),
    );
  });

  it('grants the requested duration within [10 minutes, --cluster-signing-duration]', () => {
    assert.equal(certificateDuration(8760 * HOUR, undefined), 8760 * HOUR);
    assert.equal(certificateDuration(8760 * HOUR, 3600), HOUR);
    assert.equal(certificateDuration(2 * HOUR, 3 * 3600), 2 * HOUR);
    assert.equal(certificateDuration(8760 * HOUR, 60), 10 * MINUTE);
  });

  it('backdates the start always and the end of long-lived certificates only', () => {
    const far = new Date(now + 10 * 8760 * HOUR);
    assert.deepEqual(validityWindow(now, HOUR, far), { notBefore: new Date(now - 5 * MINUTE), notAfter: new Date(now + HOUR) });
    assert.deepEqual(validityWindow(now, 8 * HOUR - 1, far).notAfter, new Date(now + 8 * HOUR - 1));
    assert.deepEqual(validityWindow(now, 8 * HOUR, far).notAfter, new Date(now + 8 * HOUR - 5 * MINUTE));
  });

  it('ends with the CA, and refuses to sign with an expired one', () => {
    const caEnd = new Date(now + HOUR);
    assert.deepEqual(validityWindow(now, 8760 * HOUR, caEnd).notAfter, caEnd);
    assert.throws(() => validityWindow(now, HOUR, new Date(now - 2 * MINUTE)), {
      message: 'refusing to sign a certificate that expired in the past: NotAfter=2026-03-01 11:58:00 +0000 UTC',
    });
    assert.throws(() => validityWindow(now, HOUR, new Date(now - 5 * MINUTE)), { message: 'the signer has expired: NotAfter=2026-03-01 11:55:00 +0000 UTC' });
  });
});
