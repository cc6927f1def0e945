/**
 * The embedded backend keeps every acknowledged write: across a clean restart, and when its
 * process is killed with SIGKILL in the middle of writing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
    const child = spawn(process.execPath, ['--import', 'tsx', writer, path], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acknowledged: string[] = [];
    let buffered = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        acknowledged.push(...lines);
        // Killed in the middle of a stream of writes, not after a quiet moment.
        if (acknowledged.length >= 300 && child.exitCode === null) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', (code) => (acknowledged.length < 300 ? reject(new Error(`the writer exited with ${code}`)) : resolve()));
    });
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
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
  });
});
