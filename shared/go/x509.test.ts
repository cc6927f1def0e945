import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCA, generateKeyPair } from '../pki/certificates.ts';
import { certificateRequestError, parseCertificate, parseCertificates, x509, X509Error } from './x509.ts';

describe('parseCertificate', () => {
  it("parses DER and turns any library error into Go's message", async () => {
    const ca = await createCA({ commonName: 'a' });
    assert.equal(parseCertificate(new Uint8Array(ca.cert.rawData)).subject, 'CN=a');
    for (const der of [Buffer.alloc(0), Buffer.from([0, 0, 0]), Buffer.from(ca.cert.rawData).subarray(0, 40)]) {
      assert.throws(
        () => parseCertificate(der),
        (err: unknown) => err instanceof X509Error && err.message === 'x509: malformed certificate',
      );
    }
  });
});

describe('parseCertificates', () => {
  it('reads concatenated DER certificates, none from no bytes', async () => {
    const a = Buffer.from((await createCA({ commonName: 'a' })).cert.rawData);
    const b = Buffer.from((await createCA({ commonName: 'b' })).cert.rawData);
    assert.deepEqual(
      parseCertificates(Buffer.concat([a, b])).map((c) => c.subject),
      ['CN=a', 'CN=b'],
    );
    assert.deepEqual(parseCertificates(Buffer.alloc(0)), []);
    assert.throws(() => parseCertificates(Buffer.concat([a, Buffer.from([0x30, 0x05])])), { message: 'x509: malformed certificate' });
  });
});

describe('certificateRequestError', () => {
  it("is null for a well-signed request and Go's error otherwise", async () => {
    const keys = await generateKeyPair();
    const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } });
    const der = Buffer.from(request.rawData);
    assert.equal(certificateRequestError(der), null);
    assert.equal(certificateRequestError(der.subarray(0, der.length - 1)), 'asn1: syntax error: data truncated');
    assert.equal(certificateRequestError(Buffer.concat([der, Buffer.from([0])])), 'asn1: syntax error: trailing data');
    const tampered = Buffer.from(der);
    tampered[tampered.length - 2] = (tampered[tampered.length - 2] ?? 0) ^ 0xff;
    assert.equal(certificateRequestError(tampered), 'x509: ECDSA verification failure');
  });
});
