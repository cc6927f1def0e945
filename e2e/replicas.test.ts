/**
 * Two API server replicas started at the same moment on one fresh data dir and one etcd: they end
 * with one CA, and serve one cluster (an object written through one is read through the other, and a
 * resourceVersion from one is a valid precondition on the other). Driven by @kubernetes/client-node.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { ApiException, CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { skipUnlessEtcd } from '../shared/etcd/availability.ts';
import { startCluster, type Cluster } from './harness.ts';

/** The serving certificate of `url`, fetched over a TLS connection that must verify against `ca`. */
function servingCertificate(url: string, ca: string): Promise<PeerCertificate> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca, rejectUnauthorized: true, ALPNProtocols: ['http/1.1'] }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert);
    });
    socket.once('error', reject);
  });
}

/** Runs `call` and returns the HTTP status of the ApiException it must throw. */
async function failureCode(call: () => Promise<unknown>): Promise<{ code: number; body: unknown }> {
  try {
    await call();
  } catch (err) {
    if (err instanceof ApiException) return { code: err.code, body: typeof err.body === 'string' ? (JSON.parse(err.body) as unknown) : (err.body as unknown) };
    throw err;
  }
  assert.fail('the call succeeded');
}

describe('two replicas on one data dir', { skip: skipUnlessEtcd() }, () => {
  let cluster: Cluster;
  let a: CoreV1Api;
  let b: CoreV1Api;
  const namespace = 'default';

  before(
    async () => {
      cluster = await startCluster({ replicas: 2 });
      a = cluster.kubeConfig(0).makeApiClient(CoreV1Api);
      b = cluster.kubeConfig(1).makeApiClient(CoreV1Api);
    },
    { timeout: 120_000 },
  );
  after(async () => {
    await cluster?.stop();
  });

  it('both serve certificates issued by the one CA in <data-dir>/pki/ca.crt', async () => {
    const caPem = readFileSync(join(cluster.dataDir, 'pki', 'ca.crt'), 'utf8');
    const ca = new X509Certificate(caPem);
    const certs = await Promise.all(cluster.urls.map((url) => servingCertificate(url, caPem)));
    for (const [i, cert] of certs.entries()) {
      const leaf = new X509Certificate(cert.raw);
      assert.ok(leaf.checkIssued(ca), `replica ${i}'s serving certificate names the CA as issuer`);
      assert.ok(leaf.verify(ca.publicKey), `replica ${i}'s serving certificate is signed by the CA`);
    }
  });

  it('the admin kubeconfig trusts that CA, and its client certificate is accepted by both', async () => {
    const caPem = readFileSync(join(cluster.dataDir, 'pki', 'ca.crt'), 'utf8');
    const config = parseYaml(readFileSync(join(cluster.dataDir, 'admin.kubeconfig'), 'utf8')) as { clusters: { cluster: Record<string, string> }[] };
    assert.equal(Buffer.from(config.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8'), caPem);
    for (const api of [a, b]) {
      const list = await api.listNamespace();
      assert.ok(list.items.some((ns) => ns.metadata?.name === 'kube-system'));
    }
  });

  it('an object created through replica A is readable through replica B', async () => {
    const created = await a.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'shared' }, data: { from: 'a' } } });
    const read = await b.readNamespacedConfigMap({ name: 'shared', namespace });
    assert.equal(read.metadata?.uid, created.metadata?.uid);
    assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);
    assert.deepEqual(read.data, { from: 'a' });
    const listed = await b.listNamespacedConfigMap({ namespace });
    assert.ok(listed.items.some((cm) => cm.metadata?.uid === created.metadata?.uid));
  });

  it("A's resourceVersion is a valid update precondition on B, and a stale one conflicts", async () => {
    const fromA = await a.readNamespacedConfigMap({ name: 'shared', namespace });
    const body: V1ConfigMap = { ...fromA, data: { from: 'b' } };
    const updated = await b.replaceNamespacedConfigMap({ name: 'shared', namespace, body });
    assert.deepEqual(updated.data, { from: 'b' });
    assert.notEqual(updated.metadata?.resourceVersion, fromA.metadata?.resourceVersion);
    assert.deepEqual((await a.readNamespacedConfigMap({ name: 'shared', namespace })).data, { from: 'b' });

    // fromA's resourceVersion is now stale on both replicas.
    const stale = await failureCode(() => a.replaceNamespacedConfigMap({ name: 'shared', namespace, body: { ...fromA, data: { from: 'stale' } } }));
    assert.equal(stale.code, 409);
    assert.deepEqual(
      { reason: (stale.body as { reason?: string }).reason, message: (stale.body as { message?: string }).message },
      {
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on configmaps "shared": the object has been modified; please apply your changes to the latest version and try again',
      },
    );
  });

  it("B's list accepts A's resourceVersion with resourceVersionMatch=NotOlderThan", async () => {
    const fromA = await a.readNamespacedConfigMap({ name: 'shared', namespace });
    const rv = fromA.metadata?.resourceVersion ?? '';
    const list = await b.listNamespacedConfigMap({ namespace, resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' });
    assert.ok(BigInt(list.metadata?.resourceVersion ?? '0') >= BigInt(rv));
    assert.ok(list.items.some((cm) => cm.metadata?.name === 'shared'));
  });

  it("a delete on B with A's resourceVersion as precondition removes it for both", async () => {
    const fromA = await a.readNamespacedConfigMap({ name: 'shared', namespace });
    await b.deleteNamespacedConfigMap({ name: 'shared', namespace, body: { preconditions: { resourceVersion: fromA.metadata?.resourceVersion ?? '' } } });
    for (const api of [a, b]) {
      const gone = await failureCode(() => api.readNamespacedConfigMap({ name: 'shared', namespace }));
      assert.equal(gone.code, 404);
    }
  });
});
