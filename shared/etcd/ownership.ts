/**
 * Who runs the etcd of a data dir, so that an etcd child never outlives the process that started
 * it and a start after a crash recovers by itself.
 *
 * Three layers, because no single one covers every way a parent dies:
 * - on Linux the child is started under `setpriv --pdeathsig SIGTERM`, so the kernel stops it when
 *   its parent dies, even by SIGKILL;
 * - a parent that exits through Node (process.exit, an uncaught error) stops its children on `exit`;
 * - `<dataDir>/owner.json` names the etcd and its owner: a start that finds an etcd whose owner is
 *   gone stops that etcd before starting its own (otherwise the stale member holds the data dir's
 *   lock and the new one never becomes healthy), and refuses while the owner still runs.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';

interface Ownership {
  etcdPid: number;
  ownerPid: number;
}

const ownershipFile = (dataDir: string): string => join(dataDir, 'owner.json');

/** Whether a process with this id exists (EPERM: it exists, under another user). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command line of a process, where /proc tells it. */
function commandLineOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

function readOwnership(dataDir: string): Ownership | undefined {
  try {
    const value = JSON.parse(readFileSync(ownershipFile(dataDir), 'utf8')) as Partial<Ownership>;
    if (typeof value.etcdPid === 'number' && typeof value.ownerPid === 'number') return { etcdPid: value.etcdPid, ownerPid: value.ownerPid };
  } catch {
    // absent or unreadable: nothing to reclaim
  }
  return undefined;
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processExists(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * Makes the data dir free for a new etcd: an etcd left by an owner that is gone is stopped
 * (SIGTERM, then SIGKILL). Throws when the owner still runs. A recorded pid is only signalled when
 * its command line shows the etcd of this data dir, so a reused pid is never hit.
 */
export async function reclaimDataDir(dataDir: string, etcdDataDir: string): Promise<void> {
  const recorded = readOwnership(dataDir);
  if (!recorded) return;
  const { etcdPid, ownerPid } = recorded;
  if (ownerPid !== process.pid && processExists(ownerPid) && processExists(etcdPid)) {
    throw new Error(`the etcd data dir ${etcdDataDir} is in use by etcd (pid ${etcdPid}) of process ${ownerPid}; stop that process first`);
  }
  const commandLine = processExists(etcdPid) ? commandLineOf(etcdPid) : undefined;
  if (commandLine?.includes(`--data-dir=${etcdDataDir}`)) {
    process.kill(etcdPid, 'SIGTERM');
    if (!(await waitForExit(etcdPid, 10_000))) {
      process.kill(etcdPid, 'SIGKILL');
      await waitForExit(etcdPid, 5_000);
    }
  }
  rmSync(ownershipFile(dataDir), { force: true });
}

/** Records that this process owns `child`, the etcd of `dataDir`, until it exits. */
export function recordOwnership(dataDir: string, child: ChildProcess): void {
  if (child.pid === undefined) return;
  const record: Ownership = { etcdPid: child.pid, ownerPid: process.pid };
  writeFileSync(ownershipFile(dataDir), JSON.stringify(record));
  liveChildren.add(child);
  child.once('exit', () => {
    liveChildren.delete(child);
    if (readOwnership(dataDir)?.etcdPid === record.etcdPid) rmSync(ownershipFile(dataDir), { force: true });
  });
}

/** The etcd children of this process that still run; stopped when the process exits. */
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGTERM');
});

/** The program and arguments that start `command` so that it gets SIGTERM when this process dies (Linux). */
export function tiedToParent(command: string, args: string[]): { command: string; args: string[] } {
  if (process.platform === 'linux' && existsSync('/usr/bin/setpriv'))
    return { command: '/usr/bin/setpriv', args: ['--pdeathsig', 'SIGTERM', '--', command, ...args] };
  return { command, args };
}
