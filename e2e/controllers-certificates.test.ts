/**
 * The certificate controllers in a running controller manager against a real API server, driven
 * by openssl and kubectl as a user or a kubelet would: a client certificate requested, approved
 * by hand, signed and then used to authenticate; kubelet client certificates auto-approved for a
 * bootstrap identity and for a node renewing its own; a request the signer refuses marked Failed.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { startControllerManager, type ControllerManagerProcess } from './controller-manager.ts';
import { run, startCluster, succeeded, type Cluster, type KubectlOptions } from './harness.ts';

const bootstrapToken = 'bootstrap-token-0123456789';
const nodeToken = 'node-n2-token-0123456789';

interface CSRStatus {
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
  certificate?: string;
}

describe('certificate controllers', () => {
  let cluster: Cluster;
  let manager: ControllerManagerProcess;
  before(async () => {
    cluster = await startCluster({
      // Bootstrap token authentication brings the bindings kubeadm makes for joining nodes (nodeclient, selfnodeclient).
      apiserverArgs: ['--enable-bootstrap-token-auth=true'],
      tokens: [`${bootstrapToken},system:bootstrap:abcdef,uid-b,"system:bootstrappers"`, `${nodeToken},system:node:n2,uid-n2,"system:nodes"`],
    });
    manager = await startControllerManager(cluster, { args: ['--controllers=csrsigning,csrapproving,csrcleaner', '--leader-elect=false'] });
  });
  after(async () => {
    await manager?.stop();
    await cluster?.stop();
  });

  const openssl = async (...args: string[]): Promise<string> => succeeded(await run('openssl', args));

  /** A key and a PKCS#10 request for `subject` (openssl's -subj form) in the cluster's directory. */
  const keyAndRequest = async (name: string, subject: string, key: 'rsa' | 'ec'): Promise<{ keyFile: string; request: string }> => {
    const keyFile = join(cluster.dir, `${name}.key`);
    const csrFile = join(cluster.dir, `${name}.csr`);
    if (key === 'rsa') await openssl('genrsa', '-out', keyFile, '2048');
    else await openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile);
    await openssl('req', '-new', '-key', keyFile, '-subj', subject, '-out', csrFile);
    return { keyFile, request: await openssl('base64', '-A', '-in', csrFile) };
  };

  const createCSR = async (name: string, spec: Record<string, unknown>, opts: KubectlOptions = {}): Promise<void> => {
    const manifest = JSON.stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec });
    succeeded(await cluster.kubectl(['create', '-f', '-'], { input: manifest, ...opts }));
  };

  const csrStatus = async (name: string): Promise<CSRStatus> =>
    (JSON.parse(succeeded(await cluster.kubectl(['get', 'csr', name, '-o', 'json']))) as { status?: CSRStatus }).status ?? {};

  /** Waits for the certificate of `name` and writes it to a file. */
  const issuedCertificate = async (name: string): Promise<string> => {
    const status = await waitFor(
      `a certificate for ${name}`,
      async () => {
        const s = await csrStatus(name);
        return s.certificate ? s : undefined;
      },
      { detail: () => manager.log().slice(-3000) },
    );
    const certFile = join(cluster.dir, `${name}.crt`);
    writeFileSync(certFile, Buffer.from(status.certificate ?? '', 'base64'));
    return certFile;
  };

  const whoami = async (certFile: string, keyFile: string): Promise<{ username: string; groups: string[] }> =>
    (
      JSON.parse(succeeded(await cluster.kubectl(['auth', 'whoami', '-o', 'json'], { credentials: { certFile, keyFile } }))) as {
        status: { userInfo: { username: string; groups: string[] } };
      }
    ).status.userInfo;

  it('a client certificate end to end: openssl request, kubectl approve, signed, authenticates as its CN and O', async () => {
    const { keyFile, request } = await keyAndRequest('jane', '/O=dev-team/O=qa/CN=jane', 'rsa');
    await createCSR('jane', { request, signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 3600, usages: ['client auth'] });
    // Not auto-approved: it waits for a person.
    assert.deepEqual((await csrStatus('jane')).conditions ?? [], []);
    assert.match(succeeded(await cluster.kubectl(['certificate', 'approve', 'jane'])), /certificatesigningrequest.certificates.k8s.io\/jane approved/);
    const certFile = await issuedCertificate('jane');

    await openssl('verify', '-CAfile', join(cluster.dataDir, 'pki', 'ca.crt'), certFile);
    const text = await openssl('x509', '-in', certFile, '-noout', '-text');
    assert.match(text, /Subject: O = dev-team \+ O = qa, CN = jane|Subject: O=dev-team \+ O=qa, CN=jane/);
    assert.match(text, /TLS Web Client Authentication/);
    assert.match(text, /CA:FALSE/);
    const dates = await openssl('x509', '-in', certFile, '-noout', '-startdate', '-enddate');
    const notBefore = Date.parse(/notBefore=(.*)/.exec(dates)?.[1] ?? '');
    const notAfter = Date.parse(/notAfter=(.*)/.exec(dates)?.[1] ?? '');
    assert.equal(notAfter - notBefore, 65 * 60_000, 'an hour asked for, short-lived: only the start is backdated (5 minutes)');

    const user = await whoami(certFile, keyFile);
    assert.equal(user.username, 'jane');
    assert.deepEqual(user.groups, ['dev-team', 'qa', 'system:authenticated']);
    assert.match(succeeded(await cluster.kubectl(['get', 'csr', 'jane'])), /Approved,Issued/);
  });

  it('a kubelet client request from a bootstrap identity is auto-approved and signed', async () => {
    const { keyFile, request } = await keyAndRequest('node-n1', '/O=system:nodes/CN=system:node:n1', 'ec');
    await createCSR(
      'node-n1',
      { request, signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
      { credentials: { token: bootstrapToken } },
    );
    const certFile = await issuedCertificate('node-n1');
    const approved = (await csrStatus('node-n1')).conditions?.find((c) => c.type === 'Approved');
    assert.deepEqual(
      { reason: approved?.reason, message: approved?.message },
      { reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
    );
    const user = await whoami(certFile, keyFile);
    assert.equal(user.username, 'system:node:n1');
    assert.ok(user.groups.includes('system:nodes'));
  });

  it('a node renewing its own client certificate is auto-approved as selfnodeclient', async () => {
    const { request } = await keyAndRequest('node-n2', '/O=system:nodes/CN=system:node:n2', 'ec');
    await createCSR(
      'node-n2',
      { request, signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'key encipherment', 'client auth'] },
      { credentials: { token: nodeToken } },
    );
    await issuedCertificate('node-n2');
    const approved = (await csrStatus('node-n2')).conditions?.find((c) => c.type === 'Approved');
    assert.equal(approved?.message, 'Auto approving self kubelet client certificate after SubjectAccessReview.');
  });

  it('a kubelet request for another node is recognised but not approved', async () => {
    const { request } = await keyAndRequest('node-n3', '/O=system:nodes/CN=system:node:n3', 'ec');
    await createCSR(
      'node-n3',
      { request, signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
      { credentials: { token: nodeToken } },
    );
    await waitFor(
      'the approver to have looked at it',
      () => manager.log().includes('recognized csr \\"node-n3\\" as [nodeclient] but subject access review was not approved'),
      {
        detail: () => manager.log().slice(-3000),
      },
    );
    assert.deepEqual((await csrStatus('node-n3')).conditions ?? [], []);
  });

  it('an approved request the signer refuses gets Failed with SignerValidationFailure', async () => {
    const { request } = await keyAndRequest('server', '/CN=not-a-client', 'ec');
    await createCSR('server', { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'server auth'] });
    succeeded(await cluster.kubectl(['certificate', 'approve', 'server']));
    const failed = await waitFor('a Failed condition', async () => (await csrStatus('server')).conditions?.find((c) => c.type === 'Failed'), {
      detail: () => manager.log().slice(-3000),
    });
    assert.deepEqual(
      { status: failed.status, reason: failed.reason, message: failed.message },
      { status: 'True', reason: 'SignerValidationFailure', message: 'invalid usage for client certificate: server auth' },
    );
    assert.equal((await csrStatus('server')).certificate, undefined);
    assert.match(succeeded(await cluster.kubectl(['get', 'csr', 'server'])), /Approved,Failed/);
  });

  it('a denied request is never signed', async () => {
    const { request } = await keyAndRequest('denied', '/CN=nobody', 'ec');
    await createCSR('denied', { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] });
    succeeded(await cluster.kubectl(['certificate', 'deny', 'denied']));
    // A request approved after the denial is signed: the signer has dealt with the denied one, queued before it.
    const marker = await keyAndRequest('after-denied', '/CN=marker', 'ec');
    await createCSR('after-denied', { request: marker.request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] });
    succeeded(await cluster.kubectl(['certificate', 'approve', 'after-denied']));
    await issuedCertificate('after-denied');
    const status = await csrStatus('denied');
    assert.equal(status.certificate, undefined);
    assert.deepEqual(
      status.conditions?.map((c) => c.type),
      ['Denied'],
    );
  });
});
