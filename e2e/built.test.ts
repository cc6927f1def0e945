/**
 * The built artifact (`npm run build`, which `npm test` runs first): `node dist/cli.js start` is one
 * plain node process on compiled JavaScript that serves the cluster, and SIGTERM sent to its whole
 * process group, as systemd and container runtimes send it, ends in one graceful shutdown, exit code
 * 0 and nothing left behind. `corral --help` exits 0 and an unknown subcommand exits non-zero.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../shared/net/free-ports.ts';
import { kubectlEnv, processesMentioning, registerCleanup, repoRoot, run, terminate, waitReady } from './harness.ts';

const cli = join(repoRoot, 'dist', 'cli.js');

describe('dist/cli.js (npm run build)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corral-e2e-built-'));
  const dataDir = join(dir, 'data');
  const children: ChildProcess[] = [];
  const unregister = registerCleanup(() => children, dir);

  before(() => {
    assert.ok(existsSync(cli), `${cli} is missing: run \`npm run build\` first (\`npm test\` does)`);
  });
  after(async () => {
    // A failed test may leave the group running.
    await Promise.all(children.map((c) => terminate(c)));
    rmSync(dir, { recursive: true, force: true });
    unregister();
  });

  it('--help lists the subcommands and exits 0', async () => {
    const help = await run(process.execPath, [cli, '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: corral <command>/);
    assert.match(help.stdout, /^ {2}start /m);
    assert.match(help.stdout, /^ {2}apiserver /m);
  });

  it('an unknown subcommand exits non-zero and says so', async () => {
    const bogus = await run(process.execPath, [cli, 'bogus']);
    assert.notEqual(bogus.code, 0);
    assert.match(bogus.stderr, /unknown command "bogus"/);
  });

  it('start serves the cluster and SIGTERM to its process group shuts it down once, exit 0, nothing left', { timeout: 120_000 }, async () => {
    const port = await freePort();
    // Its own process group (detached), so that the group signal below reaches it only, as a
    // supervisor's signal to the service's processes would.
    const child = spawn(process.execPath, [cli, 'start', '--data-dir', dataDir, '--secure-port', String(port)], {
      cwd: repoRoot,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );

    await waitReady(`https://127.0.0.1:${port}`, dataDir, child, undefined, 'dist/cli.js start');
    const ns = await run('kubectl', ['get', 'namespace', 'default', '-o', 'name'], { env: kubectlEnv(join(dataDir, 'admin.kubeconfig'), dir) });
    assert.equal(ns.code, 0, ns.stderr);
    assert.equal(ns.stdout, 'namespace/default\n');

    const pid = child.pid;
    assert.ok(pid !== undefined);
    process.kill(-pid, 'SIGTERM');
    assert.deepEqual(await exited, { code: 0, signal: null }, `${out}\n${err}`);
    // Each line of the JSON log is one event; a second signal would have meant exit 1 instead.
    assert.equal(out.split('\n').filter((line) => line.includes('"shutdown complete"')).length, 1, out);
    assert.deepEqual(await processesMentioning(dataDir), [], 'no process of this data dir is left');
  });
});
