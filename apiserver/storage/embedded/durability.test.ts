/**
 * The embedded backend keeps every acknowledged write: across a clean restart, and when its
 * process is killed with SIGKILL in the middle of writing, also while it copies itself into new
 * files (shrink).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EmbeddedStore } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'corral-embedded-durability-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const writer = fileURLToPath(new URL('../../testing/embedded-writer.ts', import.meta.url));

describe('the embedded backend on disk', () => {
  it('keeps objects and revisions across a restart', async () => {
    const path = join(dir, 'restart');
    const first = new EmbeddedStore(path);
    const created = await first.create(first.key('configmaps', 'default', 'a'), { metadata: { name: 'a', namespace: 'default' }, data: { v: '1' } });
    await first.close();
    const second = new EmbeddedStore(path);
    try {
      assert.equal((await second.get(second.key('configmaps', 'default', 'a')))?.modRevision, created.modRevision);
      const next = await second.create(second.key('configmaps', 'default', 'b'), { metadata: { name: 'b', namespace: 'default' } });
      assert.equal(next.modRevision, created.modRevision + 1, 'the revision counter continues');
    } finally {
      await second.close();
    }
  });

  it('keeps every acknowledged write when its process is killed with SIGKILL', async () => {
    const path = join(dir, 'killed');
    const { acknowledged } = await killWriter(path, [], (acks) => acks >= 300);
    await assertAcknowledgedWritesKept(path, acknowledged);
  });

  it('keeps every acknowledged write when killed while copying itself into new files (shrink)', async () => {
    const path = join(dir, 'killed-shrinking');
    const { acknowledged, shrinks } = await killWriter(path, ['--shrink'], (acks, shrunk) => acks >= 300 && shrunk >= 3);
    assert.ok(shrinks >= 3, `${shrinks} shrinks before the kill`);
    await assertAcknowledgedWritesKept(path, acknowledged);
    // The start removed the copy the kill cut short: one environment, the current generation's.
    const generations = readdirSync(path).filter((name) => name.startsWith('gen-'));
    assert.ok(generations.length <= 1, `environments left: ${generations.join(', ')}`);
  });
});

/**
 * Runs the writer child on `path` and kills it with SIGKILL once `until` holds for the writes it
 * acknowledged and the shrinks it finished, in the middle of its stream of writes.
 */
async function killWriter(
  path: string,
  args: string[],
  until: (acknowledged: number, shrinks: number) => boolean,
): Promise<{ acknowledged: string[]; shrinks: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', writer, path, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acknowledged: string[] = [];
  let shrinks = 0;
  let buffered = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'shrunk') shrinks++;
        else acknowledged.push(line);
      }
      if (until(acknowledged.length, shrinks) && child.exitCode === null) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.once('exit', (code) => (until(acknowledged.length, shrinks) ? resolve() : reject(new Error(`the writer exited with ${code}`))));
  });
  await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
  return { acknowledged, shrinks };
}

async function assertAcknowledgedWritesKept(path: string, acknowledged: string[]): Promise<void> {
  const store = new EmbeddedStore(path);
  try {
    const missing: string[] = [];
    for (const key of acknowledged) if (!(await store.get(key))) missing.push(key);
    assert.deepEqual(missing, [], 'acknowledged writes lost');
    const listed = await store.range(store.collectionPrefix('configmaps', 'default'));
    assert.ok(listed.count >= acknowledged.length, 'the store reads whole');
  } finally {
    await store.close();
  }
}
