/**
 * A request's timeout is a deadline for its whole answer (client-go's Timeout), over HTTP/2 and
 * over HTTP/1.1, and its timer ends with the request: a request destroyed before it ended (its
 * client closed under it) leaves nothing behind that would hold its connection.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { createCA, issueServingCertificate } from '../pki/certificates.ts';
import { renderKubeconfig } from '../pki/kubeconfig.ts';
import { HttpApiClient } from './api-client.ts';

const silent = '/api/v1/namespaces/default/configmaps/silent';
const trickling = '/api/v1/namespaces/default/configmaps/trickling';

/** Answers `trickling` with a body that never ends (a byte every 20 ms); never answers `silent`. */
function answer(path: string, respond: (contentType: string) => void, write: (chunk: string) => boolean, ended: () => boolean): void {
  if (path !== trickling) return;
  respond('application/json');
  const timer = setInterval(() => {
    if (ended()) clearInterval(timer);
    else write(' ');
  }, 20);
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

/** Waits out the trickling answers of earlier tests: their timers stop within 20 ms of their streams. */
function settled(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 100));
}

describe('a request timeout', () => {
  let h2: Http2SecureServer;
  let h1: HttpsServer;
  let caPem: string;
  const h2Streams = new Set<ServerHttp2Stream>();
  let h1Seen = 0;

  before(async () => {
    const ca = await createCA();
    caPem = ca.certPem;
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    h2 = createSecureServer({ key: serving.keyPem, cert: serving.certPem });
    h2.on('stream', (stream: ServerHttp2Stream, headers) => {
      h2Streams.add(stream);
      stream.on('error', () => {});
      answer(
        String(headers[':path']),
        (contentType) => stream.respond({ ':status': 200, 'content-type': contentType }),
        (chunk) => stream.write(chunk),
        () => stream.destroyed,
      );
    });
    h1 = createHttpsServer({ key: serving.keyPem, cert: serving.certPem, ALPNProtocols: ['http/1.1'] }, (req, res) => {
      h1Seen++;
      answer(
        req.url ?? '',
        (contentType) => res.writeHead(200, { 'content-type': contentType }),
        (chunk) => res.write(chunk),
        () => res.destroyed,
      );
    });
    await Promise.all([new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve)), new Promise<void>((resolve) => h1.listen(0, '127.0.0.1', resolve))]);
  });

  after(async () => {
    for (const stream of h2Streams) stream.destroy();
    h1.closeAllConnections();
    await Promise.all([new Promise((resolve) => h2.close(resolve)), new Promise((resolve) => h1.close(resolve))]);
  });

  function client(server: { address(): AddressInfo | string | null }, timeoutMs: number): HttpApiClient {
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromString(renderKubeconfig({ server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem, token: 'abc', userName: 'u' }));
    return new HttpApiClient(kubeconfig, { timeoutMs });
  }

  for (const [protocol, server] of [
    ['HTTP/2', (): Http2SecureServer => h2],
    ['HTTP/1.1', (): HttpsServer => h1],
  ] as const) {
    it(`fails a request never answered once it passes, over ${protocol}`, async () => {
      const api = client(server(), 300);
      try {
        await assert.rejects(api.get(silent), { message: `GET ${silent}: no answer within 300 ms` });
      } finally {
        api.close();
      }
    });

    it(`fails a request whose answer is still arriving once it passes, over ${protocol}`, async () => {
      const api = client(server(), 300);
      try {
        // Bytes keep coming every 20 ms: an idle timeout would never fire, the deadline does.
        await assert.rejects(api.get(trickling), { message: `GET ${trickling}: no answer within 300 ms` });
      } finally {
        api.close();
      }
    });
  }

  it('ends its timer with a request destroyed before its answer (the client closed under it)', async () => {
    await settled();
    const api = client(h2, 600_000);
    const before = activeTimers();
    const seen = h2Streams.size;
    const failed = assert.rejects(api.get(silent));
    while (h2Streams.size === seen) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(activeTimers(), before + 1, 'the request has its deadline');
    api.close();
    await failed;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(activeTimers(), before, 'the deadline went with the stream');
  });

  it('fails a request whose client is closed under it before its answer', async () => {
    const api = client(h2, 600_000);
    const seen = h2Streams.size;
    const failed = assert.rejects(api.get(silent), { message: `GET ${silent}: the connection closed before an answer` });
    while (h2Streams.size === seen) await new Promise((resolve) => setTimeout(resolve, 5));
    api.close();
    await failed;
  });

  it('ends its timer with an HTTP/1.1 request destroyed before its answer', async () => {
    await settled();
    const api = client(h1, 600_000);
    const before = activeTimers();
    const seen = h1Seen;
    const failed = assert.rejects(api.get(silent));
    while (h1Seen === seen) await new Promise((resolve) => setTimeout(resolve, 5));
    api.close();
    await failed;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(activeTimers(), before);
  });
});
