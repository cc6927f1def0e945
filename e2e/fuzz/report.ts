/**
 * The text of a fuzz run's outcome: counts, then whatever failed (a dead server with the requests
 * in flight and the log's tail, the shrunk counterexample with the seed and path that replay it,
 * every distinct failure with its first reproducer, changed fixtures).
 */
import { describeCase } from './describe.ts';
import type { RunReport } from './runner.ts';

const indent = (text: string): string => text.replace(/^/gm, '    ');

/** True when the run found nothing wrong. */
export function passed(report: RunReport): boolean {
  return !report.fatal && !report.counterexample && report.stats.findings.size === 0 && report.fixtureChanges.length === 0;
}

export function formatReport(report: RunReport, seed: number): string {
  const out = [report.stats.summary()];
  if (report.fatal) {
    out.push(`SERVER DOWN: ${report.fatal.reason}`, '  requests in flight (the first one noticed it):');
    for (const c of report.fatal.inFlight) out.push(indent(describeCase(c)));
    out.push('  server log:', indent(report.fatal.log));
  }
  if (report.counterexample) {
    const ce = report.counterexample;
    out.push(
      `COUNTEREXAMPLE (lane ${ce.lane}; replay with FUZZ_SEED=${ce.seed} FUZZ_LANES=1${ce.path ? ` FUZZ_PATH=${ce.path}` : ''}):`,
      indent(describeCase(ce.request)),
      ...ce.violations.map((v) => `  violation ${v.kind}: ${v.detail}`),
    );
  }
  if (report.stats.findings.size > 0) {
    out.push(`DISTINCT FAILURES (base seed ${seed}):`);
    for (const f of [...report.stats.findings.values()].sort((a, b) => b.count - a.count)) {
      out.push(`  [${f.count}x] ${f.violation.kind}: ${f.violation.detail.slice(0, 400)}`, indent(describeCase(f.example)));
    }
  }
  if (report.fixtureChanges.length > 0) out.push('FIXTURES CHANGED:', ...report.fixtureChanges.map(indent));
  return out.join('\n');
}
