/**
 * HttpApiClient with contentType protobuf, as the node agent runs it: against a real API server
 * behind a recording proxy (which adds the admin's credentials and notes each request's headers
 * and each answer's Content-Type), objects of the client's kinds go out and come back in protobuf,
 * errors arrive as protobuf Statuses, patches stay JSON, and other kinds are spoken in JSON.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type RunningApiServer } from '../../apiserver/app.ts';
import { configFromFlags, parseFlags } from '../../apiserver/config.ts';
import { createLogger } from '../../apiserver/server/logging.ts';
import { isStatusError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { HttpApiClient } from './api-client.ts';

const protobuf = 'application/vnd.kubernetes.protobuf';
const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const nodes = '/api/v1/nodes';

/** What the Node test reads of a Node. */
type NodeShape = KubeObject & {
  spec?: { podCIDRs?: string[] };
  status?: { capacity?: unknown; conditions?: unknown; addresses?: unknown; nodeInfo?: { kubeletVersion?: string } };
};

interface Exchange {
  method: string;
  path: string;
  contentType: string | undefined;
  accept: string | undefined;
  answer: string | undefined;
}

/** A plain-HTTP proxy to the API server that presents `credentials` and records every exchange. */
function recordingProxy(target: URL, credentials: RequestOptions, exchanges: Exchange[]): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const exchange: Exchange = {
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        accept: req.headers.accept,
        answer: undefined,
      };
      exchanges.push(exchange);
      const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
      const upstream = httpsRequest(
        {
          hostname: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...headers, ...credentials.headers },
          ca: credentials.ca,
          cert: credentials.cert,
          key: credentials.key,
        },
        (answer) => {
          exchange.answer = answer.headers['content-type'];
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          // A watch's headers come before any event: pass them on at once.
          res.flushHeaders();
          answer.pipe(res);
        },
      );
      upstream.on('error', (err) => res.destroy(err));
      upstream.end(Buffer.concat(chunks));
    });
  });
}

describe('HttpApiClient in protobuf against an API server', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'corral-client-protobuf-'));
  const exchanges: Exchange[] = [];
  let server: RunningApiServer | undefined;
  let proxy: Server | undefined;
  let client: HttpApiClient;
  /** The same proxy in JSON, to compare with. */
  let jsonClient: HttpApiClient;

  /** The exchanges of what `run` does. */
  async function recorded(run: () => Promise<unknown>): Promise<Exchange[]> {
    const from = exchanges.length;
    await run();
    return exchanges.slice(from);
  }

  before(async () => {
    const config = configFromFlags(
      parseFlags(['--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`, '--etcd-compaction-interval=0']),
    );
    server = await startApiServer(config, createLogger('error', 'apiserver'));
    const admin = new KubeConfig();
    admin.loadFromFile(server.kubeconfigPath);
    const credentials: RequestOptions = { headers: {} };
    await admin.applyToHTTPSOptions(credentials);
    proxy = recordingProxy(new URL(server.url), credentials, exchanges);
    await new Promise<void>((resolve) => proxy?.listen(0, '127.0.0.1', resolve));
    const address = proxy.address();
    if (!address || typeof address === 'string') throw new Error('the proxy has no port');
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${(address satisfies AddressInfo).port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    client = new HttpApiClient(kubeconfig, { contentType: protobuf });
    jsonClient = new HttpApiClient(kubeconfig);
  });

  after(async () => {
    client.close();
    jsonClient.close();
    await new Promise((resolve) => proxy?.close(resolve));
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, updates and reads a Lease in protobuf', async () => {
    const spec = { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2025-01-02T03:04:05.123456Z' };
    let created: KubeObject | undefined;
    const [create] = await recorded(async () => {
      created = await client.create(leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'n1' }, spec });
    });
    assert.deepEqual(
      { contentType: create?.contentType, accept: create?.accept, answer: create?.answer },
      { contentType: protobuf, accept: `${protobuf},application/json`, answer: protobuf },
    );
    assert.ok(created);
    const lease = created;
    assert.equal(lease.apiVersion, 'coordination.k8s.io/v1', 'apiVersion and kind come from the envelope');
    assert.equal(lease.kind, 'Lease');
    assert.deepEqual(lease['spec'], spec);
    assert.ok(lease.metadata.uid);

    const renewed = { ...spec, renewTime: '2025-01-02T03:04:15.000001Z', leaseTransitions: 0 };
    const [update] = await recorded(() => client.update(`${leases}/n1`, { ...lease, spec: renewed }));
    assert.equal(update?.method, 'PUT');
    assert.equal(update?.contentType, protobuf);
    const got = await client.get(`${leases}/n1`);
    assert.deepEqual(got['spec'], renewed, 'an explicit zero of a pointer field survives');

    const [list] = await recorded(async () => {
      const listed = await client.list(leases);
      assert.deepEqual(
        listed.items.map((l) => l.metadata.name),
        ['n1'],
      );
      assert.equal(listed.kind, 'LeaseList');
    });
    assert.equal(list?.answer, protobuf);

    const [deletion] = await recorded(() => client.delete(`${leases}/n1`, { preconditions: { uid: got.metadata.uid } }));
    assert.equal(deletion?.contentType, protobuf, 'DeleteOptions go in protobuf too');
    await assert.rejects(client.get(`${leases}/n1`), (err) => isStatusError(err, 'NotFound'));
  });

  it('registers a Node with its status and patches the status in JSON', async () => {
    const status = {
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: '2025-01-02T03:04:05Z', lastTransitionTime: '2025-01-02T03:04:05Z' },
      ],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      nodeInfo: { kubeletVersion: 'v1.32.0', architecture: 'amd64', operatingSystem: 'linux' },
    };
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } },
      spec: { podCIDR: '10.1.0.0/24' },
      status,
    };
    const [create] = await recorded(() => client.create(nodes, node));
    assert.equal(create?.contentType, protobuf);
    const got = await client.get<NodeShape>(`${nodes}/n1`);
    assert.deepEqual(got.metadata.labels, node.metadata.labels);
    assert.deepEqual(got.spec?.podCIDRs, ['10.1.0.0/24']);
    assert.deepEqual(got.status?.capacity, status.capacity);
    assert.deepEqual(got.status?.conditions, status.conditions);
    assert.equal(got.status?.nodeInfo?.kubeletVersion, 'v1.32.0');

    let patched: NodeShape | undefined;
    const [patch] = await recorded(async () => {
      patched = await client.patch<NodeShape>(`${nodes}/n1/status`, 'strategic', { status: { addresses: [{ type: 'Hostname', address: 'n1' }] } });
    });
    assert.deepEqual(
      { contentType: patch?.contentType, accept: patch?.accept, answer: patch?.answer },
      { contentType: 'application/strategic-merge-patch+json', accept: `${protobuf},application/json`, answer: protobuf },
    );
    assert.deepEqual(patched?.status?.addresses, [
      { type: 'Hostname', address: 'n1' },
      { type: 'InternalIP', address: '10.0.0.1' },
    ]);
  });

  it('turns an error Status in protobuf into the StatusError the server made', async () => {
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'twice' }, spec: {} };
    await client.create(leases, lease);
    const [failed] = await recorded(() =>
      assert.rejects(client.create(leases, lease), (err) => {
        assert.ok(isStatusError(err, 'AlreadyExists'));
        assert.equal(err.status.code, 409);
        assert.equal(err.status.message, 'leases.coordination.k8s.io "twice" already exists');
        assert.deepEqual(err.status.details, { name: 'twice', group: 'coordination.k8s.io', kind: 'leases' });
        return true;
      }),
    );
    assert.equal(failed?.answer, protobuf);
    const [invalid] = await recorded(() =>
      assert.rejects(client.create(leases, { ...lease, metadata: { name: 'bad' }, spec: { leaseDurationSeconds: -1 } }), (err) => {
        assert.ok(isStatusError(err, 'Invalid'));
        assert.equal(err.status.code, 422);
        assert.equal(err.status.details?.causes?.[0]?.field, 'spec.leaseDurationSeconds');
        return true;
      }),
    );
    assert.equal(invalid?.answer, protobuf);
  });

  it('speaks JSON for kinds outside its table', async () => {
    const configMaps = '/api/v1/namespaces/default/configmaps';
    const [create] = await recorded(() => client.create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }));
    assert.deepEqual(
      { contentType: create?.contentType, accept: create?.accept, answer: create?.answer },
      { contentType: 'application/json', accept: 'application/json', answer: 'application/json' },
    );
    const [missing] = await recorded(() => assert.rejects(client.get(`${configMaps}/none`), (err) => isStatusError(err, 'NotFound')));
    assert.equal(missing?.answer, 'application/json');
  });

  it('watches a kind of its table as a protobuf stream, whose events are the objects JSON gives', async () => {
    const list = await client.list(leases);
    const events: [string, unknown][] = [];
    const from = exchanges.length;
    const watching = await client.watch(
      leases,
      { resourceVersion: list.metadata.resourceVersion },
      (type, object) => events.push([type, object]),
      () => {},
    );
    try {
      const spec = { holderIdentity: 'w', leaseDurationSeconds: 40 };
      await client.create(leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'watched' }, spec });
      const deadline = Date.now() + 10_000;
      while (events.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const watch = exchanges.slice(from).find((e) => e.path.includes('watch=true'));
      assert.deepEqual({ accept: watch?.accept, answer: watch?.answer }, { accept: `${protobuf},application/json`, answer: `${protobuf};stream=watch` });
      const json = await jsonClient.get(`${leases}/watched`);
      assert.deepEqual(events, [['ADDED', json]]);
    } finally {
      watching.abort();
    }
  });

  it('ends a refused watch with the protobuf Status the server sent, its reason kept', async () => {
    const from = exchanges.length;
    const ended = new Promise<unknown>((resolve) => void client.watch(leases, { resourceVersion: 'not-a-number' }, () => {}, resolve));
    const err = await ended;
    assert.ok(isStatusError(err, 'BadRequest'), String(err));
    assert.equal(err.status.code, 400);
    assert.equal(exchanges.slice(from).find((e) => e.path.includes('watch=true'))?.answer, protobuf);
  });
});
