import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { x509 } from '../../shared/go/x509.ts';
import { CSRParseError, goSubject, parseCertificateRequest } from './request.ts';
import { certificateRequest } from './testing.ts';

describe('certificate requests', () => {
  it('reads the subject as pkix.Name and the subjectAltNames by kind', async () => {
    const req = parseCertificateRequest(
      await certificateRequest({
        name: [{ CN: ['first'] }, { O: ['b'] }, { C: ['DE'] }, { O: ['a'] }, { CN: ['last'] }, { '1.2.840.113549.1.9.1': ['mail@example.com'] }],
        dnsNames: ['n.example'],
        ipAddresses: ['192.0.2.1', '2001:DB8:0:0::1'],
        emailAddresses: ['e@example.com'],
        uris: ['spiffe://x/y'],
      }),
    );
    assert.equal(req.subject.commonName, 'last');
    assert.deepEqual(req.subject.organization, ['b', 'a']);
    assert.deepEqual(req.subject.country, ['DE']);
    assert.deepEqual(req.dnsNames, ['n.example']);
    assert.deepEqual(req.ipAddresses, ['192.0.2.1', '2001:db8::1']);
    assert.deepEqual(req.emailAddresses, ['e@example.com']);
    assert.deepEqual(req.uris, ['spiffe://x/y']);
    assert.equal(req.publicKeyAlgorithm, 'ECDSA');
  });

  it('re-encodes the subject as Go does: its field order, multi-valued fields in one RDN, unknown attributes dropped', async () => {
    const req = parseCertificateRequest(
      await certificateRequest({ name: [{ CN: ['système'] }, { O: ['b'] }, { C: ['DE'] }, { O: ['a'] }, { '1.2.840.113549.1.9.1': ['mail@example.com'] }] }),
    );
    const name = goSubject(req.subject);
    assert.deepEqual(name.toJSON(), [{ C: ['DE'] }, { O: ['b', 'a'] }, { CN: ['système'] }]);
    // PrintableString where Go uses it (tag 0x13), UTF8String otherwise (0x0c).
    const der = Buffer.from(name.toArrayBuffer());
    assert.ok(der.includes(Buffer.from([0x13, 0x02, 0x44, 0x45])), 'C=DE as a PrintableString');
    assert.ok(der.includes(Buffer.concat([Buffer.from([0x0c, 0x08]), Buffer.from('système')])), 'CN as a UTF8String');
    assert.deepEqual(new x509.Name(name.toArrayBuffer()).toJSON(), name.toJSON());
  });

  it('says why a request cannot be read, in Go words', () => {
    assert.throws(() => parseCertificateRequest(undefined), new CSRParseError('PEM block type must be CERTIFICATE REQUEST'));
    const notDer = Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n').toString('base64');
    assert.throws(() => parseCertificateRequest(notDer), { name: 'Error', message: /^asn1: / });
  });
});
