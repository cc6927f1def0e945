/**
 * Where the embedded store's environment lives (generations.ts): the pointer to the current
 * generation, a damaged one refused rather than replaced by an empty store, what a start removes,
 * and a removal in slices.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { currentGeneration, embeddedStoreExists, generationDataFile, removeGeneration, removeOtherGenerations, switchGeneration } from './generations.ts';

const root = mkdtempSync(join(tmpdir(), 'corral-embedded-generations-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const newDir = (): string => {
  const dir = join(root, `store-${dirs++}`);
  mkdirSync(dir);
  return dir;
};
const makeGeneration = (dir: string, n: number): void => {
  mkdirSync(join(dir, `gen-${n}`), { recursive: true });
  writeFileSync(generationDataFile(dir, n), 'data');
};

describe('the embedded store’s generations', () => {
  it('reads generation 0 where there is no pointer, and the one the pointer names after a switch', () => {
    const dir = newDir();
    assert.equal(embeddedStoreExists(dir), false);
    assert.equal(currentGeneration(dir), 0);
    writeFileSync(join(dir, 'data.mdb'), 'data');
    assert.equal(embeddedStoreExists(dir), true);
    makeGeneration(dir, 1);
    assert.equal(switchGeneration(dir, 1), 'yes');
    assert.equal(currentGeneration(dir), 1);
    assert.deepEqual(readdirSync(dir).sort(), ['data.mdb', 'gen-1', 'generation']);
  });

  it('refuses a pointer that names no generation, or one that is missing, rather than start empty', () => {
    const dir = newDir();
    writeFileSync(join(dir, 'generation'), 'two\n');
    assert.throws(() => currentGeneration(dir), {
      message: `the embedded store in ${dir} is damaged: ${join(dir, 'generation')} holds "two", not a generation number`,
    });
    writeFileSync(join(dir, 'generation'), '3\n');
    assert.throws(() => currentGeneration(dir), {
      message: `the embedded store in ${dir} is damaged: ${join(dir, 'generation')} names generation 3, but ${join(dir, 'gen-3', 'data.mdb')} is missing`,
    });
  });

  it('removes at start every environment but the current one: a copy cut short, a generation left behind', () => {
    const dir = newDir();
    writeFileSync(join(dir, 'data.mdb'), 'data');
    writeFileSync(join(dir, 'lock.mdb'), 'lock');
    writeFileSync(join(dir, 'owner.pid'), '1');
    makeGeneration(dir, 2);
    makeGeneration(dir, 3);
    switchGeneration(dir, 2);
    writeFileSync(join(dir, 'generation.next'), '3\n');
    mkdirSync(join(dir, 'compacting'));
    removeOtherGenerations(dir, currentGeneration(dir));
    assert.deepEqual(readdirSync(dir).sort(), ['gen-2', 'generation', 'owner.pid']);

    // On generation 0, the copies go and the store stays.
    const first = newDir();
    writeFileSync(join(first, 'data.mdb'), 'data');
    makeGeneration(first, 1);
    removeOtherGenerations(first, currentGeneration(first));
    assert.deepEqual(readdirSync(first), ['data.mdb']);
  });

  it('removes a large file in slices, and generation 0 without the directory around it', async () => {
    const dir = newDir();
    makeGeneration(dir, 1);
    truncateSync(generationDataFile(dir, 1), 100 * 1024 * 1024);
    await removeGeneration(dir, 1);
    assert.equal(existsSync(join(dir, 'gen-1')), false);

    writeFileSync(join(dir, 'data.mdb'), 'data');
    writeFileSync(join(dir, 'lock.mdb'), 'lock');
    writeFileSync(join(dir, 'owner.pid'), '1');
    await removeGeneration(dir, 0);
    assert.deepEqual(readdirSync(dir), ['owner.pid']);
  });
});
