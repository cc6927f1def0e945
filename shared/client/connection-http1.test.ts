/**
 * The client behind a TLS server that speaks HTTP/1.1 only (a TLS-terminating proxy without
 * HTTP/2): ALPN offers h2 and http/1.1, the server chooses http/1.1, and requests and watches go
 * over a keep-alive HTTP/1.1 pool, as client-go's transport falls back.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { createCA, issueServingCertificate } from '../pki/certificates.ts';
import { renderKubeconfig } from '../pki/kubeconfig.ts';
import type { KubeObject } from '../api/types.ts';
import { HttpApiClient } from './api-client.ts';

const path = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string, resourceVersion: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion },
});

describe('the client connection to an HTTPS server without HTTP/2', () => {
  let server: Server;
  let kubeconfig: KubeConfig;
  /** What the server saw: each request's HTTP version and ALPN protocol, and the TLS connections made. */
  const seen: { version: string; alpn: string | false | null; method: string; url: string }[] = [];
  let connections = 0;

  before(async () => {
    const ca = await createCA();
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    server = createServer({ key: serving.keyPem, cert: serving.certPem, ALPNProtocols: ['http/1.1'] }, (req: IncomingMessage, res: ServerResponse) => {
      seen.push({ version: req.httpVersion, alpn: (req.socket as TLSSocket).alpnProtocol, method: req.method ?? '', url: req.url ?? '' });
      res.setHeader('content-type', 'application/json');
      if (req.url?.includes('watch=true')) {
        res.write(`${JSON.stringify({ type: 'ADDED', object: configMap('a', '2') })}\n`);
        res.end(`${JSON.stringify({ type: 'MODIFIED', object: configMap('a', '3') })}\n`);
        return;
      }
      if (req.method === 'GET') res.end(JSON.stringify(configMap('a', '1')));
      else res.writeHead(404).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not here' }));
    });
    server.on('secureConnection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    kubeconfig = new KubeConfig();
    kubeconfig.loadFromString(
      renderKubeconfig({ server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem: ca.certPem, token: 'abc', userName: 'u' }),
    );
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('falls back to HTTP/1.1 for requests and watches, on kept-alive connections', async () => {
    const client = new HttpApiClient(kubeconfig);
    try {
      const got = await client.get(`${path}/a`);
      assert.equal(got.metadata.resourceVersion, '1');
      await assert.rejects(client.delete(`${path}/a`), (err: unknown) => (err as { code?: number }).code === 404);
      assert.equal((await client.get(`${path}/a`)).metadata.name, 'a');

      const events: string[] = [];
      const ended = await new Promise<unknown>((resolve) => {
        void client.watch(path, { resourceVersion: '1' }, (type, object) => events.push(`${type} ${(object as KubeObject).metadata.resourceVersion}`), resolve);
      });
      assert.equal(ended, null);
      assert.deepEqual(events, ['ADDED 2', 'MODIFIED 3']);
    } finally {
      client.close();
    }
    assert.ok(seen.length >= 4);
    assert.ok(
      seen.every((s) => s.version === '1.1' && s.alpn === 'http/1.1'),
      JSON.stringify(seen),
    );
    assert.equal(seen[0]?.url, `${path}/a`);
    // The ALPN question costs one connection; the sequential requests then share one kept-alive connection.
    assert.ok(connections <= 2, `${connections} TLS connections`);
  });
});
