import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { isStatusError } from '../api/errors.ts';
import { PassThrough } from 'node:stream';
import { statusSchema } from '../api/schema.ts';
import { encodeObject } from '../codec/protobuf/object.ts';
import { encodeWatchFrame } from '../codec/protobuf/watch.ts';
import { contentTypeFrom, HttpApiClient, readProtobufEvents, type Query } from './api-client.ts';
import { clientSchemaOf } from './kinds.ts';

describe('HttpApiClient', () => {
  let server: Server;
  let client: HttpApiClient;
  /** What the server answers next, one per request; 200 `{}` when empty. */
  const answers: { code: number; retryAfter?: string; body?: string }[] = [];
  let requests = 0;
  let lastHeaders: { accept?: string; contentType?: string } = {};
  let lastTarget = '';

  before(async () => {
    server = createServer((req, res) => {
      requests++;
      lastTarget = req.url ?? '';
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

  it('sends each path as given, with its query when it has one, however often the same path is asked for', async () => {
    const path = '/api/v1/namespaces/kube-system/configmaps/a%20b';
    const cases: [Query | undefined, string][] = [
      [undefined, path],
      [{ resourceVersion: '0' }, `${path}?resourceVersion=0`],
      [undefined, path],
      [{}, path],
      [{ limit: 5, continue: undefined }, `${path}?limit=5`],
      [undefined, path],
    ];
    for (const [query, expected] of cases) {
      await client.get(path, query);
      assert.equal(lastTarget, expected, JSON.stringify(query));
    }
    await client.get('/api/v1/namespaces/default/configmaps/../secrets/s');
    assert.equal(lastTarget, '/api/v1/namespaces/default/secrets/s', 'dot segments resolved as a URL resolves them');
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

describe('readProtobufEvents', () => {
  it('reads length-prefixed WatchEvent frames however they are cut, ERROR Statuses included, then ends', async () => {
    const leaseSchema = clientSchemaOf('coordination.k8s.io/v1', 'Lease');
    assert.ok(leaseSchema);
    const lease = (holder: string): Record<string, unknown> => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'n1', namespace: 'kube-node-lease', resourceVersion: '7' },
      spec: { holderIdentity: holder, leaseDurationSeconds: 40 },
    });
    const statusWithoutMetadata = {
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      message: 'too old resource version: 1 (5)',
      reason: 'Expired',
      code: 410,
    };
    const status = { ...statusWithoutMetadata, metadata: {} };
    const frames = Buffer.concat([
      encodeWatchFrame('ADDED', encodeObject(lease('a'), leaseSchema, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' })),
      encodeWatchFrame('MODIFIED', encodeObject(lease('b'), leaseSchema, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' })),
      encodeWatchFrame('ERROR', encodeObject(status, statusSchema(), { apiVersion: 'v1', kind: 'Status' })),
    ]);
    const body = new PassThrough();
    const events: [string, unknown][] = [];
    const ended = new Promise<unknown>((resolve) =>
      readProtobufEvents({ code: 200, headers: {}, body, cutShort: () => false }, (type, object) => events.push([type, object]), resolve),
    );
    // Three bytes at a time: lengths and frames split anywhere.
    for (let i = 0; i < frames.length; i += 3) body.write(frames.subarray(i, i + 3));
    body.end();
    assert.equal(await ended, null);
    assert.deepEqual(events, [
      ['ADDED', lease('a')],
      ['MODIFIED', lease('b')],
      // The decoder drops an empty embedded message (the Status's metadata), as it does everywhere.
      ['ERROR', statusWithoutMetadata],
    ]);
  });
});
