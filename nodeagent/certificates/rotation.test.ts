import { strict as assert } from 'node:assert';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import type { KubeObject } from '../../shared/api/types.ts';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingApiClient, settle } from '../../shared/client/testing.ts';
import { x509 } from '../../shared/go/x509.ts';
import { certifyClientKey, createCA, publicKeyOfPrivateKeyPem, type CertificateAuthority } from '../../shared/pki/certificates.ts';
import { csrPath, kubeletServingSigner } from './request.ts';
import { CertificateRotator, rotationDeadline, type RotationOptions } from './rotation.ts';
import { CertificateStore, type StoredPair } from './store.ts';

const logger = pino({ level: 'silent' });
const hourMs = 3_600_000;
const subject = { commonName: 'system:node:n1', organizations: ['system:nodes'] };
const altNames = { dnsNames: ['n1'], ipAddresses: ['10.0.0.1'] };
const servingUsages = ['digital signature', 'server auth'];
const dirs: string[] = [];
let ca: CertificateAuthority;

before(async () => {
  ca = await createCA({ now: new Date('2025-01-01T00:00:00Z') });
});

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempStore(): CertificateStore {
  const dir = mkdtempSync(join(tmpdir(), 'corral-rotation-'));
  dirs.push(dir);
  return new CertificateStore(dir, 'kubelet-server');
}

/**
 * A CSR API that names generated requests csr-1, csr-2, ... and serves each one approved, with a
 * certificate for the posted request's public key valid for an hour from the clock's time of posting.
 */
function signingApi(clock: FakeClock): { api: RecordingApiClient; fail: (on: boolean) => void } {
  const api = new RecordingApiClient();
  const issued = new Map<string, Promise<KubeObject>>();
  let failing = false;
  api.react((action) => {
    if (failing) throw new Error('connection refused');
    if (action.verb === 'create' && action.path === csrPath) {
      const body = action.body as KubeObject;
      const name = body.metadata.name ?? `${body.metadata.generateName ?? ''}${issued.size + 1}`;
      const csr: KubeObject = { ...body, metadata: { name, uid: `uid-${name}` } };
      issued.set(name, approve(csr, clock.now()));
      return csr;
    }
    if (action.verb === 'get') return issued.get(action.path.slice(csrPath.length + 1));
    return undefined;
  });
  return { api, fail: (on) => void (failing = on) };
}

async function approve(csr: KubeObject, now: number): Promise<KubeObject> {
  const spec = csr['spec'] as { request: string };
  const request = new x509.Pkcs10CertificateRequest(Buffer.from(spec.request, 'base64').toString('utf8'));
  const certPem = await certifyClientKey(ca, new Uint8Array(request.publicKey.rawData), { ...subject, now: new Date(now), validityMs: hourMs });
  return { ...csr, status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: Buffer.from(certPem).toString('base64') } };
}

function rotatorOptions(overrides: Partial<RotationOptions> & Pick<RotationOptions, 'store' | 'clock' | 'api'>): RotationOptions {
  return {
    signerName: kubeletServingSigner,
    usages: servingUsages,
    template: () => ({ subject, altNames }),
    logger,
    signal: new AbortController().signal,
    rotated: () => undefined,
    ...overrides,
  };
}

/** Waits (on real time: key generation and signing run on libuv's thread pool) until `condition` holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  assert.ok(condition(), `never happened: ${what}`);
}

function creates(api: RecordingApiClient): number {
  return api.actions.filter((a) => a.verb === 'create').length;
}

describe('rotationDeadline', () => {
  it('falls between 70 % and 90 % of the lifetime', () => {
    const notBefore = Date.parse('2026-01-01T00:00:00Z');
    const notAfter = notBefore + 1000 * hourMs;
    assert.equal(rotationDeadline(notBefore, notAfter, 0), notBefore + 700 * hourMs);
    assert.equal(rotationDeadline(notBefore, notAfter, 0.5), notBefore + 800 * hourMs);
    const late = rotationDeadline(notBefore, notAfter, 0.999999);
    assert.ok(late < notBefore + 900 * hourMs && late > notBefore + 899.99 * hourMs, `deadline ${late - notBefore}`);
  });
});

describe('CertificateRotator.rotate', () => {
  it('posts a CSR with a generated name, waits for it, stores the new pair and reports it', async () => {
    const clock = new FakeClock();
    const store = tempStore();
    const { api } = signingApi(clock);
    const rotated: StoredPair[] = [];
    const rotator = new CertificateRotator(rotatorOptions({ store, clock, api: () => api, rotated: (pair) => rotated.push(pair) }));
    assert.equal(await rotator.rotate(), true);

    assert.deepEqual(
      api.actions.map((a) => `${a.verb} ${a.path}`),
      [`create ${csrPath}`, `get ${csrPath}/csr-1`],
    );
    const posted = api.actions[0]?.body as KubeObject;
    assert.deepEqual(posted.metadata, { generateName: 'csr-' });
    const spec = posted['spec'] as { request: string; signerName: string; usages: string[] };
    assert.equal(spec.signerName, kubeletServingSigner);
    assert.deepEqual(spec.usages, servingUsages);
    const request = new x509.Pkcs10CertificateRequest(Buffer.from(spec.request, 'base64').toString('utf8'));
    assert.equal(request.subject, 'O=system:nodes, CN=system:node:n1');
    assert.ok(request.extensions.some((e) => e.type === '2.5.29.17'));

    const current = store.current();
    assert.ok(current);
    assert.equal(rotated.length, 1);
    assert.deepEqual(rotated[0], current);
    // The new key is the one the certificate was issued for.
    const leaf = new X509Certificate(current.certPem);
    assert.ok(leaf.publicKey.export({ type: 'spki', format: 'der' }).equals(publicKeyOfPrivateKeyPem(current.keyPem)));
    assert.ok(Buffer.from(request.publicKey.rawData).equals(publicKeyOfPrivateKeyPem(current.keyPem)));
    assert.equal(current.notAfter, clock.now() + hourMs);
  });

  it('makes a new key each time', async () => {
    const clock = new FakeClock();
    const store = tempStore();
    const { api } = signingApi(clock);
    const rotator = new CertificateRotator(rotatorOptions({ store, clock, api: () => api }));
    await rotator.rotate();
    const firstKey = store.current()?.keyPem;
    clock.step(1000);
    await rotator.rotate();
    assert.notEqual(store.current()?.keyPem, firstKey);
  });

  it('does nothing and returns false while the template is not known', async () => {
    const clock = new FakeClock();
    const store = tempStore();
    const { api } = signingApi(clock);
    let rotated = 0;
    const rotator = new CertificateRotator(rotatorOptions({ store, clock, api: () => api, template: () => null, rotated: () => rotated++ }));
    assert.equal(await rotator.rotate(), false);
    assert.equal(api.actions.length, 0);
    assert.equal(store.current(), null);
    assert.equal(rotated, 0);
  });
});

describe('CertificateRotator.run', () => {
  it('requests a missing pair at once, then renews at the deadline drawn from the lifetime', async () => {
    const clock = new FakeClock();
    const store = tempStore();
    const { api } = signingApi(clock);
    const controller = new AbortController();
    let rotated = 0;
    const rotator = new CertificateRotator(
      rotatorOptions({ store, clock, api: () => api, signal: controller.signal, random: () => 0, rotated: () => rotated++ }),
    );
    const done = rotator.run();
    await until(() => rotated === 1 && clock.pending === 1, 'the first pair is stored and the rotator sleeps');
    assert.equal(creates(api), 1);
    // Valid from 5 minutes ago for an hour: 65 minutes, renewed at 70 % of them, 40.5 minutes from now.
    clock.step(40 * 60_000);
    await settle();
    assert.equal(creates(api), 1);
    clock.step(60_000);
    await until(() => rotated === 2, 'the pair is renewed');
    assert.equal(creates(api), 2);
    assert.equal(store.current()?.notAfter, clock.now() + hourMs);
    controller.abort();
    await done;
  });

  it('retries a failed renewal after 2 s, doubling', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const store = tempStore();
    const { api, fail } = signingApi(clock);
    const attempts: number[] = [];
    api.react((action) => {
      if (action.verb === 'create') attempts.push(clock.now() - start);
      return undefined;
    });
    fail(true);
    const controller = new AbortController();
    let rotated = 0;
    const done = new CertificateRotator(rotatorOptions({ store, clock, api: () => api, signal: controller.signal, rotated: () => rotated++ })).run();
    for (let i = 0; i < 14; i++) {
      // Each attempt makes a key and a request first; move time only while the rotator sleeps.
      await until(() => clock.pending === 1, 'the rotator sleeps');
      clock.step(1000);
    }
    await until(() => clock.pending === 1, 'the rotator sleeps');
    assert.deepEqual(attempts, [0, 2000, 6000, 14000]);
    fail(false);
    clock.step(16_000);
    await until(() => rotated === 1, 'the pair is stored');
    assert.deepEqual(attempts, [0, 2000, 6000, 14000, 30000]);
    assert.ok(store.current());
    controller.abort();
    await done;
  });
});
