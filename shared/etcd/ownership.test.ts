import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processExists, reclaimDataDir } from './ownership.ts';

/** A process that looks like the etcd of `etcdDataDir` (its command line names the data dir). */
function fakeEtcd(etcdDataDir: string): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', `--data-dir=${etcdDataDir}`], { stdio: 'ignore' });
}

/** A pid that ran a moment ago and no longer does. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 0;
}

test('an etcd whose owner is gone is stopped, so a new one can take the data dir', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'corral-ownership-'));
  const stale = fakeEtcd(join(dir, 'data'));
  try {
    writeFileSync(join(dir, 'owner.json'), JSON.stringify({ etcdPid: stale.pid, ownerPid: await deadPid() }));
    await reclaimDataDir(dir, join(dir, 'data'));
    assert.equal(processExists(stale.pid ?? 0), false);
    assert.equal(existsSync(join(dir, 'owner.json')), false);
  } finally {
    stale.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an etcd whose owner still runs is left alone and the start refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'corral-ownership-'));
  const running = fakeEtcd(join(dir, 'data'));
  const owner = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    writeFileSync(join(dir, 'owner.json'), JSON.stringify({ etcdPid: running.pid, ownerPid: owner.pid }));
    await assert.rejects(reclaimDataDir(dir, join(dir, 'data')), /is in use by etcd \(pid \d+\) of process \d+; stop that process first/);
    assert.equal(processExists(running.pid ?? 0), true);
  } finally {
    running.kill('SIGKILL');
    owner.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a recorded pid that is not this data dir's etcd (a reused pid) is never signalled", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'corral-ownership-'));
  const other = fakeEtcd(join(dir, 'elsewhere'));
  try {
    writeFileSync(join(dir, 'owner.json'), JSON.stringify({ etcdPid: other.pid, ownerPid: await deadPid() }));
    await reclaimDataDir(dir, join(dir, 'data'));
    assert.equal(processExists(other.pid ?? 0), true);
  } finally {
    other.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
