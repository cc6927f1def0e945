/**
 * The `npm start` contract (start.ts): with nothing else installed it starts one API server on the
 * embedded store of a data dir, prints the admin kubeconfig path, serves kubectl with it, stops on
 * SIGTERM, and a second start on the same data dir resumes the same cluster and data, also after
 * start.ts was killed outright.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../shared/net/free-ports.ts';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { kubectlEnv, processesMentioning, registerCleanup, repoRoot, run, START_TIMEOUT_MS, terminate, waitReady, type CommandResult } from './harness.ts';

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `node --import tsx start.ts --data-dir <dir> --secure-port <port>` and waits for its kubeconfig line. */
async function startCorral(dataDir: string, port: number, track: (c: ChildProcess) => void): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'start.ts', '--data-dir', dataDir, '--secure-port', String(port)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitFor(
    'start.ts to print its kubeconfig',
    () => {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`start.ts exited (${child.exitCode ?? child.signalCode}) before printing its kubeconfig:\n${err}`);
      return /admin kubeconfig: .*\n/.test(out);
    },
    { timeoutMs: START_TIMEOUT_MS, intervalMs: 100, detail: () => `${out}\n${err}` },
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

describe('start.ts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corral-e2e-start-'));
  const dataDir = join(dir, 'data');
  const children: ChildProcess[] = [];
  const unregister = registerCleanup(() => children, dir);
  const kubectl = (args: string[], input?: string): Promise<CommandResult> =>
    run('kubectl', args, { env: kubectlEnv(join(dataDir, 'admin.kubeconfig'), dir), ...(input === undefined ? {} : { input }) });
  let port = 0;
  let first: Started;

  before(
    async () => {
      port = await freePort();
      first = await startCorral(dataDir, port, (c) => children.push(c));
    },
    { timeout: 120_000 },
  );
  after(async () => {
    await Promise.all(children.map((c) => terminate(c)));
    rmSync(dir, { recursive: true, force: true });
    unregister();
  });

  it('prints where it runs and the admin kubeconfig path', () => {
    const kubeconfig = join(dataDir, 'admin.kubeconfig');
    assert.match(first.stdout(), new RegExp(`^corral is running at https://127\\.0\\.0\\.1:${port}$`, 'm'));
    assert.match(first.stdout(), new RegExp(`^admin kubeconfig: ${kubeconfig.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    assert.ok(existsSync(kubeconfig));
    assert.ok(existsSync(join(dataDir, 'pki', 'ca.crt')));
  });

  it('keeps the cluster in the embedded store of the data dir, with no etcd', async () => {
    assert.ok(existsSync(join(dataDir, 'db', 'data.mdb')), 'the embedded store');
    const etcd = (await processesMentioning(dataDir)).filter((line) => /\betcd\b.*--data-dir=/.test(line));
    assert.deepEqual(etcd, [], 'no etcd process');
  });

  it('serves kubectl with the printed kubeconfig', async () => {
    await waitReady(`https://127.0.0.1:${port}`, dataDir, first.child);
    const ns = await kubectl(['get', 'namespaces', '-o', 'name']);
    assert.equal(ns.code, 0, ns.stderr);
    for (const name of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) assert.ok(ns.stdout.split('\n').includes(`namespace/${name}`), ns.stdout);
    const created = await kubectl(
      ['create', '--validate=false', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'survivor', namespace: 'default' }, data: { run: 'first' } }),
    );
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'configmap/survivor created\n');
  });

  it('signs an approved certificate request: the controller manager runs beside the API server', async () => {
    const keyFile = join(dir, 'user.key');
    const csrFile = join(dir, 'user.csr');
    assert.equal((await run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile])).code, 0);
    assert.equal((await run('openssl', ['req', '-new', '-key', keyFile, '-subj', '/CN=alice', '-out', csrFile])).code, 0);
    const request = readFileSync(csrFile).toString('base64');
    const manifest = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'alice' },
      spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
    };
    const created = await kubectl(['create', '-f', '-'], JSON.stringify(manifest));
    assert.equal(created.code, 0, created.stderr);
    assert.equal((await kubectl(['certificate', 'approve', 'alice'])).code, 0);
    await waitFor('the certificate of alice', async () => (await kubectl(['get', 'csr', 'alice', '-o', 'jsonpath={.status.certificate}'])).stdout.length > 0, {
      detail: () => first.stdout().slice(-2000),
    });
    const lease = await kubectl(['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}']);
    assert.notEqual(lease.stdout, '', 'the controller manager holds its lease');
  });

  it('SIGTERM stops it, exit 0', { timeout: 60_000 }, async () => {
    first.child.kill('SIGTERM');
    const { code, signal } = await first.exited;
    assert.equal(signal, null);
    assert.equal(code, 0, first.stderr());
    assert.deepEqual(await processesMentioning(dataDir), [], 'no process of this data dir is left');
    const refused = await kubectl(['get', 'namespaces', '--request-timeout=5s']);
    assert.notEqual(refused.code, 0);
  });

  it('a second start on the same data dir resumes the cluster and its data', { timeout: 120_000 }, async () => {
    const second = await startCorral(dataDir, port, (c) => children.push(c));
    const cm = await kubectl(['get', 'configmap', 'survivor', '-n', 'default', '-o', 'jsonpath={.data.run}']);
    assert.equal(cm.code, 0, cm.stderr);
    assert.equal(cm.stdout, 'first');
    second.child.kill('SIGTERM');
    assert.deepEqual(await second.exited, { code: 0, signal: null });
    assert.deepEqual(await processesMentioning(dataDir), []);
  });

  it('after a SIGKILL of start.ts, the next start recovers by itself with every acknowledged write', { timeout: 120_000 }, async () => {
    const crashed = await startCorral(dataDir, port, (c) => children.push(c));
    const written = await kubectl(['create', 'configmap', 'last-words', '-n', 'default', '--from-literal=a=1']);
    assert.equal(written.code, 0, written.stderr);
    crashed.child.kill('SIGKILL');
    await crashed.exited;
    const next = await startCorral(dataDir, port, (c) => children.push(c));
    for (const [name, key, value] of [
      ['survivor', 'run', 'first'],
      ['last-words', 'a', '1'],
    ] as const) {
      const cm = await kubectl(['get', 'configmap', name, '-n', 'default', '-o', `jsonpath={.data.${key}}`]);
      assert.deepEqual([cm.code, cm.stdout], [0, value], cm.stderr);
    }
    next.child.kill('SIGTERM');
    assert.deepEqual(await next.exited, { code: 0, signal: null });
  });
});
