/**
 * Where the embedded store's LMDB environment lives. LMDB never gives freed pages back to the file
 * system, so the store shrinks by copying itself into a new environment (a generation) while it
 * runs, and then switching to it: the old one is removed once closed.
 *
 *   <dir>/generation   the current generation's number, as text; absent: generation 0
 *   <dir>              generation 0's environment (data.mdb, lock.mdb): every store starts there
 *   <dir>/gen-<n>      generation n's environment, n ≥ 1
 *
 * The switch is the atomic rename of a new `generation` file, made only once the new environment
 * holds every acknowledged write on disk: a crash before it leaves the old generation current (the
 * half-made copy is removed at the next start), a crash after it the new one.
 */
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';

const pointerFile = 'generation';
const dataFile = 'data.mdb';
const lockFile = 'lock.mdb';
/** What the one-shot start-up copy of an earlier corral left when it stopped half-way. */
const earlierCopyDir = 'compacting';

/** Flushes a file (`r+`) or a directory's entries (`r`) to disk. */
export function fsyncPath(path: string, flags: 'r' | 'r+'): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The directory of generation `n`'s environment in the store `dir`. */
export function generationDir(dir: string, n: number): string {
  return n === 0 ? dir : join(dir, `gen-${n}`);
}

/** The file holding generation `n`'s data (what the store's size is read from). */
export function generationDataFile(dir: string, n: number): string {
  return join(generationDir(dir, n), dataFile);
}

/**
 * The current generation of the store in `dir` (0 for a new store or one of an earlier layout).
 * Throws when the store is damaged (the file names no generation, or one that is not there), rather
 * than let LMDB make an empty store in its place.
 */
export function currentGeneration(dir: string): number {
  const file = join(dir, pointerFile);
  if (!existsSync(file)) return 0;
  const text = readFileSync(file, 'utf8').trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n))
    throw new Error(`the embedded store in ${dir} is damaged: ${file} holds ${JSON.stringify(text)}, not a generation number`);
  if (!existsSync(generationDataFile(dir, n)))
    throw new Error(`the embedded store in ${dir} is damaged: ${file} names generation ${n}, but ${generationDataFile(dir, n)} is missing`);
  return n;
}

/** Whether `dir` holds an embedded store (opening it may still find it damaged: currentGeneration). */
export function embeddedStoreExists(dir: string): boolean {
  return existsSync(join(dir, pointerFile)) || existsSync(join(dir, dataFile));
}

/**
 * Makes generation `n` current, its environment made durable first by the caller: a start opens it
 * from then on. 'not durably' when the switch happened but flushing the directory failed (a crash
 * of the machine could undo it): the caller then keeps the previous generation. Throws when
 * nothing changed.
 */
export function switchGeneration(dir: string, n: number): 'yes' | 'not durably' {
  const file = join(dir, pointerFile);
  const next = `${file}.next`;
  writeFileSync(next, `${n}\n`);
  fsyncPath(next, 'r+');
  renameSync(next, file);
  try {
    fsyncPath(dir, 'r');
    return 'yes';
  } catch {
    return 'not durably';
  }
}

/**
 * Removes generation `n`'s environment (closed already), off the event loop and a slice at a time:
 * unlinking a file of hundreds of MiB at once holds the file system's journal for a tenth of a
 * second (longer where it is mounted with `discard`), and the writes' own flushes wait behind it.
 */
export async function removeGeneration(dir: string, n: number): Promise<void> {
  await removeFileInSlices(generationDataFile(dir, n));
  if (n > 0) await rm(generationDir(dir, n), { recursive: true, force: true });
  else await rm(join(dir, lockFile), { force: true });
}

/** The bytes a removal frees at a time (removeGeneration). */
const removalSliceBytes = 16 * 1024 * 1024;

async function removeFileInSlices(path: string): Promise<void> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return;
  }
  while (size > removalSliceBytes) {
    size -= removalSliceBytes;
    await truncate(path, size);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await rm(path, { force: true });
}

/**
 * Removes every environment but `current`'s: a copy a crash cut short, or the generation a switch
 * left behind when it crashed before removing it.
 */
export function removeOtherGenerations(dir: string, current: number): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const n = /^gen-(\d+)$/.exec(name);
    if (n && Number(n[1]) !== current) rmSync(join(dir, name), { recursive: true, force: true });
  }
  if (current > 0) {
    rmSync(join(dir, dataFile), { force: true });
    rmSync(join(dir, lockFile), { force: true });
  }
  rmSync(join(dir, earlierCopyDir), { recursive: true, force: true });
  rmSync(join(dir, `${pointerFile}.next`), { force: true });
}
