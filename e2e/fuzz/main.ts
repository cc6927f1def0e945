/**
 * `npm run fuzz`: a long fuzz run (100,000 cases unless told otherwise) against a fresh
 * API server, recording every distinct failure rather than stopping at the first, then printing
 * the counts (requests, by status code, by HTTP version, failures) and each failure's reproducer.
 * Exits 1 when anything failed.
 *
 *   npm run fuzz -- --runs 200000 --seed 42 --lanes 8
 *   FUZZ_RUNS=5000 FUZZ_SEED=42 npm run fuzz
 *
 * `--assert` stops at the first failure and shrinks it instead (as the test does); with
 * `--lanes 1 --path <path>` it replays a counterexample.
 *
 * `--through-lb` fuzzes the cluster of processes instead (balanced-target.ts: 2 API servers on a
 * 3-member etcd behind haproxy) and prints per replica its restarts (0 expected), RSS at the
 * start, the peak and the end, and the requests it counted, and haproxy's view at the end; a
 * restart, a replica out of rotation or RSS over the bound fails the run too. `--keep` leaves
 * its directory, with every component's log, and prints where it is.
 */
import { parseArgs } from 'node:util';
import { parseCommandLine } from '../../bench/cli.ts';
import { httpsCall } from '../harness.ts';
import { balancerProblems, formatBalancerReport, startBalancedTarget } from './balanced-target.ts';
import { describeCase } from './describe.ts';
import { createFixtures } from './fixtures.ts';
import { formatReport, passed } from './report.ts';
import { runFuzz } from './runner.ts';
import { startTarget, type FuzzTarget } from './target.ts';

const usage = `Usage: npm run fuzz -- [flags]
  --runs N       cases to send (default 100000, or FUZZ_RUNS)
  --seed S       the generator's seed (default: the clock, or FUZZ_SEED)
  --lanes L      requests in flight at once (default 8, or FUZZ_LANES)
  --path P       replay one counterexample's path (with --lanes 1; or FUZZ_PATH)
  --assert       stop at the first failure and shrink it, as the test does
  --through-lb   fuzz 2 API servers on a 3-member etcd behind haproxy
  --keep         keep the --through-lb cluster's directory and logs
  --help         print this
`;

/** An integer flag (or its environment default) of at least `min`. */
function integerFlag(text: string, flag: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${min}, got ${JSON.stringify(text)}`);
  return n;
}

const options = parseCommandLine(usage, (argv) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: process.env.FUZZ_RUNS ?? '100000' },
      seed: { type: 'string', default: process.env.FUZZ_SEED ?? String(Date.now() % 2 ** 31) },
      lanes: { type: 'string', default: process.env.FUZZ_LANES ?? '8' },
      path: { type: 'string', default: process.env.FUZZ_PATH ?? '' },
      assert: { type: 'boolean', default: false },
      'through-lb': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  return {
    runs: integerFlag(values.runs, 'runs', 1),
    seed: integerFlag(values.seed, 'seed', 0),
    lanes: integerFlag(values.lanes, 'lanes', 1),
    path: values.path,
    assert: values.assert,
    throughLb: values['through-lb'],
    keep: values.keep,
  };
});
if (!options) process.exit(0);
const { runs, seed, lanes, throughLb } = options;
console.log(`fuzz: ${runs} cases, seed ${seed}, ${lanes} lanes${throughLb ? ', through haproxy to 2 API servers' : ''}`);

const balanced = throughLb ? await startBalancedTarget({ lanes, log: (m) => console.log(`fuzz: ${m}`), keep: options.keep }) : undefined;
const target: FuzzTarget = balanced ?? (await startTarget({ lanes }));
const started = Date.now();
let code = 1;
try {
  const snapshot = await createFixtures(target.transport);
  console.log(`fuzz: serving ${target.served.length} resources; ${snapshot.size} fixture objects`);
  const report = await runFuzz(target, snapshot, {
    runs,
    seed,
    lanes,
    mode: options.assert ? 'assert' : 'survey',
    ...(options.path ? { path: options.path } : {}),
    onProgress: (stats, inFlight) => {
      const seconds = (Date.now() - started) / 1000;
      console.log(
        `fuzz: ${stats.total} requests in ${seconds.toFixed(0)} s (${(stats.total / seconds).toFixed(0)}/s), ${stats.failedRequests} failing, ${stats.findings.size} distinct`,
      );
      // A request waiting this long is worth a look: the server may be stalled on it or by it.
      const waiting = inFlight.filter((f) => f.sinceMs > 10_000);
      for (const { request, sinceMs } of waiting)
        console.log(`  waiting ${(sinceMs / 1000).toFixed(0)} s for:\n${describeCase(request).replace(/^/gm, '    ')}`);
      if (waiting.length > 0) {
        const t0 = Date.now();
        void httpsCall(target.url, { ca: target.caPem }, { path: '/readyz' }).then(
          (r) => console.log(`  a fresh connection's /readyz: ${r.status} after ${Date.now() - t0} ms`),
          (err: unknown) => console.log(`  a fresh connection's /readyz failed after ${Date.now() - t0} ms: ${String(err)}`),
        );
      }
    },
  });
  console.log(formatReport(report, seed));
  let problems: string[] = [];
  if (balanced) {
    const replicas = await balanced.finish();
    problems = balancerProblems(replicas);
    console.log(formatBalancerReport(replicas));
    // haproxy does not tell which replica answered: each finding is sent to both again, directly.
    for (const f of report.stats.findings.values())
      console.log(`replayed on each replica, ${f.violation.kind}:\n${(await balanced.replayOnEachReplica(f.example)).replace(/^/gm, '    ')}`);
    for (const p of problems) console.log(`REPLICA PROBLEM: ${p}`);
  }
  console.log(`fuzz: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  code = passed(report) && problems.length === 0 ? 0 : 1;
} finally {
  await target.stop();
}
process.exit(code);
