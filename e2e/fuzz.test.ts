/**
 * The bounded fuzz run of `npm test`: a few thousand property-based cases (e2e/fuzz/) against a
 * real API server (on the embedded store, as e2e/harness.ts starts one replica), over HTTP/1.1 and HTTP/2, with and without credentials. It
 * fails on the first reply that breaks a property (a 5xx for a client's mistake, a non-2xx reply
 * that is not a Status with the same code, no reply), on a dead or unready server, and on any
 * change to the objects that existed before the run; the message holds the seed, the shrunk
 * counterexample and the server log's tail.
 *
 * The seed is fixed so that `npm test` is repeatable; FUZZ_SEED, FUZZ_TEST_RUNS and FUZZ_LANES
 * change it, and FUZZ_PATH replays a counterexample (`npm run fuzz` is the long run).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createFixtures, type Snapshot } from './fuzz/fixtures.ts';
import { formatReport, passed } from './fuzz/report.ts';
import { runFuzz } from './fuzz/runner.ts';
import { startTarget, type FuzzTarget } from './fuzz/target.ts';

const seed = Number(process.env.FUZZ_SEED ?? 10);
const runs = Number(process.env.FUZZ_TEST_RUNS ?? 3_000);
const lanes = Number(process.env.FUZZ_LANES ?? 6);
/** fast-check's path of a counterexample, to replay it (with FUZZ_LANES=1 and its lane's seed). */
const path = process.env.FUZZ_PATH;

let target: FuzzTarget;
let snapshot: Snapshot;

before(async () => {
  target = await startTarget({ lanes });
  snapshot = await createFixtures(target.transport);
});

after(async () => {
  await target?.stop();
});

it(`${runs} fuzz cases (seed ${seed}, ${lanes} lanes) break no property and change no fixture`, async (t) => {
  const report = await runFuzz(target, snapshot, { runs, seed, lanes, mode: 'assert', ...(path ? { path } : {}) });
  const text = formatReport(report, seed);
  assert.ok(passed(report), text);
  t.diagnostic(text);
  assert.ok(report.stats.total >= runs, `only ${report.stats.total} of ${runs} requests were sent`);
});
