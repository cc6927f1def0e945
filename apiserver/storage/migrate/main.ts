/**
 * `corral migrate` (cli.ts; `npm run migrate -- …` runs this file): copies the keys of one store
 * into another, between the embedded store of a data dir and an etcd, either way. Prints what it
 * copied; a bad flag exits 2 (unknown) or 1 (a bad value, every problem listed), as the other
 * commands do, and so does a failure to copy. Keys it could not copy are listed, and exit 1 too.
 */
import { flagsOrUsage } from '../../../shared/process/flags.ts';
import { isProgram, runCommand } from '../../../shared/process/program.ts';
import { flags, migrateConfig } from './config.ts';
import { migrate, type MigrationReport } from './migrate.ts';

const usageTrailer = `
Copies every key under --etcd-prefix: each object keeps its content, and what remains of its time
to live (Events); keys already expired are not copied. resourceVersions change: they become the
target's revisions, so clients must list again (a watch from an older one gets 410 Gone). The
target must have no key under the prefix (--force overwrites). Run it while no API server uses
either store: an embedded store in use is refused.
`;

/** How often, in keys, progress is reported on stderr. */
const progressEvery = 10_000;

/** Bytes for people: KiB below a MiB, MiB above. */
const humanBytes = (bytes: number): string => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`);

/** What the migration did, for people: the counts, then what changed for clients. */
export function describeReport(report: MigrationReport, seconds: number): string {
  const lines = [
    `copied ${report.copied} keys (${report.bytes} bytes, ${humanBytes(report.bytes)}) from ${report.source} to ${report.target} in ${seconds.toFixed(1)} s`,
  ];
  if (report.withTtl) lines.push(`${report.withTtl} of them with a time to live (Events): what remained of it`);
  if (report.expired) lines.push(`${report.expired} keys had expired: not copied`);
  lines.push(
    `the target's revision is now ${report.targetRevision}${report.compacted ? ', its history compacted there' : ''}: every resourceVersion changed, clients must list again`,
  );
  return `${lines.join('\n')}\n`;
}

/** Warnings on stderr: keys not copied, a source that moved during the copy. */
export function describeProblems(report: MigrationReport): string {
  const lines = report.notCopied.map(({ key, reason }) => `not copied: ${key}: ${reason}`);
  if (report.notCopied.length) lines.push(`${report.notCopied.length} keys were not copied`);
  if (report.sourceRevisionAfter !== report.sourceRevision) {
    lines.push(
      `warning: ${report.source} moved from revision ${report.sourceRevision} to ${report.sourceRevisionAfter} during the copy: keys expired, or something wrote to it (an API server?); if so, stop it and copy again with --force`,
    );
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

async function main(argv: string[], command: string): Promise<void> {
  const values = flagsOrUsage(argv, command, flags, usageTrailer);
  if (!values) return;
  const config = migrateConfig(values);
  const started = performance.now();
  let reported = 0;
  const report = await migrate(config, (copied) => {
    if (copied - reported < progressEvery) return;
    reported = copied;
    process.stderr.write(`copied ${copied} keys…\n`);
  });
  process.stdout.write(describeReport(report, (performance.now() - started) / 1000));
  process.stderr.write(describeProblems(report));
  if (report.notCopied.length) process.exitCode = 1;
}

/** Runs a migration for `argv` (the flags, without the command); a failure prints `Error: …` and exits 1. */
export function runMigrate(argv: string[], command: string): void {
  runCommand(() => main(argv, command));
}

if (isProgram(import.meta.url)) runMigrate(process.argv.slice(2), 'npm run migrate --');
