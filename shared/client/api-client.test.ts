import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { isStatusError } from '../api/errors.ts';
import { contentTypeFrom, HttpApiClient } from './api-client.ts';

describe('HttpApiClient', () => {
  let server: Server;
  let client: HttpApiClient;
  /** What the server answers next, one per request; 200 `{}` when empty. */
  const answers: { code: number; retryAfter?: string; body?: string }[] = [];
  let requests = 0;
  let lastHeaders: { accept?: string; contentType?: string } = {};

  before(async () => {
    server = createServer((req, res) => {
      requests++;
      lastHeaders = {
        ...(req.headers.accept ? { accept: req.headers.accept } : {}),
        ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
      };
      const answer = answers.shift() ?? { code: 200, body: '{"kind":"ConfigMap","metadata":{"name":"a"}}' };
      res.writeHead(answer.code, { 'content-type': 'application/json', ...(answer.retryAfter !== undefined ? { 'retry-after': answer.retryAfter } : {}) });
      res.end(
        answer.body ??
          JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: answer.code, reason: 'TooManyRequests', message: 'slow down' }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    client = new HttpApiClient(kubeconfig);
  });
  after(() => {
    client.close();
    server.close();
  });

  it('tries a 429 again after Retry-After, as client-go does', async () => {
    requests = 0;
    answers.push({ code: 429, retryAfter: '0' }, { code: 429, retryAfter: '0' });
    const got = await client.get('/api/v1/namespaces/default/configmaps/a');
    assert.equal(got.metadata.name, 'a');
    assert.equal(requests, 3);
  });

  it('tries a 5xx again only when it carries Retry-After', async () => {
    requests = 0;
    answers.push({ code: 503, retryAfter: '0' });
    await client.get('/x');
    assert.equal(requests, 2);
    requests = 0;
    answers.push({ code: 500 });
    await assert.rejects(client.get('/x'), (err) => isStatusError(err) && err.status.code === 500);
    assert.equal(requests, 1);
  });

  it('gives up after ten retries with the last Status', async () => {
    requests = 0;
    for (let i = 0; i < 11; i++) answers.push({ code: 429, retryAfter: '0' });
    await assert.rejects(client.get('/x'), (err) => isStatusError(err, 'TooManyRequests'));
    assert.equal(requests, 11);
  });

  it('sends and accepts JSON by default, whatever the kind', async () => {
    await client.create('/apis/coordination.k8s.io/v1/namespaces/x/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'a' } });
    assert.deepEqual(lastHeaders, { accept: 'application/json', contentType: 'application/json' });
  });
});

describe('contentTypeFrom', () => {
  it('is protobuf only when the configured value names it', () => {
    assert.equal(contentTypeFrom('application/vnd.kubernetes.protobuf'), 'application/vnd.kubernetes.protobuf');
    assert.equal(contentTypeFrom('application/json'), 'application/json');
    assert.equal(contentTypeFrom(''), 'application/json');
  });
});
