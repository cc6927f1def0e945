/**
 * An API server on the embedded store (no --etcd-servers): kubectl works against it, its data
 * survives a restart and a SIGKILL, and a second API server on the same data dir stops at once.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '../shared/net/free-ports.ts';
import { kubectlEnv, repoRoot, run, terminate, waitReady, writeKubeconfigFor } from './harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'corral-embedded-e2e-'));
const dataDir = join(dir, 'data');
const children: ChildProcess[] = [];
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function startServer(): Promise<{ child: ChildProcess; kubectl: (args: readonly string[]) => ReturnType<typeof run> }> {
  const port = await freePort();
  const fd = openSync(join(dir, 'apiserver.log'), 'a');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'apiserver/main.ts', '--secure-port', String(port), '--bind-address', '127.0.0.1', '--data-dir', dataDir],
    {
      cwd: repoRoot,
      stdio: ['ignore', fd, fd],
    },
  );
  closeSync(fd);
  children.push(child);
  const url = `https://127.0.0.1:${port}`;
  await waitReady(url, dataDir, child);
  const kubeconfig = writeKubeconfigFor(join(dataDir, 'admin.kubeconfig'), url, join(dir, 'kubeconfig'));
  return { child, kubectl: (args) => run('kubectl', args, { env: kubectlEnv(kubeconfig, dir) }) };
}

describe('an API server on the embedded store', { timeout: 180_000 }, () => {
  it('serves kubectl, keeps its data across SIGKILL, and refuses a second server on its data dir', async () => {
    const first = await startServer();
    const created = await first.kubectl(['create', 'configmap', 'kept', '-n', 'default', '--from-literal=a=1']);
    assert.equal(created.code, 0, created.stderr);
    const listed = await first.kubectl(['get', 'clusterroles', '-o', 'name']);
    assert.match(listed.stdout, /clusterrole.rbac.authorization.k8s.io\/cluster-admin/, 'the bootstrap policy is there');

    const second = await run(process.execPath, ['--import', 'tsx', 'apiserver/main.ts', '--secure-port', '0', '--data-dir', dataDir], {
      cwd: repoRoot,
      timeoutMs: 60_000,
    });
    assert.equal(second.code, 1);
    assert.match(second.stderr, /the embedded store in .*db is in use by process \d+: it serves one API server; run replicas on etcd \(--etcd-servers\)/);

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const again = await startServer();
    const got = await again.kubectl(['get', 'configmap', 'kept', '-n', 'default', '-o', 'jsonpath={.data.a}']);
    assert.deepEqual([got.code, got.stdout], [0, '1'], got.stderr);
    await terminate(again.child);
  });
});
