/**
 * serverTLSBootstrap end to end, with real processes: the node agent asks
 * `kubernetes.io/kubelet-serving` for its serving certificate; the controller manager's approver
 * leaves such requests alone (as upstream's does), so its server completes no handshake until an
 * administrator approves the request with kubectl; the controller manager then signs it and the
 * running server presents it: issued by the cluster's CA for `system:node:<name>`, naming the
 * node's addresses.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, type PeerCertificate } from 'node:tls';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { freePort } from '../shared/net/free-ports.ts';
import { startControllerManager, type ControllerManagerProcess } from './controller-manager.ts';
import { startCluster, succeeded, type Cluster } from './harness.ts';
import { createBootstrapToken, startNodeAgent, writeBootstrapKubeconfig, type NodeAgentProcess } from './nodeagent.ts';

interface CsrJson {
  metadata: { name: string };
  spec: { signerName: string; username?: string; usages?: string[] };
  status?: { certificate?: string; conditions?: { type: string }[] };
}

type Handshake = { ok: true; certificate: PeerCertificate } | { ok: false; error: string };

/** A TLS handshake with the agent's server, verifying nothing: what certificate it presents, or why it presents none. */
function handshake(port: number): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, servername: 'localhost' });
    socket.once('secureConnect', () => {
      resolve({ ok: true, certificate: socket.getPeerCertificate() });
      socket.destroy();
    });
    socket.once('error', (err) => resolve({ ok: false, error: err.message }));
  });
}

describe('node agent serving certificate (serverTLSBootstrap)', () => {
  let cluster: Cluster;
  let manager: ControllerManagerProcess;
  let agent: NodeAgentProcess;
  let port: number;

  const servingRequests = async (): Promise<CsrJson[]> => {
    const list = JSON.parse(succeeded(await cluster.kubectl(['get', 'csr', '-o', 'json']))) as { items: CsrJson[] };
    return list.items.filter((csr) => csr.spec.signerName === 'kubernetes.io/kubelet-serving');
  };

  before(async () => {
    cluster = await startCluster({ apiserverArgs: ['--enable-bootstrap-token-auth=true'] });
    const bootstrapKubeconfig = writeBootstrapKubeconfig(cluster, await createBootstrapToken(cluster));
    manager = await startControllerManager(cluster, { args: ['--leader-elect=false'] });
    port = await freePort();
    agent = await startNodeAgent(cluster, {
      name: 'worker-s',
      bootstrapKubeconfig,
      config: { serverTLSBootstrap: true, nodeStatusUpdateFrequency: '1s', port },
    });
  });
  after(async () => {
    await agent?.stop();
    await manager?.stop();
    await cluster?.stop();
  });

  it('serves with no certificate until its request is approved, then with the one the cluster issued', async () => {
    const pending = await waitFor(
      'the serving certificate request',
      async () => {
        const [csr] = await servingRequests();
        return csr;
      },
      { detail: () => agent.log().slice(-3_000) },
    );
    assert.equal(pending.spec.username, 'system:node:worker-s');
    assert.deepEqual([...(pending.spec.usages ?? [])].sort(), ['digital signature', 'server auth']);
    // The approver leaves serving requests to an administrator: still pending, and the server has nothing to present.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const [stillPending] = await servingRequests();
    assert.equal(stillPending?.status?.conditions?.length ?? 0, 0);
    const refused = await handshake(port);
    assert.equal(refused.ok, false);

    succeeded(await cluster.kubectl(['certificate', 'approve', pending.metadata.name]));
    const issued = await waitFor('the serving certificate to be issued', async () => {
      const [csr] = await servingRequests();
      return csr?.status?.certificate;
    });
    const ca = new X509Certificate(readFileSync(join(cluster.dataDir, 'pki', 'ca.crt')));
    assert.ok(new X509Certificate(Buffer.from(issued, 'base64')).verify(ca.publicKey));

    const served = await waitFor('the server to present the issued certificate', async () => {
      const result = await handshake(port);
      return result.ok && result.certificate.subject.CN === 'system:node:worker-s' ? result.certificate : undefined;
    });
    const presented = new X509Certificate(served.raw);
    assert.ok(presented.verify(ca.publicKey), 'signed by the cluster CA');
    assert.deepEqual(presented.subject.split('\n').sort(), ['CN=system:node:worker-s', 'O=system:nodes']);
    // Named for the node's addresses as its status reports them: hostnames as DNS names, IPs as IP addresses.
    const node = JSON.parse(succeeded(await cluster.kubectl(['get', 'node', 'worker-s', '-o', 'json']))) as {
      status: { addresses: { type: string; address: string }[] };
    };
    const expected = node.status.addresses.map(({ address }) => (isIP(address) ? `IP Address:${address}` : `DNS:${address}`));
    assert.ok(expected.includes('DNS:worker-s'));
    assert.deepEqual((presented.subjectAltName ?? '').split(', ').sort(), [...new Set(expected)].sort());
  });
});
