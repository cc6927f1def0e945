import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { webcrypto } from 'node:crypto';
import { conflict } from '../../shared/api/errors.ts';
import { formatTimeOf } from '../../shared/go/time.ts';
import { x509 } from '../../shared/go/x509.ts';
import { createCA, EXT_KEY_USAGE, KeyUsage } from '../../shared/pki/certificates.ts';
import { waitFor } from '../../apiserver/testing/wait-for.ts';
import type { ControllerManagerConfig } from '../config.ts';
import { testContext, type TestContext } from '../framework/testing.ts';
import type { CertificateSigningRequest } from './csr.ts';
import { RECHECK_MS } from './signing-ca.ts';
import { CSRSigner, csrSigningController } from './signer.ts';
import { approvedCondition, caFiles, certificateRequest, clusterSigningFlags, csrObject, managerConfig, type CAFiles } from './testing.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const statusPath = (name: string): string => `/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}/status`;

let files: CAFiles;
before(async () => {
  files = await caFiles();
});
after(() => files.remove());

interface Fixture {
  ctx: TestContext<ControllerManagerConfig>;
  signer: CSRSigner;
  add: (csr: CertificateSigningRequest) => void;
}

function fixture(flags: Record<string, string> = clusterSigningFlags(files)): Fixture {
  const ctx = testContext(managerConfig(flags));
  const informer = ctx.informers.of<CertificateSigningRequest>('certificatesigningrequests');
  return { ctx, signer: new CSRSigner(ctx, informer), add: (csr) => informer.set(csr) };
}

/** The body of the one status write. */
function writtenStatus(ctx: TestContext<unknown>): CertificateSigningRequest {
  const writes = ctx.api.actions.filter((a) => a.verb === 'update');
  assert.equal(writes.length, 1);
  return writes[0]?.body as CertificateSigningRequest;
}

function issuedCertificate(ctx: TestContext<unknown>): x509.X509Certificate {
  const pem = Buffer.from(writtenStatus(ctx).status?.certificate ?? '', 'base64').toString();
  assert.match(pem, /^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n$/);
  return new x509.X509Certificate(pem);
}

/** The extended key usage OIDs of `cert`, in order. */
const ekus = (cert: x509.X509Certificate): string[] => [...(cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [])].map(String);

function failedCondition(ctx: TestContext<unknown>): unknown {
  const conditions = writtenStatus(ctx).status?.conditions ?? [];
  assert.equal(writtenStatus(ctx).status?.certificate, undefined);
  return conditions.find((c) => c.type === 'Failed');
}

describe('csrsigning', () => {
  it('signs an approved kube-apiserver-client request: subject, key, usages, not a CA, backdated validity, written through status', async () => {
    const { ctx, signer, add } = fixture();
    const request = await certificateRequest({ subject: 'CN=alice,O=dev,O=ops' });
    add(csrObject('a', { request, usages: ['digital signature', 'client auth'], conditions: [approvedCondition()] }));
    await signer.reconcile('a');

    assert.deepEqual(ctx.api.writes(), [`UPDATE ${statusPath('a')}`]);
    const body = writtenStatus(ctx);
    assert.equal(body.metadata.resourceVersion, '10', 'the write carries the version read, so a stale cache meets a Conflict');
    assert.deepEqual(body.status?.conditions, [approvedCondition()]);
    const cert = issuedCertificate(ctx);
    // Go's pkix.Name order: organizations (one RDN) before the common name.
    assert.deepEqual(cert.subjectName.toJSON(), [{ O: ['dev', 'ops'] }, { CN: ['alice'] }]);
    assert.equal(cert.issuer, files.ca.cert.subject);
    assert.ok(await cert.verify({ publicKey: files.ca.cert.publicKey, signatureOnly: true }, webcrypto));
    const requested = new x509.Pkcs10CertificateRequest(Buffer.from(Buffer.from(request, 'base64').toString()).toString());
    assert.deepEqual(Buffer.from(cert.publicKey.rawData), Buffer.from(requested.publicKey.rawData));
    assert.equal(cert.getExtension(x509.BasicConstraintsExtension)?.ca, false);
    assert.equal(cert.getExtension(x509.KeyUsagesExtension)?.usages, KeyUsage.digitalSignature);
    assert.deepEqual(ekus(cert), [EXT_KEY_USAGE.clientAuth]);
    assert.equal(cert.getExtension(x509.SubjectAlternativeNameExtension), null);
    // The default --cluster-signing-duration (a year) is long-lived: both ends backdated by 5 minutes.
    const now = ctx.clock.now();
    assert.equal(cert.notBefore.getTime(), now - 5 * MINUTE);
    assert.equal(cert.notAfter.getTime(), now + 8760 * HOUR - 5 * MINUTE);
  });

  it('signs RSA requests, with key encipherment when asked', async () => {
    const { ctx, signer, add } = fixture();
    add(
      csrObject('rsa', {
        request: await certificateRequest({ subject: 'CN=bob', key: 'rsa' }),
        usages: ['key encipherment', 'digital signature', 'client auth'],
        conditions: [approvedCondition()],
      }),
    );
    await signer.reconcile('rsa');
    const cert = issuedCertificate(ctx);
    assert.equal(cert.publicKey.algorithm.name, 'RSASSA-PKCS1-v1_5');
    assert.equal(cert.getExtension(x509.KeyUsagesExtension)?.usages, KeyUsage.digitalSignature | KeyUsage.keyEncipherment);
  });

  it('gives kubelet-serving certificates the requested DNS and IP names', async () => {
    const { ctx, signer, add } = fixture();
    add(
      csrObject('serving', {
        request: await certificateRequest({ subject: 'O=system:nodes,CN=system:node:n1', dnsNames: ['n1.example'], ipAddresses: ['10.0.0.1', '2001:DB8::1'] }),
        signerName: 'kubernetes.io/kubelet-serving',
        usages: ['digital signature', 'server auth'],
        username: 'system:node:n1',
        conditions: [approvedCondition()],
      }),
    );
    await signer.reconcile('serving');
    const cert = issuedCertificate(ctx);
    assert.deepEqual(cert.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON(), [
      { type: 'dns', value: 'n1.example' },
      { type: 'ip', value: '10.0.0.1' },
      { type: 'ip', value: '2001:db8::1' },
    ]);
    assert.deepEqual(ekus(cert), [EXT_KEY_USAGE.serverAuth]);
  });

  it('never issues a CA, whatever the request asks; extended usages come in Go order', async () => {
    const { ctx, signer, add } = fixture();
    add(
      csrObject('ca', {
        request: await certificateRequest({ subject: 'CN=sneaky', extensions: [new x509.BasicConstraintsExtension(true, 3, true)] }),
        signerName: 'kubernetes.io/legacy-unknown',
        usages: ['cert sign', 'client auth', 'server auth', 'any'],
        conditions: [approvedCondition()],
      }),
    );
    await signer.reconcile('ca');
    const cert = issuedCertificate(ctx);
    const constraints = cert.getExtension(x509.BasicConstraintsExtension);
    assert.equal(constraints?.ca, false);
    assert.equal(constraints?.pathLength, undefined);
    assert.deepEqual(ekus(cert), [EXT_KEY_USAGE.any, EXT_KEY_USAGE.serverAuth, EXT_KEY_USAGE.clientAuth]);
  });

  describe('validity', () => {
    const issueWith = async (flags: Record<string, string>, expirationSeconds?: number): Promise<{ notBefore: number; notAfter: number; now: number }> => {
      const { ctx, signer, add } = fixture(flags);
      add(csrObject('v', { request: await certificateRequest(), conditions: [approvedCondition()], ...(expirationSeconds ? { expirationSeconds } : {}) }));
      await signer.reconcile('v');
      const cert = issuedCertificate(ctx);
      return { notBefore: cert.notBefore.getTime(), notAfter: cert.notAfter.getTime(), now: ctx.clock.now() };
    };

    it('spec.expirationSeconds shortens it; under 8 hours the end is not backdated', async () => {
      const { notBefore, notAfter, now } = await issueWith(clusterSigningFlags(files), 3600);
      assert.equal(notBefore, now - 5 * MINUTE);
      assert.equal(notAfter, now + HOUR);
    });

    it('a long spec.expirationSeconds is backdated at the end too', async () => {
      const { notAfter, now } = await issueWith(clusterSigningFlags(files), 24 * 3600);
      assert.equal(notAfter, now + 24 * HOUR - 5 * MINUTE);
    });

    it('never longer than --cluster-signing-duration', async () => {
      const { notAfter, now } = await issueWith({ ...clusterSigningFlags(files), 'cluster-signing-duration': '2h' }, 30 * 24 * 3600);
      assert.equal(notAfter, now + 2 * HOUR);
    });

    it('never beyond the CA', async () => {
      const shortCA = await caFiles({ now: new Date(Date.parse('2025-12-01T00:00:00Z')), validityMs: 45 * 24 * HOUR });
      try {
        const { notAfter } = await issueWith(clusterSigningFlags(shortCA));
        assert.equal(notAfter, shortCA.ca.cert.notAfter.getTime());
      } finally {
        shortCA.remove();
      }
    });

    it('an expired CA signs nothing and the attempt is retried', async () => {
      const expired = await caFiles({ now: new Date(Date.parse('2025-01-01T00:00:00Z')), validityMs: 24 * HOUR });
      try {
        const { ctx, signer, add } = fixture(clusterSigningFlags(expired));
        add(csrObject('late', { request: await certificateRequest(), conditions: [approvedCondition()] }));
        await assert.rejects(signer.reconcile('late'), { message: 'error auto signing csr: the signer has expired: NotAfter=2025-01-02 00:00:00 +0000 UTC' });
        assert.deepEqual(ctx.api.writes(), []);
      } finally {
        expired.remove();
      }
    });
  });

  describe('refusals get a Failed condition with reason SignerValidationFailure', () => {
    const cases: { name: string; signerName: string; subject?: string; dnsNames?: string[]; usages: string[]; message: string }[] = [
      {
        name: 'a server usage for an API client',
        signerName: 'kubernetes.io/kube-apiserver-client',
        usages: ['client auth', 'server auth'],
        message: 'invalid usage for client certificate: server auth',
      },
      {
        name: 'an API client without client auth',
        signerName: 'kubernetes.io/kube-apiserver-client',
        usages: ['digital signature'],
        message: 'missing required usage for client certificate: client auth',
      },
      {
        name: 'a kubelet client outside system:nodes',
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
        subject: 'O=system:masters,CN=system:node:n1',
        usages: ['digital signature', 'client auth'],
        message: 'subject organization is not system:nodes',
      },
      {
        name: 'a kubelet client with a DNS name',
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
        subject: 'O=system:nodes,CN=system:node:n1',
        dnsNames: ['n1'],
        usages: ['digital signature', 'client auth'],
        message: 'DNS subjectAltNames are not allowed',
      },
      {
        name: 'a kubelet client for a non-node',
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
        subject: 'O=system:nodes,CN=alice',
        usages: ['digital signature', 'client auth'],
        message: 'subject common name does not begin with system:node:',
      },
      {
        name: 'a kubelet serving certificate without names',
        signerName: 'kubernetes.io/kubelet-serving',
        subject: 'O=system:nodes,CN=system:node:n1',
        usages: ['digital signature', 'server auth'],
        message: 'DNS or IP subjectAltName is required',
      },
      {
        name: 'a kubelet serving certificate for client auth',
        signerName: 'kubernetes.io/kubelet-serving',
        subject: 'O=system:nodes,CN=system:node:n1',
        dnsNames: ['n1'],
        usages: ['digital signature', 'client auth'],
        message: 'usages did not match [digital signature key encipherment server auth]',
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const { ctx, signer, add } = fixture();
        const request = await certificateRequest({ subject: c.subject ?? 'CN=alice', ...(c.dnsNames ? { dnsNames: c.dnsNames } : {}) });
        add(csrObject('bad', { request, signerName: c.signerName, usages: c.usages, conditions: [approvedCondition()] }));
        await signer.reconcile('bad');
        assert.deepEqual(ctx.api.writes(), [`UPDATE ${statusPath('bad')}`]);
        assert.deepEqual(failedCondition(ctx), {
          type: 'Failed',
          status: 'True',
          reason: 'SignerValidationFailure',
          message: c.message,
          lastUpdateTime: formatTimeOf(new Date(ctx.clock.now())),
        });
      });
    }

    it('a request that is no PKCS#10 at all', async () => {
      const { ctx, signer, add } = fixture();
      add(
        csrObject('garbage', {
          request: Buffer.from('-----BEGIN GARBAGE-----\nAAAA\n-----END GARBAGE-----\n').toString('base64'),
          conditions: [approvedCondition()],
        }),
      );
      await signer.reconcile('garbage');
      assert.deepEqual(ctx.api.writes(), [`UPDATE ${statusPath('garbage')}`]);
      assert.equal((failedCondition(ctx) as { message: string }).message, 'unable to parse csr "garbage": PEM block type must be CERTIFICATE REQUEST');
    });

    it('a request whose signature does not verify', async () => {
      const { ctx, signer, add } = fixture();
      const pem = Buffer.from(await certificateRequest(), 'base64').toString();
      const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s/g, ''), 'base64');
      der[der.length - 5] = (der[der.length - 5] ?? 0) ^ 0xff;
      const broken = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
      add(csrObject('tampered', { request: Buffer.from(broken).toString('base64'), conditions: [approvedCondition()] }));
      await signer.reconcile('tampered');
      assert.match((failedCondition(ctx) as { message: string }).message, /^unable to parse csr "tampered": (x509: ECDSA verification failure|asn1: .*)$/);
    });
  });

  describe('leaves alone', () => {
    const cases: { name: string; csr: () => Promise<CertificateSigningRequest> }[] = [
      { name: 'a pending request', csr: async () => csrObject('x', { request: await certificateRequest() }) },
      {
        name: 'a denied request',
        csr: async () => csrObject('x', { request: await certificateRequest(), conditions: [{ type: 'Denied', status: 'True', reason: 'No' }] }),
      },
      {
        name: 'an approved request also denied',
        csr: async () => csrObject('x', { request: await certificateRequest(), conditions: [approvedCondition(), { type: 'Denied', status: 'True' }] }),
      },
      {
        name: 'a failed request',
        csr: async () => csrObject('x', { request: await certificateRequest(), conditions: [approvedCondition(), { type: 'Failed', status: 'True' }] }),
      },
      {
        name: 'an issued request',
        csr: async () => csrObject('x', { request: await certificateRequest(), conditions: [approvedCondition()], certificate: files.ca.certPem }),
      },
      {
        name: "another signer's request",
        csr: async () => csrObject('x', { request: await certificateRequest(), signerName: 'example.com/mine', conditions: [approvedCondition()] }),
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const { ctx, signer, add } = fixture();
        add(await c.csr());
        await signer.reconcile('x');
        assert.deepEqual(ctx.api.actions, []);
      });
    }

    it('requests of signers without CA files', async () => {
      const { ctx, signer, add } = fixture({
        'cluster-signing-kubelet-serving-cert-file': files.certFile,
        'cluster-signing-kubelet-serving-key-file': files.keyFile,
      });
      add(csrObject('x', { request: await certificateRequest(), conditions: [approvedCondition()] }));
      await signer.reconcile('x');
      assert.deepEqual(ctx.api.actions, []);
    });

    it('a request deleted since it was queued', async () => {
      const { ctx, signer } = fixture();
      await signer.reconcile('gone');
      assert.deepEqual(ctx.api.actions, []);
    });
  });

  it('signs a version once: the cache still holding the version written from is not signed again', async () => {
    const { ctx, signer, add } = fixture();
    const csr = csrObject('once', { request: await certificateRequest(), conditions: [approvedCondition()] });
    add(csr);
    await signer.reconcile('once');
    await signer.reconcile('once');
    assert.equal(ctx.api.writes().length, 1);
    // A newer version without a certificate (e.g. the write was lost) is signed again.
    add({ ...csr, metadata: { ...csr.metadata, resourceVersion: '11' } });
    await signer.reconcile('once');
    assert.equal(ctx.api.writes().length, 2);
  });

  it('a conflicting write fails the attempt, to be retried', async () => {
    const { ctx, signer, add } = fixture();
    ctx.api.react((action) => {
      if (action.verb === 'update')
        throw conflict({ group: 'certificates.k8s.io', resource: 'certificatesigningrequests' }, 'c', 'the object has been modified');
      return undefined;
    });
    add(csrObject('c', { request: await certificateRequest(), conditions: [approvedCondition()] }));
    await assert.rejects(signer.reconcile('c'), /^Error: error updating signature for csr: /);
  });

  it('reloads the CA when its files change', async () => {
    const rotating = await caFiles();
    try {
      const { ctx, signer, add } = fixture(clusterSigningFlags(rotating));
      add(csrObject('first', { request: await certificateRequest(), conditions: [approvedCondition()] }));
      await signer.reconcile('first');
      const next = await createCA({ commonName: 'next-ca' });
      writeFileSync(rotating.certFile, next.certPem);
      writeFileSync(rotating.keyFile, next.keyPem);
      ctx.clock.step(RECHECK_MS);
      add(csrObject('second', { request: await certificateRequest(), conditions: [approvedCondition()] }));
      await signer.reconcile('second');
      const issuers = ctx.api.actions.map((a) => {
        const pem = Buffer.from((a.body as CertificateSigningRequest).status?.certificate ?? '', 'base64').toString();
        return new x509.X509Certificate(pem).issuer;
      });
      assert.deepEqual(issuers, ['CN=corral-ca', 'CN=next-ca']);
    } finally {
      rotating.remove();
    }
  });

  it('CA files that do not load fail the attempt with a message naming them', async () => {
    const { ctx, signer, add } = fixture({ 'cluster-signing-cert-file': '/nonexistent/ca.crt', 'cluster-signing-key-file': '/nonexistent/ca.key' });
    add(csrObject('x', { request: await certificateRequest(), conditions: [approvedCondition()] }));
    await assert.rejects(
      signer.reconcile('x'),
      /^Error: error auto signing csr: unable to load the CA of signer kubernetes.io\/kube-apiserver-client from \/nonexistent\/ca.crt and \/nonexistent\/ca.key: ENOENT/,
    );
    assert.deepEqual(ctx.api.writes(), []);
  });

  it('runs as a controller: requests in the cache and arriving later are signed by its workers', async () => {
    const ctx = testContext(managerConfig(clusterSigningFlags(files)));
    const informer = ctx.informers.of<CertificateSigningRequest>('certificatesigningrequests');
    informer.set(csrObject('early', { request: await certificateRequest(), conditions: [approvedCondition()] }));
    await csrSigningController.start(ctx);
    informer.set(csrObject('late', { request: await certificateRequest(), conditions: [approvedCondition()] }));
    await waitFor('both requests signed', () => ctx.api.writes().length === 2);
    assert.deepEqual(ctx.api.writes().sort(), [`UPDATE ${statusPath('early')}`, `UPDATE ${statusPath('late')}`]);
    ctx.stop();
  });
});
