import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCA } from '../pki/certificates.ts';
import { x509KeyPairError } from './tls.ts';

const pem = (text: string): Buffer => Buffer.from(text);

describe('x509KeyPairError', () => {
  it('is null for a matching pair and names a key of another certificate', async () => {
    const a = await createCA({ commonName: 'a' });
    const b = await createCA({ commonName: 'b' });
    assert.equal(x509KeyPairError(pem(a.certPem), pem(a.keyPem)), null);
    assert.equal(x509KeyPairError(pem(a.certPem), pem(b.keyPem)), 'tls: private key does not match public key');
  });

  it('words PEM problems as Go does', async () => {
    const a = await createCA({ commonName: 'a' });
    assert.equal(x509KeyPairError(pem(''), pem(a.keyPem)), 'tls: failed to find any PEM data in certificate input');
    assert.equal(
      x509KeyPairError(pem(a.keyPem), pem(a.certPem)),
      'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched',
    );
    assert.equal(x509KeyPairError(pem(a.certPem), pem('')), 'tls: failed to find any PEM data in key input');
    assert.equal(x509KeyPairError(pem(a.certPem), pem(a.certPem)), 'tls: found a certificate rather than a key in the PEM for the private key');
    assert.equal(
      x509KeyPairError(pem(`${a.keyPem}${a.keyPem}`), pem(a.keyPem)),
      'tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [PRIVATE KEY PRIVATE KEY]',
    );
    assert.equal(
      x509KeyPairError(pem(a.certPem), pem(`${a.certPem}\n${a.certPem}`)),
      'tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [CERTIFICATE CERTIFICATE]',
    );
    assert.equal(x509KeyPairError(pem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), pem(a.keyPem)), 'x509: malformed certificate');
    assert.equal(x509KeyPairError(pem(a.certPem), pem('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')), 'tls: failed to parse private key');
  });

  // The reader the secret strategy had found blocks Go's pem.Decode does not: a BEGIN inside a
  // line, and a body that is not base64. Go's answer is that there is no PEM data at all.
  it('finds PEM blocks where Go does, and only there', async () => {
    const a = await createCA({ commonName: 'a' });
    const none = 'tls: failed to find any PEM data in certificate input';
    assert.equal(x509KeyPairError(pem(`text before\n${a.certPem}\ntext after\n`), pem(a.keyPem)), null);
    assert.equal(x509KeyPairError(pem(`text before ${a.certPem}`), pem(a.keyPem)), none);
    assert.equal(x509KeyPairError(pem('-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n'), pem(a.keyPem)), none);
    assert.equal(x509KeyPairError(pem(a.certPem.replace('-----END CERTIFICATE-----', '-----END CERTIFICATE----- trailing')), pem(a.keyPem)), none);
  });
});
