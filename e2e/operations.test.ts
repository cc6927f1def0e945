/**
 * Operating replicas: a rolling restart of one of two replicas under client load loses no write
 * the clients were told succeeded (clients retry on connection errors against the other replica),
 * the restarted replica exits 0 after ending its watches cleanly; and `npm start` shuts its API
 * server down gracefully.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { skipUnlessEtcd } from '../shared/etcd/availability.ts';
import { freePort } from '../shared/net/free-ports.ts';
import { adminTls, registerCleanup, repoRoot, run, START_TIMEOUT_MS, startCluster, terminate, waitReady, type Cluster } from './harness.ts';

interface Outcome {
  status: number;
  text: string;
}

/** Errors that say the connection, not the server's answer, failed: the request may be retried elsewhere. */
function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ERR_STREAM_PREMATURE_CLOSE'].includes(code) || /socket hang up/.test(String(err));
}

describe('rolling restart of one of two replicas under load', { timeout: 240_000, skip: skipUnlessEtcd() }, () => {
  let cluster: Cluster;
  let restarted: ChildProcess | undefined;
  const extraArgs = ['--shutdown-delay-duration=1s'];

  before(async () => {
    cluster = await startCluster({ replicas: 2, apiserverArgs: extraArgs });
  });

  after(async () => {
    if (restarted) await terminate(restarted);
    await cluster?.stop();
  });

  it('loses no acknowledged write, and the stopped replica drains, ends its watches and exits 0', async () => {
    const tls = adminTls(cluster.dataDir);
    const agents = cluster.replicas.map(() => new Agent({ keepAlive: true, maxSockets: 4, ca: tls.ca, cert: tls.cert, key: tls.key }));
    const post = (replica: number, name: string): Promise<Outcome> =>
      new Promise((resolve, reject) => {
        const url = new URL(cluster.urls[replica]!);
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { writer: name } });
        const req = httpsRequest(
          {
            hostname: url.hostname,
            port: url.port,
            path: '/api/v1/namespaces/default/configmaps',
            method: 'POST',
            agent: agents[replica],
            headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), accept: 'application/json' },
            timeout: 30_000,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.once('error', reject);
            res.once('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          },
        );
        req.once('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
        req.once('error', reject);
        req.end(body);
      });

    const acknowledged = new Set<string>();
    const unexpected: string[] = [];
    let connectionFailures = 0;
    let running = true;

    /** One client: writes named ConfigMaps round-robin across replicas, retrying connection failures on the other one. */
    const client = async (id: number): Promise<void> => {
      for (let i = 0; running; i++) {
        const name = `roll-${id}-${i}`;
        let replica = (id + i) % 2;
        let retried = false;
        for (let attempt = 0; attempt < 20; attempt++) {
          let outcome: Outcome;
          try {
            outcome = await post(replica, name);
          } catch (err) {
            if (!isConnectionError(err)) {
              unexpected.push(`${name}: ${String(err)}`);
              break;
            }
            connectionFailures++;
            retried = true;
            replica = 1 - replica;
            await sleep(20);
            continue;
          }
          if (outcome.status === 201 || (outcome.status === 409 && retried && outcome.text.includes('AlreadyExists'))) acknowledged.add(name);
          else unexpected.push(`${name}: ${outcome.status} ${outcome.text}`);
          break;
        }
      }
    };

    // A watch on the replica about to restart must end cleanly, not be cut.
    const watchEnded = new Promise<string>((resolve, reject) => {
      const url = new URL(cluster.urls[1]!);
      const req = httpsRequest(
        {
          hostname: url.hostname,
          port: url.port,
          path: '/api/v1/namespaces/default/configmaps?watch=true',
          ca: tls.ca,
          cert: tls.cert,
          key: tls.key,
          agent: false,
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve('end'));
          res.once('aborted', () => resolve('aborted'));
          res.once('error', (err) => resolve(`error ${err.message}`));
        },
      );
      req.once('error', reject);
      req.end();
    });

    const clients = [0, 1, 2, 3].map((id) => client(id));
    await sleep(1500);
    const old = cluster.replicas[1]!;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      old.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const before = acknowledged.size;
    await terminate(old.child, 30_000);
    assert.deepEqual(await exited, { code: 0, signal: null }, readFileSync(old.logFile, 'utf8').split('\n').slice(-20).join('\n'));
    assert.equal(await watchEnded, 'end');
    assert.ok(acknowledged.size > before, 'writes went on while the replica stopped');

    // Bring it back on the same port, as a rolling restart does.
    const fd = openSync(old.logFile, 'a');
    restarted = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'apiserver/main.ts',
        '--etcd-servers',
        cluster.etcd.endpoints.join(','),
        '--secure-port',
        String(old.port),
        '--bind-address',
        '127.0.0.1',
        '--data-dir',
        cluster.dataDir,
        ...extraArgs,
      ],
      { cwd: repoRoot, stdio: ['ignore', fd, fd] },
    );
    closeSync(fd);
    const child = restarted;
    const restartDir = mkdtempSync(join(tmpdir(), 'corral-e2e-restart-'));
    const unregister = registerCleanup(() => [child], restartDir);
    await waitReady(old.url, cluster.dataDir, restarted, START_TIMEOUT_MS, 'restarted replica 1');
    const afterRestart = acknowledged.size;
    await sleep(1500);
    running = false;
    await Promise.all(clients);
    for (const agent of agents) agent.destroy();
    assert.ok(acknowledged.size > afterRestart, 'writes went on after the restart');

    assert.deepEqual(unexpected, []);
    const list = await cluster.request({ path: '/api/v1/namespaces/default/configmaps', replica: 1 });
    assert.equal(list.status, 200);
    const stored = new Set((list.json() as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name));
    const lost = [...acknowledged].filter((name) => !stored.has(name));
    assert.deepEqual(lost, [], `acknowledged but missing (of ${acknowledged.size}, ${connectionFailures} connection failures retried)`);
    const log = readFileSync(old.logFile, 'utf8');
    assert.match(log, /"msg":"requests in flight drained"/);
    assert.match(log, /"msg":"shutdown complete"/);
    await terminate(restarted);
    unregister();
    rmSync(restartDir, { recursive: true, force: true });
  });
});

describe('npm start on SIGTERM', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'corral-e2e-start-order-'));
  const children: ChildProcess[] = [];
  const unregister = registerCleanup(() => children, dir);

  after(() => {
    unregister();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shuts the API server down gracefully and exits 0', async () => {
    const port = await freePort();
    const dataDir = join(dir, 'data');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'start.ts', '--data-dir', dataDir, '--secure-port', String(port), '--shutdown-delay-duration=500ms'],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    let out = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitReady(`https://127.0.0.1:${port}`, dataDir, child, START_TIMEOUT_MS, 'start.ts');
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    const messages = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; name: string })
      .map((l) => `${l.name}: ${l.msg}`);
    const order = ['apiserver: shutdown initiated: /readyz fails from now on', 'apiserver: shutdown complete'];
    assert.deepEqual(
      messages.filter((m) => order.includes(m)),
      order,
    );
    const left = await run('pgrep', ['-f', dataDir]);
    assert.equal(left.stdout, '', 'no process of this data dir is left');
  });
});
