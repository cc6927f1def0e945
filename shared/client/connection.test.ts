/**
 * The client's one connection, against a real API server (embedded store) behind a TCP proxy that
 * counts the connections made through it: requests and watches share one HTTP/2 connection, watches
 * deliver events and end as client-node's Watch contract says.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type RunningApiServer } from '../../apiserver/app.ts';
import { configFromFlags, parseFlags } from '../../apiserver/config.ts';
import { createLogger } from '../../apiserver/server/logging.ts';
import { isStatusError } from '../api/errors.ts';
import { isObject, type KubeObject } from '../api/types.ts';
import { HttpApiClient, type Query } from './api-client.ts';

const configMaps = '/api/v1/namespaces/default/configmaps';

describe('the client connection', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corral-connection-'));
  let server: RunningApiServer;
  let proxy: Server;
  let connections = 0;
  const sockets = new Set<Socket>();
  let kubeconfig: KubeConfig;

  before(async () => {
    const config = configFromFlags(
      parseFlags(['--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`, '--etcd-compaction-interval=0']),
    );
    server = await startApiServer(config, createLogger('error', 'apiserver'));
    const target = new URL(server.url);
    proxy = createServer((socket) => {
      connections++;
      const upstream = connect(Number(target.port), target.hostname);
      sockets.add(socket).add(upstream);
      socket.pipe(upstream).pipe(socket);
      const drop = (): void => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const admin = new KubeConfig();
    admin.loadFromFile(server.kubeconfigPath);
    const cluster = admin.getCurrentCluster();
    assert.ok(cluster);
    kubeconfig = new KubeConfig();
    kubeconfig.loadFromOptions({
      clusters: [{ ...cluster, server: `https://127.0.0.1:${(proxy.address() as AddressInfo).port}` }],
      users: admin.users,
      contexts: [{ name: 'x', cluster: cluster.name, user: admin.getCurrentUser()?.name ?? '' }],
      currentContext: 'x',
    });
  });

  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => proxy.close(resolve));
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `test` with a fresh client, closed afterwards. */
  async function withClient(test: (client: HttpApiClient) => Promise<void>): Promise<void> {
    const client = new HttpApiClient(kubeconfig);
    try {
      await test(client);
    } finally {
      client.close();
    }
  }

  /** Starts a watch and collects what its `done` is called with; `abort` right after it started. */
  async function dones(client: HttpApiClient, query: Query, abort = false): Promise<unknown[]> {
    const seen: unknown[] = [];
    const watching = await client.watch(
      configMaps,
      query,
      () => {},
      (err) => seen.push(err),
    );
    if (abort) watching.abort();
    await until(() => seen.length > 0, 10_000);
    // Called once: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return seen;
  }

  it('carries concurrent requests and a watch on one HTTP/2 connection', () =>
    withClient(async (client) => {
      connections = 0;
      const events: string[] = [];
      const list = await client.list(configMaps);
      const watching = await client.watch(
        configMaps,
        { resourceVersion: list.metadata.resourceVersion },
        (type, object) => {
          if (isObject(object) && isObject(object['metadata'])) events.push(`${type} ${String(object['metadata']['name'])}`);
        },
        () => {},
      );
      const names = Array.from({ length: 20 }, (_, i) => `one-connection-${i}`);
      await Promise.all(names.map((name) => client.create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })));
      await Promise.all(names.map((name) => client.get<KubeObject>(`${configMaps}/${name}`)));
      await until(() => events.length >= names.length);
      assert.deepEqual(events.sort(), names.map((name) => `ADDED ${name}`).sort());
      assert.equal(connections, 1);
      watching.abort();
    }));

  it('ends an aborted watch with done(null), once', () =>
    withClient(async (client) => {
      assert.deepEqual(await dones(client, {}, true), [null]);
    }));

  it('ends a watch the server closes with done(null)', () =>
    withClient(async (client) => {
      assert.deepEqual(await dones(client, { timeoutSeconds: 1 }), [null]);
    }));

  it('ends a refused watch with the server Status, its code where ListWatch looks for it', () =>
    withClient(async (client) => {
      const [err] = await dones(client, { resourceVersion: 'not-a-number' });
      assert.ok(isStatusError(err, 'BadRequest'), String(err));
      assert.equal(err.code, 400);
    }));

  it('answers the server Status of a failed request over HTTP/2', () =>
    withClient(async (client) => {
      await assert.rejects(client.get(`${configMaps}/absent`), (err) => isStatusError(err, 'NotFound') && err.code === 404);
    }));
});

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
