import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, webcrypto, X509Certificate } from 'node:crypto';
import {
  BACKDATE_MS,
  canonicalIP,
  certifyServingKey,
  createCA,
  issueClientCertificate,
  issueServingCertificate,
  loadCA,
  publicKeyOfPrivateKeyPem,
  signCertificate,
  splitSubjectAltNames,
  subjectAltNames,
  validityWindow,
  EXT_KEY_USAGE,
  KeyUsage,
} from './certificates.ts';
import { x509 } from '../go/x509.ts';

const DAY = 24 * 60 * 60 * 1000;

function extension<T extends x509.Extension>(pem: string, type: new (raw: Uint8Array) => T): T {
  const ext = new x509.X509Certificate(pem).getExtension(type);
  assert.ok(ext, `missing extension ${type.name}`);
  return ext;
}

describe('createCA', () => {
  it('is a self-signed P-256 CA named corral-ca, valid 10 years', async () => {
    const now = new Date('2025-01-01T00:00:00Z');
    const ca = await createCA({ now });
    const cert = new X509Certificate(ca.certPem);
    assert.equal(cert.subject, 'CN=corral-ca');
    assert.equal(cert.issuer, 'CN=corral-ca');
    assert.equal(cert.ca, true);
    assert.ok(cert.checkIssued(cert));
    assert.ok(cert.verify(cert.publicKey));
    assert.equal(cert.publicKey.asymmetricKeyType, 'ec');
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.equal(new Date(cert.validFrom).getTime(), now.getTime() - BACKDATE_MS);
    assert.equal(new Date(cert.validTo).getTime(), now.getTime() + 3650 * DAY);
    assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.deepEqual(publicKeyOfPrivateKeyPem(ca.keyPem), cert.publicKey.export({ format: 'der', type: 'spki' }));

    const basic = extension(ca.certPem, x509.BasicConstraintsExtension);
    assert.equal(basic.ca, true);
    assert.equal(basic.critical, true);
    const usages = extension(ca.certPem, x509.KeyUsagesExtension);
    assert.equal(usages.critical, true);
    assert.equal(usages.usages, KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature);
  });

  it('round-trips through loadCA and rejects a key of another CA', async () => {
    const ca = await createCA();
    const other = await createCA();
    const loaded = await loadCA(ca.certPem, ca.keyPem);
    const leaf = await issueClientCertificate(loaded, { commonName: 'u' });
    assert.ok(new X509Certificate(leaf.certPem).verify(new X509Certificate(ca.certPem).publicKey));
    await assert.rejects(loadCA(ca.certPem, other.keyPem), /CA private key does not match the CA certificate/);
  });
});

describe('issueServingCertificate', () => {
  it('is issued by the CA for server auth with the DNS and IP SANs', async () => {
    const ca = await createCA();
    const now = new Date('2025-03-01T00:00:00Z');
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost', 'node-1'], ipAddresses: ['127.0.0.1', '::1', '10.0.0.5'], now });
    const cert = new X509Certificate(serving.certPem);
    const caCert = new X509Certificate(ca.certPem);
    assert.ok(cert.checkIssued(caCert));
    assert.ok(cert.verify(caCert.publicKey));
    assert.equal(cert.ca, false);
    assert.equal(cert.subject, 'CN=kube-apiserver');
    assert.equal(cert.subjectAltName, 'DNS:localhost, DNS:node-1, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.0.0.5');
    assert.ok(cert.checkHost('node-1'));
    assert.ok(cert.checkIP('10.0.0.5'));
    assert.equal(cert.checkIP('10.0.0.6'), undefined);
    assert.equal(new Date(cert.validTo).getTime(), now.getTime() + 365 * DAY);
    assert.deepEqual([...extension(serving.certPem, x509.ExtendedKeyUsageExtension).usages], [EXT_KEY_USAGE.serverAuth]);
    assert.deepEqual(cert.keyUsage, [EXT_KEY_USAGE.serverAuth]);
    assert.equal(extension(serving.certPem, x509.KeyUsagesExtension).usages, KeyUsage.digitalSignature);
    assert.equal(extension(serving.certPem, x509.BasicConstraintsExtension).ca, false);
    assert.deepEqual(subjectAltNames(serving.certPem), { dnsNames: ['localhost', 'node-1'], ipAddresses: ['127.0.0.1', '::1', '10.0.0.5'] });
    assert.deepEqual(publicKeyOfPrivateKeyPem(serving.keyPem), cert.publicKey.export({ format: 'der', type: 'spki' }));
  });

  it('links the leaf to the CA: issuer bytes equal the CA subject, AKI equals the CA SKI', async () => {
    const ca = await createCA();
    const serving = await issueServingCertificate(ca, { dnsNames: ['a'], ipAddresses: [] });
    const caSubject = Buffer.from(ca.cert.subjectName.toArrayBuffer());
    assert.ok(Buffer.from(new x509.X509Certificate(serving.certPem).rawData).includes(caSubject));
    const ski = extension(ca.certPem, x509.SubjectKeyIdentifierExtension).keyId;
    assert.equal(extension(serving.certPem, x509.AuthorityKeyIdentifierExtension).keyId, ski);
  });

  it('certifyServingKey re-certifies an existing key', async () => {
    const ca = await createCA();
    const first = await issueServingCertificate(ca, { dnsNames: ['a'], ipAddresses: [] });
    const again = await certifyServingKey(ca, publicKeyOfPrivateKeyPem(first.keyPem), { dnsNames: ['a', 'b'], ipAddresses: ['192.0.2.1'] });
    assert.deepEqual(new X509Certificate(again).publicKey.export({ format: 'der', type: 'spki' }), publicKeyOfPrivateKeyPem(first.keyPem));
    assert.deepEqual(subjectAltNames(again), { dnsNames: ['a', 'b'], ipAddresses: ['192.0.2.1'] });
  });
});

describe('issueClientCertificate', () => {
  it('has CN user, one O per group, client auth', async () => {
    const ca = await createCA();
    const client = await issueClientCertificate(ca, { commonName: 'kubernetes-admin', organizations: ['system:masters', 'team,a'] });
    const cert = new X509Certificate(client.certPem);
    assert.ok(cert.checkIssued(new X509Certificate(ca.certPem)));
    assert.ok(cert.verify(new X509Certificate(ca.certPem).publicKey));
    assert.equal(cert.subject, 'O=system:masters\nO=team\\,a\nCN=kubernetes-admin');
    const name = new x509.X509Certificate(client.certPem).subjectName;
    assert.deepEqual(name.getField('O'), ['system:masters', 'team,a']);
    assert.deepEqual(name.getField('CN'), ['kubernetes-admin']);
    assert.deepEqual([...extension(client.certPem, x509.ExtendedKeyUsageExtension).usages], [EXT_KEY_USAGE.clientAuth]);
    assert.deepEqual(cert.keyUsage, [EXT_KEY_USAGE.clientAuth]);
    assert.equal(cert.subjectAltName, undefined);
  });
});

describe('signCertificate', () => {
  it('signs a DER public key (as from a CSR) and clamps notAfter to the CA', async () => {
    const ca = await createCA({ validityMs: 10 * DAY });
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const spki = publicKey.export({ format: 'der', type: 'spki' });
    const cert = await signCertificate(ca, {
      subject: [{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }],
      publicKey: spki,
      ...validityWindow(365 * DAY),
      keyUsages: KeyUsage.digitalSignature | KeyUsage.keyEncipherment,
      extKeyUsages: [EXT_KEY_USAGE.serverAuth],
      dnsNames: ['n1'],
      ipAddresses: ['10.1.2.3'],
    });
    const node = new X509Certificate(cert.toString('pem'));
    assert.ok(node.verify(new X509Certificate(ca.certPem).publicKey));
    assert.equal(node.validTo, new X509Certificate(ca.certPem).validTo);
    assert.equal(node.publicKey.asymmetricKeyType, 'rsa');
    assert.equal(node.subject, 'O=system:nodes\nCN=system:node:n1');
  });

  it('loads an operator RSA CA whose key is PKCS#1 PEM and issues with it', async () => {
    const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) };
    const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
    const caCert = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=rsa-ca',
      keys,
      signingAlgorithm: alg,
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
    });
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    const pkcs1Pem = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs1' }).toString();
    assert.match(pkcs1Pem, /^-----BEGIN RSA PRIVATE KEY-----/);

    const ca = await loadCA(caCert.toString('pem'), pkcs1Pem);
    const client = await issueClientCertificate(ca, { commonName: 'u', organizations: ['g'] });
    const cert = new X509Certificate(client.certPem);
    const caNode = new X509Certificate(ca.certPem);
    assert.ok(cert.checkIssued(caNode));
    assert.ok(cert.verify(caNode.publicKey));
    assert.equal(cert.issuer, 'CN=rsa-ca');
    // The leaf key is still P-256; its usages follow the leaf key, not the CA key.
    assert.equal(extension(client.certPem, x509.KeyUsagesExtension).usages, KeyUsage.digitalSignature);
  });
});

describe('subjectAltName helpers', () => {
  it('splitSubjectAltNames sends IPs to IP SANs in canonical form', () => {
    assert.deepEqual(splitSubjectAltNames(['example.com', '10.0.0.1', '2001:DB8:0:0::1', 'node-1']), {
      dnsNames: ['example.com', 'node-1'],
      ipAddresses: ['10.0.0.1', '2001:db8::1'],
    });
  });
  it('canonicalIP', () => {
    assert.equal(canonicalIP('0:0:0:0:0:0:0:1'), '::1');
    assert.equal(canonicalIP('192.168.1.1'), '192.168.1.1');
    assert.equal(canonicalIP('localhost'), null);
  });
});
