import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { subjectAltNames } from '../../shared/pki/certificates.ts';
import { ensurePki, pkiPaths, writeAdminKubeconfig, type PkiPaths } from './pki-setup.ts';

const moduleUrl = pathToFileURL(fileURLToPath(new URL('./pki-setup.ts', import.meta.url))).href;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'corral-pki-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function read(path: string): string {
  return readFileSync(path, 'utf8');
}

interface Snapshot {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
}

function snapshot(paths: PkiPaths): Snapshot {
  return {
    caCert: read(paths.caCert),
    caKey: read(paths.caKey),
    servingCert: read(paths.servingCert),
    servingKey: read(paths.servingKey),
    adminCert: read(paths.adminCert),
    adminKey: read(paths.adminKey),
  };
}

function assertConsistent(paths: PkiPaths): void {
  const ca = new X509Certificate(read(paths.caCert));
  for (const [certPath, keyPath] of [
    [paths.servingCert, paths.servingKey],
    [paths.adminCert, paths.adminKey],
    [paths.controllerManagerCert, paths.controllerManagerKey],
  ] as const) {
    const cert = new X509Certificate(read(certPath));
    assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), `${certPath} is not signed by the CA`);
    assert.ok(cert.checkPrivateKey(createPrivateKey(read(keyPath))), `${keyPath} does not match ${certPath}`);
  }
}

/** Files other than the PKI itself: temporaries or locks left behind. */
function leftovers(paths: PkiPaths): string[] {
  const expected = new Set([
    'ca.crt',
    'ca.key',
    'apiserver.crt',
    'apiserver.key',
    'admin.crt',
    'admin.key',
    'controller-manager.crt',
    'controller-manager.key',
    '.ready',
  ]);
  return readdirSync(paths.dir).filter((f) => !expected.has(f));
}

describe('ensurePki', () => {
  it('creates the CA, serving and admin certificates on first start', async (t) => {
    const dataDir = tempDir(t);
    const paths = await ensurePki(dataDir, { tlsSans: ['api.example.com', '10.0.0.10', '2001:db8::10'], hostname: 'node-a' });
    assert.deepEqual(paths, pkiPaths(dataDir));
    assert.equal(paths.dir, join(dataDir, 'pki'));
    assertConsistent(paths);

    const ca = new X509Certificate(read(paths.caCert));
    assert.equal(ca.subject, 'CN=corral-ca');
    assert.equal(ca.ca, true);

    const sans = subjectAltNames(read(paths.servingCert));
    for (const dns of ['localhost', 'node-a', 'api.example.com', 'kubernetes.default.svc']) assert.ok(sans.dnsNames.includes(dns), dns);
    for (const ip of ['127.0.0.1', '::1', '10.0.0.10', '2001:db8::10']) assert.ok(sans.ipAddresses.includes(ip), ip);
    assert.ok(!sans.dnsNames.includes('10.0.0.10'));

    const admin = new X509Certificate(read(paths.adminCert));
    assert.equal(admin.subject, 'O=system:masters\nCN=kubernetes-admin');
    assert.deepEqual(admin.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    // The controller manager's own identity: bound by the default policy, outside system:masters.
    assert.equal(new X509Certificate(read(paths.controllerManagerCert)).subject, 'CN=system:kube-controller-manager');

    for (const key of [paths.caKey, paths.servingKey, paths.adminKey, paths.controllerManagerKey]) assert.equal(statSync(key).mode & 0o777, 0o600, key);
    assert.deepEqual(leftovers(paths), []);
  });

  it('resumes the same PKI on a later start without rewriting anything', async (t) => {
    const dataDir = tempDir(t);
    const paths = await ensurePki(dataDir, { tlsSans: ['a.example'], hostname: 'h' });
    const before = snapshot(paths);
    const mtime = statSync(paths.servingCert).mtimeMs;
    await ensurePki(dataDir, { tlsSans: ['a.example'], hostname: 'h' });
    assert.deepEqual(snapshot(paths), before);
    assert.equal(statSync(paths.servingCert).mtimeMs, mtime);
  });

  it('re-issues only the serving certificate, with the same key and CA, when new SANs are asked for', async (t) => {
    const dataDir = tempDir(t);
    const paths = await ensurePki(dataDir, { tlsSans: ['first.example', '10.1.1.1'], hostname: 'h' });
    const before = snapshot(paths);
    await ensurePki(dataDir, { tlsSans: ['second.example', '10.2.2.2'], hostname: 'h' });
    const after = snapshot(paths);
    assert.equal(after.caCert, before.caCert);
    assert.equal(after.caKey, before.caKey);
    assert.equal(after.servingKey, before.servingKey);
    assert.equal(after.adminCert, before.adminCert);
    assert.notEqual(after.servingCert, before.servingCert);
    const sans = subjectAltNames(after.servingCert);
    for (const dns of ['first.example', 'second.example']) assert.ok(sans.dnsNames.includes(dns), dns);
    for (const ip of ['10.1.1.1', '10.2.2.2']) assert.ok(sans.ipAddresses.includes(ip), ip);
    assertConsistent(paths);
  });

  it('generates exactly once for concurrent callers in one process', async (t) => {
    const dataDir = tempDir(t);
    const results = await Promise.all([1, 2, 3, 4].map(() => ensurePki(dataDir, { tlsSans: ['x.example'], hostname: 'h' })));
    for (const r of results) assert.deepEqual(r, results[0]);
    assertConsistent(results[0]!);
    assert.deepEqual(leftovers(results[0]!), []);
  });

  it('generates exactly once for API server processes starting together', async (t) => {
    const dataDir = tempDir(t);
    const code = `
      const { createHash } = await import('node:crypto');
      const { readFileSync } = await import('node:fs');
      const { ensurePki } = await import(${JSON.stringify(moduleUrl)});
      const paths = await ensurePki(${JSON.stringify(dataDir)}, { tlsSans: ['proc.example'], hostname: 'h' });
      const digest = (p) => createHash('sha256').update(readFileSync(p)).digest('hex');
      console.log(JSON.stringify({ ca: digest(paths.caCert), serving: digest(paths.servingCert), admin: digest(paths.adminCert) }));
    `;
    const runs = await Promise.all([1, 2, 3].map(() => runNode(code)));
    const digests = runs.map((out) => JSON.parse(out.trim()) as Record<string, string>);
    for (const d of digests) assert.deepEqual(d, digests[0]);
    const paths = pkiPaths(dataDir);
    assert.equal(digests[0]!['ca'], createHash('sha256').update(readFileSync(paths.caCert)).digest('hex'));
    assertConsistent(paths);
    assert.deepEqual(leftovers(paths), []);
  });

  it('takes over a stale lock left by a crashed process', async (t) => {
    const dataDir = tempDir(t);
    const paths = pkiPaths(dataDir);
    await ensurePki(dataDir, { tlsSans: [], hostname: 'h' });
    rmSync(paths.dir, { recursive: true });
    // A generator died: its lock and a CA key without certificate are left, no marker.
    mkdirSync(paths.dir);
    writeFileSync(join(paths.dir, '.lock'), '999999@elsewhere\n');
    writeFileSync(paths.caKey, 'garbage');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(paths.dir, '.lock'), old, old);

    const started = Date.now();
    await ensurePki(dataDir, { tlsSans: [], hostname: 'h', staleLockMs: 30_000 });
    assert.ok(Date.now() - started < 5_000);
    assertConsistent(paths);
    assert.deepEqual(leftovers(paths), []);
  });

  it('waits for a live lock holder and fails after the deadline', async (t) => {
    const dataDir = tempDir(t);
    const paths = pkiPaths(dataDir);
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(join(paths.dir, '.lock'), 'someone\n');
    await assert.rejects(
      ensurePki(dataDir, { tlsSans: [], hostname: 'h', lockTimeoutMs: 300 }),
      /^Error: timed out after 300ms waiting for another process to create the PKI in /,
    );
    assert.ok(!existsSync(paths.caCert));

    // Once the holder goes away, a waiter proceeds.
    const waiting = ensurePki(dataDir, { tlsSans: [], hostname: 'h', lockTimeoutMs: 10_000 });
    setTimeout(() => unlinkSync(join(paths.dir, '.lock')), 200);
    await waiting;
    assertConsistent(paths);
  });

  it('refuses to replace a CA that went missing after generation', async (t) => {
    const dataDir = tempDir(t);
    const paths = await ensurePki(dataDir, { tlsSans: [], hostname: 'h' });
    rmSync(paths.caCert);
    await assert.rejects(ensurePki(dataDir, { tlsSans: [], hostname: 'h' }), /PKI in .* is incomplete: .*ca\.crt is missing/);
  });

  it('reuses an operator-provided CA pair', async (t) => {
    const source = tempDir(t);
    const first = await ensurePki(source, { tlsSans: [], hostname: 'h' });
    const dataDir = tempDir(t);
    mkdirSync(join(dataDir, 'pki'));
    copyFileSync(first.caCert, join(dataDir, 'pki', 'ca.crt'));
    copyFileSync(first.caKey, join(dataDir, 'pki', 'ca.key'));
    const paths = await ensurePki(dataDir, { tlsSans: [], hostname: 'h' });
    assert.equal(read(paths.caCert), read(first.caCert));
    assertConsistent(paths);
  });
});

describe('writeAdminKubeconfig', () => {
  it('writes a kubeconfig whose credentials pass mutual TLS against the serving certificate', async (t) => {
    const dataDir = tempDir(t);
    const paths = await ensurePki(dataDir, { tlsSans: [], hostname: 'h' });
    const server = createServer({
      cert: read(paths.servingCert),
      key: read(paths.servingKey),
      ca: read(paths.caCert),
      requestCert: true,
      rejectUnauthorized: true,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const port = (server.address() as { port: number }).port;

    const file = writeAdminKubeconfig(dataDir, `https://127.0.0.1:${port}`, paths);
    assert.equal(file, join(dataDir, 'admin.kubeconfig'));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const doc = parse(read(file));
    assert.equal(doc['current-context'], 'corral');
    const cluster = doc.clusters[0].cluster;
    const user = doc.users[0].user;
    assert.equal(cluster.server, `https://127.0.0.1:${port}`);
    assert.equal(Buffer.from(cluster['certificate-authority-data'], 'base64').toString(), read(paths.caCert));

    for (const servername of ['localhost', 'h', 'kubernetes.default']) {
      const peer = await new Promise<string>((resolve, reject) => {
        const socket = connect({
          host: '127.0.0.1',
          port,
          servername,
          ca: Buffer.from(cluster['certificate-authority-data'], 'base64'),
          cert: Buffer.from(user['client-certificate-data'], 'base64'),
          key: Buffer.from(user['client-key-data'], 'base64'),
        });
        socket.once('secureConnect', () => {
          resolve(String(socket.getPeerCertificate().subject.CN));
          socket.end();
        });
        socket.once('error', reject);
      });
      assert.equal(peer, 'kube-apiserver');
    }
    assert.deepEqual(readdirSync(dataDir).sort(), ['admin.kubeconfig', 'pki']);
  });
});

function runNode(code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (status) => (status === 0 ? resolve(stdout) : reject(new Error(`child exited ${status}: ${stderr}`))));
  });
}
