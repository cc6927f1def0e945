/**
 * The command line of the benchmarks: the flags they have in common, flag value checks, and the
 * `main` that parses the flags, runs a benchmark under a deadline and signal handlers, and undoes
 * what it started however it ends.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterOptions } from './cluster.ts';
import { Cleanup } from './lib.ts';

/** `text` as an integer ≥ `min`; throws naming `--flag` otherwise. */
export function positiveInt(text: string, flag: string, min = 1): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${min}, got ${JSON.stringify(text)}`);
  return n;
}

/** `--cpu-prof`, `--cpu-prof-dir DIR` and `--help`, as node:util parseArgs options. */
export const profileFlags = {
  'cpu-prof': { type: 'boolean', default: false },
  'cpu-prof-dir': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

/** `--keep` (keep the temp dir), as a node:util parseArgs option. */
export const keepFlag = { keep: { type: 'boolean', default: false } } as const;

/**
 * Where the CPU profile goes: `--cpu-prof-dir` (made if missing: the profiled process writes its
 * source maps there as it exits, before Node would make it for the profile), or a new
 * /tmp/corral-prof-* dir for a bare `--cpu-prof`; undefined when not profiling.
 */
export function profileDir(values: { 'cpu-prof': boolean; 'cpu-prof-dir'?: string | undefined }): string | undefined {
  const dir = values['cpu-prof-dir'];
  if (dir !== undefined) {
    mkdirSync(dir, { recursive: true });
    return dir;
  }
  return values['cpu-prof'] ? mkdtempSync(join(tmpdir(), 'corral-prof-')) : undefined;
}

/** The options of `profileFlags` and `keepFlag` of a benchmark that starts its own cluster. */
export function clusterOptions(values: { 'cpu-prof': boolean; 'cpu-prof-dir'?: string | undefined; keep: boolean }): ClusterOptions {
  return { cpuProfileDir: profileDir(values), keep: values.keep };
}

/** The usage lines of `profileFlags` and `keepFlag` for a cluster benchmark, descriptions at column `width` + 2. */
export function clusterFlagsUsage(width: number): string {
  const line = (flag: string, text: string): string => `  ${flag.padEnd(width)}${text}\n`;
  return (
    line('--cpu-prof', 'write a CPU profile of the API server and summarize it') +
    line('--cpu-prof-dir DIR', 'where the profile goes (default: a new /tmp/corral-prof-* dir)') +
    line('--keep', 'keep the temp dir (etcd data, API server log)')
  );
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The options of this process's arguments, or undefined after printing `usage` for `--help`
 * (`parse` returns undefined then). A bad flag prints its error and `usage` and exits with 2.
 */
export function parseCommandLine<O>(usage: string, parse: (argv: string[]) => O | undefined): O | undefined {
  let opts: O | undefined;
  try {
    opts = parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${errorText(err)}\n\n${usage}`);
    process.exit(2);
  }
  if (!opts) process.stdout.write(usage);
  return opts;
}

/**
 * Parses the command line and runs the benchmark. `run` registers what it starts with `cleanup`,
 * which runs once it ends, fails, exceeds `timeoutMs` or gets SIGINT or SIGTERM. Exits 0 only
 * when `run` resolved true without an abort.
 */
export async function benchMain<O extends { timeoutMs: number }>(
  usage: string,
  parse: (argv: string[]) => O | undefined,
  run: (opts: O, cleanup: Cleanup) => Promise<boolean>,
): Promise<void> {
  const opts = parseCommandLine(usage, parse);
  if (!opts) return;
  const cleanup = new Cleanup();
  let aborted = false;
  const abort = (reason: string): void => {
    aborted = true;
    process.stderr.write(`aborting: ${reason}\n`);
    void cleanup.run().finally(() => process.exit(1));
  };
  const deadline = setTimeout(() => abort(`the run exceeded ${opts.timeoutMs / 1000} s`), opts.timeoutMs);
  process.once('SIGINT', () => abort('SIGINT'));
  process.once('SIGTERM', () => abort('SIGTERM'));

  let ok = false;
  try {
    ok = await run(opts, cleanup);
  } catch (err) {
    // After an abort, failures of the operations cut short say nothing new.
    if (!aborted) process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  } finally {
    clearTimeout(deadline);
    await cleanup.run();
  }
  process.exit(ok && !aborted ? 0 : 1);
}
