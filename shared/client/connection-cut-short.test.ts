/**
 * An answer whose connection is lost before the server ended it fails its request, even when every
 * byte it carried would decode: Node ends such an HTTP/2 stream as if it were whole, and a protobuf
 * body cut at a field boundary would decode as an object with fields missing.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { createCA, issueServingCertificate } from '../pki/certificates.ts';
import { renderKubeconfig } from '../pki/kubeconfig.ts';
import { HttpApiClient } from './api-client.ts';

const whole = '/api/v1/namespaces/default/configmaps/whole';
const cut = '/api/v1/namespaces/default/configmaps/cut';
/** Cut short too, its answer declaring the length it would have had. */
const cutDeclared = '/api/v1/namespaces/default/configmaps/cut-declared';
/** A complete object: what the server sends of its answer before the connection goes. */
const configMap = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cut', namespace: 'default' } });

describe('an answer cut short by its connection', () => {
  let h2: Http2SecureServer;
  let h1: HttpsServer;
  let caPem: string;

  before(async () => {
    const ca = await createCA();
    caPem = ca.certPem;
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    h2 = createSecureServer({ key: serving.keyPem, cert: serving.certPem });
    const h2Sockets = new Set<Socket>();
    h2.on('secureConnection', (socket: Socket) => h2Sockets.add(socket));
    h2.on('stream', (stream, headers) => {
      stream.on('error', () => {});
      const declared = headers[':path'] === cutDeclared ? { 'content-length': Buffer.byteLength(configMap) + 10 } : {};
      stream.respond({ ':status': 200, 'content-type': 'application/json', ...declared });
      if (headers[':path'] === whole) return void stream.end(configMap);
      // The whole object, then the connection goes before the stream's end.
      stream.write(configMap, () => setTimeout(() => h2Sockets.forEach((socket) => socket.destroy()), 20));
    });
    h1 = createHttpsServer({ key: serving.keyPem, cert: serving.certPem, ALPNProtocols: ['http/1.1'] }, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === whole) return void res.end(configMap);
      // Chunked: the object's chunk arrives whole, the last chunk never does.
      res.write(configMap, () => setTimeout(() => res.socket?.destroy(), 20));
    });
    await Promise.all([new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve)), new Promise<void>((resolve) => h1.listen(0, '127.0.0.1', resolve))]);
  });

  after(async () => {
    h1.closeAllConnections();
    await Promise.all([new Promise((resolve) => h2.close(resolve)), new Promise((resolve) => h1.close(resolve))]);
  });

  function client(server: { address(): AddressInfo | string | null }): HttpApiClient {
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromString(renderKubeconfig({ server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem, token: 'abc', userName: 'u' }));
    return new HttpApiClient(kubeconfig, { timeoutMs: 10_000 });
  }

  it('fails the request over HTTP/2, where Node ends the stream without an error', async () => {
    const api = client(h2);
    try {
      assert.equal((await api.get(whole)).kind, 'ConfigMap', 'an answer the server ended is read');
      await assert.rejects(api.get(cut, { resourceVersion: 0 }), {
        message: `GET ${cut}: the connection closed after ${Buffer.byteLength(configMap)} bytes of the answer`,
      });
      await assert.rejects(api.get(cutDeclared), {
        message: `GET ${cutDeclared}: the connection closed after ${Buffer.byteLength(configMap)} of ${Buffer.byteLength(configMap) + 10} bytes of the answer`,
      });
    } finally {
      api.close();
    }
  });

  it('fails the request over HTTP/1.1', async () => {
    const api = client(h1);
    try {
      assert.equal((await api.get(whole)).kind, 'ConfigMap', 'an answer the server ended is read');
      await assert.rejects(api.get(cut));
    } finally {
      api.close();
    }
  });
});
