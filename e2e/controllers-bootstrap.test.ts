/**
 * The bootstrap token controllers in a running controller manager against a real API server,
 * driven with kubectl: cluster-info readable anonymously (the API server's start-up step), signed
 * by the bootstrap signer and verified exactly by the spec's recipe (HMAC-SHA256 with the full
 * token over `header.base64url(kubeconfig)`), the signature dropped when its token goes; the
 * token cleaner deleting tokens at their expiration, and a token whose expiration does not parse
 * at once, with a Warning Event saying why.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { formatTimeOf } from '../shared/go/time.ts';
import { startControllerManager, type ControllerManagerProcess } from './controller-manager.ts';
import { startCluster, succeeded, type Cluster } from './harness.ts';

interface ConfigMapData {
  data?: Record<string, string>;
}

describe('bootstrap token controllers', () => {
  let cluster: Cluster;
  let manager: ControllerManagerProcess;
  before(async () => {
    cluster = await startCluster({ apiserverArgs: ['--enable-bootstrap-token-auth=true'] });
    manager = await startControllerManager(cluster, { args: ['--controllers=bootstrapsigner,tokencleaner', '--leader-elect=false'] });
  });
  after(async () => {
    await manager?.stop();
    await cluster?.stop();
  });

  const createToken = async (id: string, secret: string, extra: Record<string, string>): Promise<void> => {
    const manifest = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
      type: 'bootstrap.kubernetes.io/token',
      stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', ...extra },
    };
    succeeded(await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(manifest) }));
  };

  /** cluster-info as an anonymous client reads it (a joining node has nothing else). */
  const anonymousClusterInfo = async (): Promise<Record<string, string>> => {
    const res = await cluster.request({ path: '/api/v1/namespaces/kube-public/configmaps/cluster-info', authenticate: false });
    assert.equal(res.status, 200, res.text);
    return (res.json() as ConfigMapData).data ?? {};
  };

  const tokenExists = async (id: string): Promise<boolean> => {
    const res = await cluster.kubectl(['get', 'secret', '-n', 'kube-system', `bootstrap-token-${id}`, '--ignore-not-found', '-o', 'name']);
    return succeeded(res).trim() !== '';
  };

  it('serves cluster-info to anonymous clients with the cluster CA and server, and nothing else in kube-public', async () => {
    const data = await anonymousClusterInfo();
    const kubeconfig = parse(data['kubeconfig'] ?? '') as { clusters: { name: string; cluster: Record<string, string> }[]; users: unknown };
    assert.equal(kubeconfig.clusters.length, 1);
    assert.equal(kubeconfig.clusters[0]?.name, '');
    assert.equal(kubeconfig.clusters[0]?.cluster['server'], cluster.urls[0]);
    assert.equal(Buffer.from(kubeconfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString(), cluster.caPem);
    assert.equal(kubeconfig.users, null);
    const other = await cluster.request({ path: '/api/v1/namespaces/kube-public/configmaps', authenticate: false });
    assert.equal(other.status, 403, 'listing is not granted, only get of cluster-info');
  });

  it("signs cluster-info with each signing token, verifiable by the spec's recipe, and drops the signature with the token", async () => {
    const id = 'abcdef';
    const secret = '0123456789abcdef';
    await createToken(id, secret, { 'usage-bootstrap-signing': 'true' });
    await createToken('nosign', 'fedcba9876543210', {});
    const data = await waitFor(
      'cluster-info signed by the token',
      async () => {
        const d = await anonymousClusterInfo();
        return d[`jws-kubeconfig-${id}`] ? d : undefined;
      },
      { detail: () => manager.log().slice(-3000) },
    );
    assert.equal(data['jws-kubeconfig-nosign'], undefined, 'a token without usage-bootstrap-signing does not sign');
    // The recipe: put the unpadded base64url kubeconfig between the dots, verify HS256 with the full token.
    const [header = '', middle, signature] = (data[`jws-kubeconfig-${id}`] ?? '').split('.');
    assert.equal(middle, '', 'a detached JWS');
    assert.deepEqual(JSON.parse(Buffer.from(header, 'base64url').toString()), { alg: 'HS256', kid: id });
    const payload = Buffer.from(data['kubeconfig'] ?? '', 'utf8').toString('base64url');
    const expected = createHmac('sha256', `${id}.${secret}`).update(`${header}.${payload}`).digest('base64url');
    assert.equal(signature, expected);

    succeeded(await cluster.kubectl(['delete', 'secret', '-n', 'kube-system', `bootstrap-token-${id}`]));
    await waitFor('the signature of the deleted token to go', async () => (await anonymousClusterInfo())[`jws-kubeconfig-${id}`] === undefined, {
      detail: () => manager.log().slice(-3000),
    });
    assert.ok((await anonymousClusterInfo())['kubeconfig'], 'the kubeconfig stays');
  });

  it('deletes a token when it expires, and its signature goes with it', async () => {
    const id = 'expire';
    // A few seconds ahead: the token is valid when created, and signs meanwhile.
    await createToken(id, '0123456789abcdef', { 'usage-bootstrap-signing': 'true', expiration: formatTimeOf(new Date(Date.now() + 5_000)) });
    assert.equal(await tokenExists(id), true);
    await waitFor('the expired token to be deleted', async () => !(await tokenExists(id)), { detail: () => manager.log().slice(-3000) });
    await waitFor('its signature to go', async () => (await anonymousClusterInfo())[`jws-kubeconfig-${id}`] === undefined);
  });

  it('deletes a token whose expiration does not parse, with a Warning event saying why', async () => {
    const id = 'broken';
    await createToken(id, '0123456789abcdef', { expiration: 'next tuesday' });
    await waitFor('the malformed token to be deleted', async () => !(await tokenExists(id)), { detail: () => manager.log().slice(-3000) });
    const event = await waitFor('a Warning event about the expiration', async () => {
      const events = JSON.parse(
        succeeded(await cluster.kubectl(['get', 'events', '-n', 'kube-system', '--field-selector', `involvedObject.name=bootstrap-token-${id}`, '-o', 'json'])),
      ) as { items: { type: string; reason: string; message: string }[] };
      return events.items.find((e) => e.reason === 'InvalidExpiration');
    });
    assert.equal(event.type, 'Warning');
    assert.match(
      event.message,
      /^Unparseable expiration time \(next tuesday\) in kube-system\/bootstrap-token-broken Secret: parsing time "next tuesday".*Treating as expired\.$/,
    );
  });
});
