/**
 * Watches the API server replicas behind the balancer during a fuzz run, once a second: each
 * one's process (a new pid is a restart, none an exit), its resident memory (VmRSS of
 * /proc/<pid>/status: at the start, the peak, the last) and haproxy's state for it. The run's own
 * health checks come every 200 requests; the watch sees what happens between them: a replica that
 * haproxy took out for a few seconds and put back, a memory spike that the GC undid.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * The most resident memory a replica may reach during a fuzz run. An idle replica holds about
 * 200–300 MiB (sources through tsx), and a fuzz lane's largest bodies are a few MiB each; a
 * replica that keeps something of every request (a cache without bound, a leaked buffer) passes
 * this well within 100,000 requests and long before Node's default heap limit (about 4 GiB here)
 * would crash it. Generous on purpose: GC timing on a loaded machine is no failure.
 */
export const MAX_REPLICA_RSS_BYTES = 1.5 * 1024 ** 3;

/**
 * How long haproxy may keep a replica out of rotation before the run fails. haproxy takes a
 * replica out after two failed checks a second apart (`inter 1s fall 2`, a TLS handshake not done
 * within the second counts): an event loop busy for two seconds, as one multi-MiB YAML body on a
 * loaded 2-core machine can keep it, and the replica is back two checks later. Such outages are
 * reported with their length; one that lasts, or a replica out at the end, fails.
 */
export const MAX_OUT_OF_ROTATION_MS = 30_000;

/** How often the watch samples. */
const SAMPLE_EVERY_MS = 1_000;

/** A replica as the watch sees it: a name and its current process (undefined once gone). */
export interface WatchedReplica {
  readonly name: string;
  readonly process: { readonly child: ChildProcess | undefined };
}

export interface ReplicaRecord {
  name: string;
  /** The pid when the watch began. */
  pid: number | undefined;
  /** Every pid seen, the first included: more than one means the replica was restarted. */
  pids: number[];
  /** Bytes; undefined where /proc does not tell (not Linux). */
  rssStart: number | undefined;
  rssPeak: number | undefined;
  rssLast: number | undefined;
  /** haproxy's states for this replica other than `UP`, with how often each was seen and when first (ms into the watch). */
  lbStates: Map<string, { count: number; firstAtMs: number }>;
  /** Each time haproxy had the replica out of rotation: from when (ms into the watch) and for how long (to the sample that saw it back). */
  outages: { atMs: number; forMs: number | undefined }[];
}

export interface ReplicaWatch {
  readonly records: readonly ReplicaRecord[];
  /** Why a replica's process is gone or replaced, or undefined: from process state alone (cheap). */
  exited(): string | undefined;
  /** Why the watch saw trouble so far (a process gone, RSS over the bound, out of haproxy's rotation too long), or undefined. */
  problem(): string | undefined;
  /** Takes one more sample now (the end of the run), then stops sampling. */
  stop(): Promise<void>;
}

/** The resident set of a process in bytes, from /proc; undefined when it cannot be read. */
export function rssOf(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether haproxy still sends a replica new connections: `UP`, or `UP 1/2` while one failed check
 * has not yet taken it out (`fall 2`); a loaded machine can fail one check without anything being
 * wrong, so that is reported but no failure. `DOWN`, `DOWN 1/2` (coming back), `MAINT`, `NOLB` or
 * no state at all are out of rotation.
 */
export function inRotation(state: string | undefined): boolean {
  return state !== undefined && /^UP\b/.test(state);
}

export const mib = (bytes: number | undefined): string => (bytes === undefined ? 'n/a' : `${(bytes / 1024 ** 2).toFixed(1)} MiB`);

/** Starts sampling `replicas` (and haproxy's view, from `backendStatus`) every second. */
export function watchReplicas(replicas: readonly WatchedReplica[], backendStatus: () => Promise<Record<string, string>>): ReplicaWatch {
  const started = Date.now();
  const firstChildren = replicas.map((r) => r.process.child);
  const records: ReplicaRecord[] = replicas.map((r, i) => {
    const pid = firstChildren[i]?.pid;
    const rss = pid === undefined ? undefined : rssOf(pid);
    return { name: r.name, pid, pids: pid === undefined ? [] : [pid], rssStart: rss, rssPeak: rss, rssLast: rss, lbStates: new Map(), outages: [] };
  });
  /** The first sign of trouble the samples showed; kept, since a replica back in rotation was still out once. */
  let trouble: string | undefined;
  let sampling: Promise<void> | undefined;

  const exited = (): string | undefined => {
    for (const [i, r] of replicas.entries()) {
      const first = firstChildren[i];
      if (!first) return `${r.name} had no process when the watch began`;
      if (first.exitCode === null && first.signalCode === null) continue;
      const now = r.process.child;
      return now ? `${r.name} was restarted (pid ${first.pid} → ${now.pid})` : `${r.name} (pid ${first.pid}) exited (${first.exitCode ?? first.signalCode})`;
    }
    return undefined;
  };

  const sample = async (): Promise<void> => {
    for (const [i, r] of replicas.entries()) {
      const record = records[i]!;
      const pid = r.process.child?.pid;
      if (pid === undefined) continue;
      if (!record.pids.includes(pid)) record.pids.push(pid);
      const rss = rssOf(pid);
      if (rss === undefined) continue;
      record.rssLast = rss;
      record.rssStart ??= rss;
      record.rssPeak = Math.max(record.rssPeak ?? 0, rss);
      if (rss > MAX_REPLICA_RSS_BYTES) trouble ??= `${r.name}: RSS ${mib(rss)} exceeds the bound of ${mib(MAX_REPLICA_RSS_BYTES)}`;
    }
    let view: Record<string, string>;
    try {
      view = await backendStatus();
    } catch (err) {
      trouble ??= `haproxy's stats socket: ${err instanceof Error ? err.message : String(err)}`;
      return;
    }
    const atMs = Date.now() - started;
    for (const record of records) {
      const state = view[record.name];
      const outage = record.outages.at(-1);
      const open = outage !== undefined && outage.forMs === undefined ? outage : undefined;
      if (inRotation(state)) {
        if (open) open.forMs = atMs - open.atMs;
      } else if (!open) {
        record.outages.push({ atMs, forMs: undefined });
      } else if (atMs - open.atMs > MAX_OUT_OF_ROTATION_MS) {
        trouble ??= `haproxy has had ${record.name} out of rotation (${state ?? 'absent'}) since ${(open.atMs / 1000).toFixed(0)} s into the run, over ${MAX_OUT_OF_ROTATION_MS / 1000} s`;
      }
      if (state === 'UP') continue;
      const key = state ?? '(absent)';
      const seen = record.lbStates.get(key);
      if (seen) seen.count++;
      else record.lbStates.set(key, { count: 1, firstAtMs: atMs });
    }
  };

  // One sample at a time: a slow stats socket delays the next one instead of piling them up.
  const timer = setInterval(() => {
    sampling ??= sample().finally(() => {
      sampling = undefined;
    });
  }, SAMPLE_EVERY_MS);
  timer.unref();

  return {
    records,
    exited,
    problem: () => exited() ?? trouble,
    async stop() {
      clearInterval(timer);
      await sampling;
      await sample();
    },
  };
}
