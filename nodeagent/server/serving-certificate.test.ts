import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { FakeClock } from '../../shared/client/clock.ts';
import { pemBlocks } from '../../shared/go/pem.ts';
import { x509 } from '../../shared/go/x509.ts';
import { createCA, issueServingCertificate, subjectAltNames } from '../../shared/pki/certificates.ts';
import { ensureSelfSignedCertificate, FileServingCertificate } from './serving-certificate.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corral-serving-cert-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ensureSelfSignedCertificate', () => {
  it('makes kubelet.crt and kubelet.key in the cert dir once, then reuses them', async () => {
    const certDir = join(dir, 'pki');
    const now = new Date('2026-01-01T00:00:00Z');
    const made = await ensureSelfSignedCertificate({ certDir, hostname: 'host-a', alternateNames: ['node-a', '10.0.0.7'], now });
    assert.deepEqual(made, { certFile: join(certDir, 'kubelet.crt'), keyFile: join(certDir, 'kubelet.key'), created: true });
    const certPem = await readFile(made.certFile, 'utf8');
    const blocks = pemBlocks(Buffer.from(certPem));
    assert.equal(blocks.length, 2, 'the leaf, then its CA');
    const leaf = new x509.X509Certificate(certPem);
    const stamp = Math.floor(now.getTime() / 1000);
    assert.equal(leaf.subject, `CN=host-a@${stamp}`);
    assert.equal(leaf.issuer, `CN=host-a-ca@${stamp}`);
    assert.deepEqual(subjectAltNames(certPem), { dnsNames: ['host-a', 'node-a'], ipAddresses: ['10.0.0.7'] });
    assert.equal((await stat(made.keyFile)).mode & 0o777, 0o600);

    const again = await ensureSelfSignedCertificate({ certDir, hostname: 'host-a' });
    assert.equal(again.created, false);
    assert.equal(await readFile(made.certFile, 'utf8'), certPem);
  });

  it('refuses a certificate without its key', async () => {
    const certDir = join(dir, 'half');
    const made = await ensureSelfSignedCertificate({ certDir, hostname: 'h' });
    await rm(made.keyFile);
    await assert.rejects(ensureSelfSignedCertificate({ certDir, hostname: 'h' }), {
      message: `error reading ${made.keyFile}, certificate and key must be supplied as a pair`,
    });
  });
});

describe('FileServingCertificate', () => {
  it("refuses files that are not a pair, with Go's error", async () => {
    const ca = await createCA();
    const a = await issueServingCertificate(ca, { dnsNames: ['a'], ipAddresses: [] });
    const b = await issueServingCertificate(ca, { dnsNames: ['b'], ipAddresses: [] });
    await writeFile(join(dir, 'mismatch.crt'), a.certPem);
    await writeFile(join(dir, 'mismatch.key'), b.keyPem);
    await assert.rejects(FileServingCertificate.load(join(dir, 'mismatch.crt'), join(dir, 'mismatch.key')), /tls: private key does not match public key/);
  });

  it('re-reads the files on its interval and keeps the last good pair', async () => {
    const ca = await createCA();
    const first = await issueServingCertificate(ca, { dnsNames: ['first'], ipAddresses: [] });
    const second = await issueServingCertificate(ca, { dnsNames: ['second'], ipAddresses: [] });
    const certFile = join(dir, 'rotating.crt');
    const keyFile = join(dir, 'rotating.key');
    await writeFile(certFile, first.certPem);
    await writeFile(keyFile, first.keyPem);
    const clock = new FakeClock();
    const source = await FileServingCertificate.load(certFile, keyFile, { clock, reloadIntervalMs: 1000, logger: pino({ level: 'silent' }) });
    let changes = 0;
    source.onChange(() => changes++);

    clock.step(1000);
    await source.idle();
    assert.equal(changes, 0, 'unchanged files are no change');

    await writeFile(certFile, second.certPem);
    clock.step(1000);
    await source.idle();
    assert.equal(source.current().certPem, first.certPem, 'a certificate without its key is not taken');

    await writeFile(keyFile, second.keyPem);
    clock.step(1000);
    await source.idle();
    assert.equal(changes, 1);
    assert.equal(source.current().certPem, second.certPem);

    source.stop();
    assert.equal(clock.pending, 0);
  });
});
