import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { x509 } from '../go/x509.ts';
import { createCA, generateKeyPair } from '../pki/certificates.ts';
import { certificateChainPemError, certificateRequestPemError } from './certificates.ts';

const bytes = (text: string): Buffer => Buffer.from(text);

describe('certificateRequestPemError', () => {
  it('wants a signed CERTIFICATE REQUEST as the first PEM block', async () => {
    const keys = await generateKeyPair();
    const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } });
    const ca = await createCA();
    assert.equal(certificateRequestPemError(bytes(`text\n${request.toString('pem')}\n`)), null);
    for (const text of ['', 'no pem', ca.certPem, `${ca.certPem}\n${request.toString('pem')}`]) {
      assert.equal(certificateRequestPemError(bytes(text)), 'PEM block type must be CERTIFICATE REQUEST', text);
    }
    assert.equal(
      certificateRequestPemError(bytes('-----BEGIN CERTIFICATE REQUEST-----\nMAA=\n-----END CERTIFICATE REQUEST-----\n')),
      'asn1: syntax error: data truncated',
    );
  });
});

describe('certificateChainPemError', () => {
  it('takes nothing, or header-less CERTIFICATE blocks of certificates', async () => {
    const a = (await createCA({ commonName: 'a' })).certPem;
    const b = (await createCA({ commonName: 'b' })).certPem;
    assert.equal(certificateChainPemError(bytes('')), null);
    assert.equal(certificateChainPemError(bytes(`${a}\n${b}\n`)), null);
    assert.equal(certificateChainPemError(bytes('text only')), 'must contain at least one CERTIFICATE PEM block');
    assert.equal(
      certificateChainPemError(bytes('-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n')),
      'only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"',
    );
    assert.equal(certificateChainPemError(bytes('-----BEGIN CERTIFICATE-----\nK: v\n\n-----END CERTIFICATE-----\n')), 'no PEM block headers are permitted');
    assert.equal(
      certificateChainPemError(bytes('-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n')),
      'found CERTIFICATE PEM block containing 0 certificates',
    );
    assert.equal(certificateChainPemError(bytes('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')), 'x509: malformed certificate');
  });
});
