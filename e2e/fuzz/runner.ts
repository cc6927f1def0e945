/**
 * A fuzz run against a started target: `lanes` fast-check runs side by side (seeds `seed`,
 * `seed + 1`, ...), each case one request whose reply is checked (properties.ts) and counted
 * (stats.ts), a health check every `healthEvery` requests, and at the end a last health check and
 * the comparison of the fixtures with their snapshot.
 *
 * In `assert` mode the first failing lane shrinks its case (at most `maxShrinkRequests` more
 * requests, for at most `maxShrinkMs`) while the other lanes stop; the counterexample, its lane's seed and fast-check's path
 * replay it. In `survey` mode every violation is recorded and the run goes on to the end. Either
 * way a dead or unhealthy server ends the run: every lane stops without sending another case, so
 * that no shrinking runs against a dead server, and the requests in flight when it died are reported.
 */
import fc from 'fast-check';
import { requestArbitrary, type FuzzCase } from './arbitraries/request.ts';
import { compareFixtures, type Snapshot } from './fixtures.ts';
import { checkReply, type Violation } from './properties.ts';
import { FuzzStats } from './stats.ts';
import type { FuzzTarget } from './target.ts';

export interface RunOptions {
  /** Cases over all lanes. */
  runs: number;
  seed: number;
  lanes: number;
  mode: 'assert' | 'survey';
  healthEvery?: number;
  maxShrinkRequests?: number;
  /** How long the failing lane may shrink (a stalled request costs the transport's whole deadline). */
  maxShrinkMs?: number;
  /** fast-check's replay path, with `lanes: 1`. */
  path?: string;
  /** Called every `progressEveryMs` with the counts and the requests in flight, oldest first. */
  onProgress?: (stats: FuzzStats, inFlight: readonly { request: FuzzCase; sinceMs: number }[]) => void;
  progressEveryMs?: number;
}

export interface Counterexample {
  lane: number;
  seed: number;
  /** fast-check's path of the (shrunk) counterexample: `FUZZ_SEED=<seed> FUZZ_PATH=<path>` replays it. */
  path: string | null;
  request: FuzzCase;
  violations: readonly Violation[];
}

export interface RunReport {
  stats: FuzzStats;
  /** Why the server stopped being usable, with the requests in flight at that moment. */
  fatal: { reason: string; inFlight: FuzzCase[]; log: string } | undefined;
  counterexample: Counterexample | undefined;
  fixtureChanges: string[];
}

export async function runFuzz(target: FuzzTarget, snapshot: Snapshot, opts: RunOptions): Promise<RunReport> {
  const stats = new FuzzStats();
  const forbids = target.forbids?.bind(target);
  const generated = requestArbitrary(target.served);
  const arbitrary = forbids ? generated.filter((c) => !forbids(c)) : generated;
  const healthEvery = opts.healthEvery ?? 200;
  /** Requests sent and not yet answered, with when they were sent. */
  const inFlight = new Map<FuzzCase, number>();
  const violationsOf = new WeakMap<FuzzCase, readonly Violation[]>();
  let fatal: RunReport['fatal'];
  let failingLane: number | undefined;
  let sinceHealth = 0;

  const die = (reason: string, culprit: FuzzCase): void => {
    fatal ??= { reason, inFlight: [culprit, ...[...inFlight.keys()].filter((c) => c !== culprit)], log: target.logTail() };
  };

  const lane = async (index: number, numRuns: number) => {
    let shrinkBudget = opts.maxShrinkRequests ?? 300;
    let failedAt = 0;
    /**
     * Once the target is down, this lane's next case fails unsent (`stopper`), which ends its run:
     * passing every remaining case instead generates them all, holding the event loop (progress,
     * signals) for minutes in a long run. Every shrink of that case passes; it is no counterexample.
     */
    let stopped = false;
    let stopper: FuzzCase | undefined;
    const property = fc.asyncProperty(arbitrary, async (c) => {
      if (fatal) {
        if (stopped) return true;
        stopped = true;
        stopper = c;
        return false;
      }
      if (failingLane !== undefined && failingLane !== index) return true;
      if (failingLane === index && (shrinkBudget-- <= 0 || Date.now() - failedAt > (opts.maxShrinkMs ?? 30_000))) return true;
      inFlight.set(c, Date.now());
      const outcome = await target.transport.send(c);
      inFlight.delete(c);
      const violations = checkReply(c, outcome);
      stats.record(c, outcome, violations);
      violationsOf.set(c, violations);
      const gone = target.exited();
      if (gone) {
        die(gone, c);
        stopped = true;
        return false;
      }
      if (++sinceHealth >= healthEvery) {
        sinceHealth = 0;
        const unhealthy = await target.unhealthy();
        if (unhealthy) {
          die(unhealthy, c);
          stopped = true;
          return false;
        }
      }
      if (violations.length > 0 && opts.mode === 'assert') {
        if (failingLane === undefined) {
          failingLane = index;
          failedAt = Date.now();
        }
        return false;
      }
      return true;
    });
    const seed = opts.seed + index;
    const details = await fc.check(property, { seed, numRuns, ...(opts.path ? { path: opts.path } : {}) });
    if (!details.failed || !details.counterexample || details.counterexample[0] === stopper) return undefined;
    const request = details.counterexample[0];
    return { lane: index, seed, path: details.counterexamplePath, request, violations: violationsOf.get(request) ?? [] } satisfies Counterexample;
  };

  const perLane = Math.ceil(opts.runs / opts.lanes);
  const progress = opts.onProgress
    ? setInterval(() => {
        const now = Date.now();
        const pending = [...inFlight.entries()].map(([request, sent]) => ({ request, sinceMs: now - sent })).sort((a, b) => b.sinceMs - a.sinceMs);
        opts.onProgress?.(stats, pending);
      }, opts.progressEveryMs ?? 10_000)
    : undefined;
  const results = await Promise.all(Array.from({ length: opts.lanes }, (_, i) => lane(i, perLane))).finally(() => clearInterval(progress));
  const counterexample = results.find((r) => r !== undefined && r.lane === failingLane) ?? results.find((r) => r !== undefined);

  if (!fatal) {
    const unhealthy = await target.unhealthy();
    if (unhealthy) fatal = { reason: `after the run: ${unhealthy}`, inFlight: [], log: target.logTail() };
  }
  const fixtureChanges = fatal ? [] : await compareFixtures(target.transport, snapshot);
  return { stats, fatal, counterexample, fixtureChanges };
}
