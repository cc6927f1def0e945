import { strict as assert } from 'node:assert';
import { X509Certificate } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCA, issueClientCertificate, type CertificateAndKey } from '../../shared/pki/certificates.ts';
import { CertificateStore, parsePair } from './store.ts';

const issuedAt = new Date('2026-03-04T05:06:07.890Z');
let first: CertificateAndKey;
let second: CertificateAndKey;
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'corral-cert-store-'));
  dirs.push(dir);
  return dir;
}

before(async () => {
  const ca = await createCA({ now: issuedAt });
  first = await issueClientCertificate(ca, { commonName: 'system:node:a', organizations: ['system:nodes'], now: issuedAt, validityMs: 3_600_000 });
  second = await issueClientCertificate(ca, { commonName: 'system:node:a', organizations: ['system:nodes'], now: issuedAt, validityMs: 7_200_000 });
});

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('CertificateStore', () => {
  it('writes <prefix>-<time>.pem (0600, certificate then key) and points <prefix>-current.pem at it', () => {
    const dir = join(tempDir(), 'nested', 'pki');
    const store = new CertificateStore(dir, 'kubelet-client');
    const pair = store.update(first.certPem, first.keyPem, issuedAt);
    const file = join(dir, 'kubelet-client-2026-03-04-05-06-07.pem');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file, 'utf8');
    assert.equal(text, `${first.certPem.trim()}\n${first.keyPem.trim()}\n`);
    assert.ok(text.indexOf('BEGIN CERTIFICATE') < text.indexOf('PRIVATE KEY'));
    assert.equal(store.currentPath, join(dir, 'kubelet-client-current.pem'));
    assert.ok(lstatSync(store.currentPath).isSymbolicLink());
    assert.equal(realpathSync(store.currentPath), realpathSync(file));
    assert.equal(existsSync(join(dir, 'kubelet-client-updated.pem')), false);
    assert.equal(pair.notAfter, issuedAt.getTime() - (issuedAt.getTime() % 1000) + 3_600_000);
  });

  it('swaps the symlink to the newer pair on a second update and keeps the older file', () => {
    const dir = tempDir();
    const store = new CertificateStore(dir, 'kubelet-server');
    store.update(first.certPem, first.keyPem, issuedAt);
    store.update(second.certPem, second.keyPem, new Date(issuedAt.getTime() + 60_000));
    const newer = join(dir, 'kubelet-server-2026-03-04-05-07-07.pem');
    assert.equal(realpathSync(store.currentPath), realpathSync(newer));
    assert.deepEqual(readdirSync(dir).sort(), [
      'kubelet-server-2026-03-04-05-06-07.pem',
      'kubelet-server-2026-03-04-05-07-07.pem',
      'kubelet-server-current.pem',
    ]);
    assert.equal(store.current()?.certPem.trim(), second.certPem.trim());
  });

  it('reads the current pair back with its validity', () => {
    const store = new CertificateStore(tempDir(), 'kubelet-client');
    store.update(first.certPem, first.keyPem, issuedAt);
    const current = store.current();
    assert.ok(current);
    assert.equal(current.certPem.trim(), first.certPem.trim());
    assert.equal(current.keyPem.trim(), first.keyPem.trim());
    const leaf = new X509Certificate(first.certPem);
    assert.equal(current.notBefore, Date.parse(leaf.validFrom));
    assert.equal(current.notAfter, Date.parse(leaf.validTo));
    // Backdated five minutes, as the signer does; second precision.
    assert.equal(current.notBefore, Math.floor(issuedAt.getTime() / 1000) * 1000 - 5 * 60_000);
  });

  it('falls back to <prefix>.crt and <prefix>.key when there is no current pair', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'kubelet-client.crt'), first.certPem);
    writeFileSync(join(dir, 'kubelet-client.key'), first.keyPem);
    const current = new CertificateStore(dir, 'kubelet-client').current();
    assert.equal(current?.certPem.trim(), first.certPem.trim());
    assert.equal(current?.keyPem.trim(), first.keyPem.trim());
  });

  it('prefers the current pair over the .crt and .key files', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'kubelet-client.crt'), first.certPem);
    writeFileSync(join(dir, 'kubelet-client.key'), first.keyPem);
    const store = new CertificateStore(dir, 'kubelet-client');
    store.update(second.certPem, second.keyPem, issuedAt);
    assert.equal(store.current()?.certPem.trim(), second.certPem.trim());
  });

  it('returns null when there is no pair, half a pair, or garbage', () => {
    assert.equal(new CertificateStore(join(tempDir(), 'missing'), 'kubelet-client').current(), null);
    const half = tempDir();
    writeFileSync(join(half, 'kubelet-client.crt'), first.certPem);
    assert.equal(new CertificateStore(half, 'kubelet-client').current(), null);
    const garbage = tempDir();
    writeFileSync(join(garbage, 'kubelet-client-current.pem'), 'not a certificate\n');
    writeFileSync(join(garbage, 'kubelet-client.crt'), 'junk');
    writeFileSync(join(garbage, 'kubelet-client.key'), first.keyPem);
    assert.equal(new CertificateStore(garbage, 'kubelet-client').current(), null);
    const keyOnly = tempDir();
    writeFileSync(join(keyOnly, 'kubelet-client-current.pem'), first.keyPem);
    assert.equal(new CertificateStore(keyOnly, 'kubelet-client').current(), null);
  });

  it('refuses to store a certificate without a key, leaving the current pair alone', () => {
    const dir = tempDir();
    const store = new CertificateStore(dir, 'kubelet-client');
    store.update(first.certPem, first.keyPem, issuedAt);
    assert.throws(() => store.update(second.certPem, 'no key here', new Date(issuedAt.getTime() + 60_000)));
    assert.equal(store.current()?.certPem.trim(), first.certPem.trim());
  });

  it('refuses a certificate whose key is not the one given, as tls.X509KeyPair does', () => {
    const dir = tempDir();
    const store = new CertificateStore(dir, 'kubelet-client');
    store.update(first.certPem, first.keyPem, issuedAt);
    assert.throws(() => store.update(second.certPem, first.keyPem, new Date(issuedAt.getTime() + 60_000)), /private key does not match public key/);
    assert.equal(store.current()?.certPem.trim(), first.certPem.trim());
  });
});

describe('parsePair', () => {
  it('takes the certificate and the key out of one combined text', () => {
    const combined = `${first.keyPem}\n${first.certPem}\n`;
    const pair = parsePair(combined, combined);
    assert.equal(pair.certPem.trim(), first.certPem.trim());
    assert.equal(pair.keyPem.trim(), first.keyPem.trim());
  });

  it('throws when either is missing', () => {
    assert.throws(() => parsePair(first.keyPem, first.keyPem), { message: 'no certificate and key in the files' });
    assert.throws(() => parsePair(first.certPem, first.certPem), { message: 'no certificate and key in the files' });
  });
});
