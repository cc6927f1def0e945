import { strict as assert } from 'node:assert';
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, it } from 'node:test';
import { alreadyExists, notFound } from '../../shared/api/errors.ts';
import { deepCopy, type KubeObject } from '../../shared/api/types.ts';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingApiClient, settle } from '../../shared/client/testing.ts';
import { x509 } from '../../shared/go/x509.ts';
import { createCA, issueClientCertificate } from '../../shared/pki/certificates.ts';
import {
  csrPath,
  digestedName,
  generatePrivateKeyPem,
  kubeletClientSigner,
  makeCertificateRequest,
  requestCertificate,
  waitForCertificate,
  type CertificateRequest,
} from './request.ts';

const gr = { group: 'certificates.k8s.io', resource: 'certificatesigningrequests' };
const nodeSubject = { commonName: 'system:node:x', organizations: ['system:nodes'] };
const usages = ['digital signature', 'key encipherment', 'client auth'];

interface Outcome<T> {
  done: boolean;
  value?: T;
  error?: unknown;
}

/** Follows a promise without leaving a rejection unhandled while the test moves the clock. */
function track<T>(promise: Promise<T>): Outcome<T> {
  const outcome: Outcome<T> = { done: false };
  promise.then(
    (value) => {
      outcome.done = true;
      outcome.value = value;
    },
    (error: unknown) => {
      outcome.done = true;
      outcome.error = error;
    },
  );
  return outcome;
}

function errorMessage(outcome: Outcome<unknown>): string {
  return outcome.error instanceof Error ? outcome.error.message : `no error (done: ${String(outcome.done)})`;
}

/** Unpadded base64url, written out rather than through Buffer's 'base64url' encoding. */
function rawUrlBase64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function spkiOf(keyPem: string): Buffer {
  return createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
}

function csrObject(name: string, uid: string, status: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name, uid }, spec: {}, status };
}

const approved = { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'approved' };

describe('generatePrivateKeyPem', () => {
  it('makes a SEC1 PEM ECDSA P-256 key', () => {
    const pem = generatePrivateKeyPem();
    assert.match(pem, /^-----BEGIN EC PRIVATE KEY-----\n/);
    assert.match(pem, /-----END EC PRIVATE KEY-----\n?$/);
    const key = createPrivateKey(pem);
    assert.equal(key.asymmetricKeyType, 'ec');
    assert.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.notEqual(generatePrivateKeyPem(), pem);
  });
});

describe('makeCertificateRequest', () => {
  it('makes a signed PKCS#10 request for the subject, organizations first, without SANs by default', async () => {
    const keyPem = generatePrivateKeyPem();
    const pem = await makeCertificateRequest(keyPem, nodeSubject);
    assert.match(pem, /^-----BEGIN CERTIFICATE REQUEST-----/);
    const request = new x509.Pkcs10CertificateRequest(pem);
    assert.equal(request.subject, 'O=system:nodes, CN=system:node:x');
    assert.ok(Buffer.from(request.publicKey.rawData).equals(spkiOf(keyPem)));
    assert.equal(await request.verify(), true);
    assert.equal(request.extensions.length, 0);
  });

  it('leaves the organization out when there is none', async () => {
    const request = new x509.Pkcs10CertificateRequest(await makeCertificateRequest(generatePrivateKeyPem(), { commonName: 'c', organizations: [] }));
    assert.equal(request.subject, 'CN=c');
  });

  it('carries DNS and IP subjectAltNames when asked', async () => {
    const pem = await makeCertificateRequest(generatePrivateKeyPem(), nodeSubject, { dnsNames: ['node-x.example'], ipAddresses: ['10.0.0.7', 'fd00::7'] });
    const request = new x509.Pkcs10CertificateRequest(pem);
    const raw = request.extensions.find((e) => e.type === '2.5.29.17');
    assert.ok(raw, 'no subjectAltName extension');
    assert.deepEqual(new x509.SubjectAlternativeNameExtension(raw.rawData).names.toJSON(), [
      { type: 'dns', value: 'node-x.example' },
      { type: 'ip', value: '10.0.0.7' },
      { type: 'ip', value: 'fd00::7' },
    ]);
  });
});

describe('digestedName', () => {
  const keyPem = generatePrivateKeyPem();

  it('is node-csr- and the unpadded base64url SHA-512/256 of the documented stream', () => {
    const name = digestedName(keyPem, nodeSubject, usages);
    assert.match(name, /^node-csr-[A-Za-z0-9_-]{43}$/);
    const stream = [spkiOf(keyPem), ...['system:node:x', 'system:nodes', ...usages].map((s) => Buffer.from(s))].map((b) => `${rawUrlBase64(b)}|`).join('');
    assert.equal(name, `node-csr-${rawUrlBase64(createHash('sha512-256').update(stream).digest())}`);
  });

  it('is stable for the same inputs and differs when the key, subject or usages differ', () => {
    const name = digestedName(keyPem, nodeSubject, usages);
    assert.equal(digestedName(keyPem, { commonName: 'system:node:x', organizations: ['system:nodes'] }, [...usages]), name);
    const others = [
      digestedName(generatePrivateKeyPem(), nodeSubject, usages),
      digestedName(keyPem, { ...nodeSubject, commonName: 'system:node:y' }, usages),
      digestedName(keyPem, { ...nodeSubject, organizations: ['system:masters'] }, usages),
      digestedName(keyPem, nodeSubject, ['digital signature', 'client auth']),
      // The delimiter keeps 'CN:foob, O:ar' apart from 'CN:foo, O:bar'.
      digestedName(keyPem, { commonName: 'system:node:xsystem:nodes', organizations: [] }, usages),
    ];
    for (const other of others) assert.notEqual(other, name);
    assert.equal(new Set(others).size, others.length);
  });
});

describe('requestCertificate', () => {
  it('creates a named request with the PEM base64-encoded, the signer and the usages', async () => {
    const keyPem = generatePrivateKeyPem();
    const requestPem = await makeCertificateRequest(keyPem, nodeSubject);
    const api = new RecordingApiClient();
    api.react((action) => (action.verb === 'create' ? { ...(action.body as KubeObject), metadata: { name: 'node-csr-abc', uid: 'uid-1' } } : undefined));
    const result = await requestCertificate(api, { name: 'node-csr-abc', requestPem, signerName: kubeletClientSigner, usages });
    assert.deepEqual(result, { name: 'node-csr-abc', uid: 'uid-1' });
    assert.deepEqual(api.writes(), [`CREATE ${csrPath}`]);
    assert.deepEqual(api.actions[0]?.body, {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'node-csr-abc' },
      spec: { request: Buffer.from(requestPem).toString('base64'), signerName: kubeletClientSigner, usages },
    });
  });

  it('asks for a generated name (csr-) when given none and returns the name the server chose', async () => {
    const requestPem = await makeCertificateRequest(generatePrivateKeyPem(), nodeSubject);
    const api = new RecordingApiClient();
    api.react((action) => {
      if (action.verb !== 'create') return undefined;
      const body = action.body as KubeObject;
      return { ...body, metadata: { name: `${body.metadata.generateName ?? ''}x7k2p`, uid: 'uid-2' } };
    });
    const result = await requestCertificate(api, { name: '', requestPem, signerName: kubeletClientSigner, usages });
    assert.deepEqual(result, { name: 'csr-x7k2p', uid: 'uid-2' });
    assert.deepEqual((api.actions[0]?.body as KubeObject).metadata, { generateName: 'csr-' });
  });

  it('does not look for an existing request when a generated name is refused', async () => {
    const requestPem = await makeCertificateRequest(generatePrivateKeyPem(), nodeSubject);
    const api = new RecordingApiClient();
    api.react((action) => {
      if (action.verb === 'create') throw alreadyExists(gr, 'csr-x');
      return undefined;
    });
    await assert.rejects(requestCertificate(api, { name: '', requestPem, signerName: kubeletClientSigner, usages }), { message: /already exists/ });
    assert.deepEqual(
      api.actions.map((a) => a.verb),
      ['create'],
    );
  });

  /** An API where `existing` already holds the name the request asks for. */
  function apiWithExisting(existing: KubeObject): RecordingApiClient {
    const api = new RecordingApiClient();
    api.react((action) => {
      if (action.verb === 'create') throw alreadyExists(gr, existing.metadata.name ?? '');
      if (action.verb === 'get' && action.path === `${csrPath}/${existing.metadata.name ?? ''}`) return deepCopy(existing);
      return undefined;
    });
    return api;
  }

  function existingFor(request: CertificateRequest, uid: string): KubeObject {
    return {
      ...csrObject(request.name, uid),
      spec: { request: Buffer.from(request.requestPem).toString('base64'), signerName: request.signerName, usages: [...request.usages] },
    };
  }

  it('reuses a compatible request found under the same name (a restart mid-bootstrap)', async () => {
    const keyPem = generatePrivateKeyPem();
    const request: CertificateRequest = {
      name: digestedName(keyPem, nodeSubject, usages),
      requestPem: await makeCertificateRequest(keyPem, nodeSubject),
      signerName: kubeletClientSigner,
      usages,
    };
    // A fresh request of the same key and subject (the signature differs) with the usages in another order.
    const earlier = existingFor({ ...request, requestPem: await makeCertificateRequest(keyPem, nodeSubject), usages: [...usages].reverse() }, 'uid-old');
    const api = apiWithExisting(earlier);
    assert.deepEqual(await requestCertificate(api, request), { name: request.name, uid: 'uid-old' });
    assert.deepEqual(
      api.actions.map((a) => `${a.verb} ${a.path}`),
      [`create ${csrPath}`, `get ${csrPath}/${request.name}`],
    );
  });

  it('refuses an existing request that asks for something else', async () => {
    const keyPem = generatePrivateKeyPem();
    const request: CertificateRequest = {
      name: 'node-csr-n',
      requestPem: await makeCertificateRequest(keyPem, nodeSubject),
      signerName: kubeletClientSigner,
      usages,
    };
    const cases: Array<[string, KubeObject]> = [
      [
        'csr subjects differ: new: O=system:nodes, CN=system:node:x, orig: O=system:nodes, CN=system:node:y',
        existingFor({ ...request, requestPem: await makeCertificateRequest(keyPem, { ...nodeSubject, commonName: 'system:node:y' }) }, 'u'),
      ],
      ['csr public keys differ', existingFor({ ...request, requestPem: await makeCertificateRequest(generatePrivateKeyPem(), nodeSubject) }, 'u')],
      [
        'csr signerNames differ: new kubernetes.io/kube-apiserver-client-kubelet, orig: kubernetes.io/kubelet-serving',
        existingFor({ ...request, signerName: 'kubernetes.io/kubelet-serving' }, 'u'),
      ],
      ['csr usages differ', existingFor({ ...request, usages: ['digital signature', 'client auth'] }, 'u')],
      ['csr usages differ', existingFor({ ...request, usages: [...usages, 'server auth'] }, 'u')],
      ['unable to parse existing request', { ...csrObject('node-csr-n', 'u'), spec: { request: 'bm90IGEgcmVxdWVzdA==' } }],
    ];
    for (const [problem, existing] of cases) {
      await assert.rejects(requestCertificate(apiWithExisting(existing), request), { message: `retrieved csr is not compatible: ${problem}` });
    }
  });

  it('passes other create errors on without reading', async () => {
    const requestPem = await makeCertificateRequest(generatePrivateKeyPem(), nodeSubject);
    const api = new RecordingApiClient();
    api.react((action) => {
      if (action.verb === 'create') throw new Error('connection refused');
      return undefined;
    });
    await assert.rejects(requestCertificate(api, { name: 'node-csr-n', requestPem, signerName: kubeletClientSigner, usages }), {
      message: 'connection refused',
    });
    assert.equal(api.actions.length, 1);
  });
});

describe('waitForCertificate', () => {
  const name = 'node-csr-w';
  const path = `${csrPath}/${name}`;

  /** An API serving the CSR as `current()` says at each GET, recording the clock at each. */
  function servingApi(clock: FakeClock, current: () => KubeObject | Error): { api: RecordingApiClient; gets: number[] } {
    const api = new RecordingApiClient();
    const gets: number[] = [];
    const start = clock.now();
    api.react((action) => {
      if (action.verb !== 'get' || action.path !== path) return undefined;
      gets.push(clock.now() - start);
      const answer = current();
      if (answer instanceof Error) throw answer;
      return deepCopy(answer);
    });
    return { api, gets };
  }

  async function stepUntil(clock: FakeClock, outcome: Outcome<unknown>, stepMs: number, limitMs: number): Promise<void> {
    await settle();
    for (let elapsed = 0; !outcome.done && elapsed < limitMs; elapsed += stepMs) {
      clock.step(stepMs);
      await settle();
    }
  }

  it('returns the decoded certificate once the request is approved and issued', async () => {
    const ca = await createCA();
    const { certPem } = await issueClientCertificate(ca, { commonName: 'system:node:x', organizations: ['system:nodes'] });
    const clock = new FakeClock();
    let state: KubeObject = csrObject(name, 'uid-1');
    const { api, gets } = servingApi(clock, () => state);
    const outcome = track(waitForCertificate(api, name, 'uid-1', { clock, signal: new AbortController().signal }));
    await settle();
    assert.equal(outcome.done, false);
    // Approved but not yet signed: still waiting.
    state = csrObject(name, 'uid-1', { conditions: [approved] });
    clock.step(250);
    await settle();
    assert.equal(outcome.done, false);
    // A certificate without approval is not taken either.
    state = csrObject(name, 'uid-1', { certificate: Buffer.from(certPem).toString('base64') });
    clock.step(500);
    await settle();
    assert.equal(outcome.done, false);
    state = csrObject(name, 'uid-1', { conditions: [approved], certificate: Buffer.from(certPem).toString('base64') });
    clock.step(1000);
    await settle();
    assert.deepEqual(outcome, { done: true, value: certPem });
    assert.deepEqual(gets, [0, 250, 750, 1750]);
  });

  it("fails with upstream's words when the request is denied or failed", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { type: 'Denied', status: 'True', reason: 'NotAllowed', message: 'no nodes today' },
        'certificate signing request is denied, reason: NotAllowed, message: no nodes today',
      ],
      [
        { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: 'bad key' },
        'certificate signing request failed, reason: SignerValidationFailure, message: bad key',
      ],
    ];
    for (const [condition, message] of cases) {
      const clock = new FakeClock();
      const { api } = servingApi(clock, () => csrObject(name, 'uid-1', { conditions: [approved, condition] }));
      await assert.rejects(waitForCertificate(api, name, 'uid-1', { clock, signal: new AbortController().signal }), { message });
    }
  });

  it('fails when the request was replaced (another UID) or deleted', async () => {
    const clock = new FakeClock();
    const replaced = servingApi(clock, () => csrObject(name, 'uid-2'));
    await assert.rejects(waitForCertificate(replaced.api, name, 'uid-1', { clock, signal: new AbortController().signal }), {
      message: `csr "${name}" changed UIDs`,
    });
    const deleted = servingApi(clock, () => notFound(gr, name));
    await assert.rejects(waitForCertificate(deleted.api, name, 'uid-1', { clock, signal: new AbortController().signal }), {
      message: `csr "${name}" was deleted before it was issued`,
    });
  });

  it('keeps waiting through other errors', async () => {
    const clock = new FakeClock();
    let answer: KubeObject | Error = new Error('connection refused');
    const { api, gets } = servingApi(clock, () => answer);
    const outcome = track(waitForCertificate(api, name, 'uid-1', { clock, signal: new AbortController().signal }));
    await settle();
    answer = csrObject(name, 'uid-1', { conditions: [approved], certificate: Buffer.from('PEM').toString('base64') });
    clock.step(250);
    await settle();
    assert.deepEqual(outcome, { done: true, value: 'PEM' });
    assert.deepEqual(gets, [0, 250]);
  });

  it('times out with wait.ErrWaitTimeout once the deadline has passed', async () => {
    const clock = new FakeClock();
    const { api, gets } = servingApi(clock, () => csrObject(name, 'uid-1'));
    const outcome = track(waitForCertificate(api, name, 'uid-1', { clock, signal: new AbortController().signal, timeoutMs: 1_000 }));
    await stepUntil(clock, outcome, 250, 10_000);
    assert.equal(errorMessage(outcome), 'timed out waiting for the condition');
    assert.deepEqual(gets, [0, 250, 750, 1750]);
  });

  it('looks less and less often, up to every maxPollMs (default 250 ms doubling to 5 s)', async () => {
    const clock = new FakeClock();
    const { api, gets } = servingApi(clock, () => csrObject(name, 'uid-1'));
    const controller = new AbortController();
    const outcome = track(waitForCertificate(api, name, 'uid-1', { clock, signal: controller.signal }));
    await stepUntil(clock, outcome, 250, 25_000);
    assert.equal(outcome.done, false);
    assert.deepEqual(gets, [0, 250, 750, 1750, 3750, 7750, 12750, 17750, 22750]);
    controller.abort();
    await settle();
    assert.equal(errorMessage(outcome), 'waiting for the certificate was cancelled');
  });

  it('honours pollMs and maxPollMs', async () => {
    const clock = new FakeClock();
    const { api, gets } = servingApi(clock, () => csrObject(name, 'uid-1'));
    const controller = new AbortController();
    const outcome = track(waitForCertificate(api, name, 'uid-1', { clock, signal: controller.signal, pollMs: 100, maxPollMs: 300 }));
    await stepUntil(clock, outcome, 100, 1_500);
    assert.deepEqual(gets, [0, 100, 300, 600, 900, 1200, 1500]);
    controller.abort();
    await settle();
    assert.equal(outcome.done, true);
  });
});
