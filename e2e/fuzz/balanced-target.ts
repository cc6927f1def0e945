/**
 * The second kind of fuzz target: the cluster of processes of cluster/topology.ts (3 etcd members,
 * 2 API server replicas behind a real haproxy passing TLS through, 2 controller managers, no
 * nodes), every API version enabled, with the transport aimed at haproxy's URL: each new HTTP/1.1
 * connection goes to the next replica, each HTTP/2 session (one per credential set, re-opened
 * when it ends) to one of them. This is bad input at scale as a deployment meets it (issue 16,
 * item 6).
 *
 * Healthy means: no replica exited or was restarted (its pid unchanged), each one's RSS stays
 * under `MAX_REPLICA_RSS_BYTES`, haproxy never kept a replica out of rotation for longer than
 * `MAX_OUT_OF_ROTATION_MS` (shorter outages are reported), and `/readyz` through the balancer
 * answers 200; at the end every replica is `UP` again. `finish()` adds what the run did to each replica: RSS at the
 * start, the peak and the end, restarts, and the requests it counted (the rise of its
 * `apiserver_request_total`, read from the replica directly).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { startTopology, type Topology } from '../../cluster/topology.ts';
import { httpsCall, registerCleanup, type TlsMaterial } from '../harness.ts';
import type { FuzzCase } from './arbitraries/request.ts';
import { checkReply } from './properties.ts';
import { inRotation, MAX_OUT_OF_ROTATION_MS, MAX_REPLICA_RSS_BYTES, mib, watchReplicas, type ReplicaWatch } from './replica-watch.ts';
import { discoverServed } from './served.ts';
import { readyzProblem, type FuzzTarget } from './target.ts';
import { createTransport } from './transport.ts';

export interface ReplicaSummary {
  name: string;
  url: string;
  /** The pid at the start. */
  pid: number | undefined;
  /** Pids seen after the first one. */
  restarts: number;
  /** Whether the first process still runs. */
  alive: boolean;
  rssStart: number | undefined;
  rssPeak: number | undefined;
  rssEnd: number | undefined;
  /** The rise of the replica's `apiserver_request_total` over the run (haproxy's checks included); undefined when /metrics failed. */
  requests: number | undefined;
  /** haproxy's states other than `UP` seen during the run. */
  lbStates: ReadonlyMap<string, { count: number; firstAtMs: number }>;
  /** When haproxy had it out of rotation, and for how long (undefined: still out). */
  outages: readonly { atMs: number; forMs: number | undefined }[];
}

export interface BalancerReport {
  url: string;
  replicas: ReplicaSummary[];
  /** haproxy's view at the end: `{ 'apiserver-0': 'UP', ... }`, or the error reading it. */
  view: Record<string, string> | string;
}

export interface BalancedTarget extends FuzzTarget {
  topology: Topology;
  /**
   * Sends one case to each replica directly (bypassing haproxy, which does not say which replica
   * answered a connection) and tells what each answered and which properties the answer breaks.
   */
  replayOnEachReplica(c: FuzzCase): Promise<string>;
  /** Stops the watch and reports per replica; call once, after the run and before `stop()`. */
  finish(): Promise<BalancerReport>;
}

/**
 * Whether a case deletes a whole collection of RBAC objects as the admin (cluster-wide, in a
 * namespace, or in all of them), as its path reaches the server once dot segments, empty segments
 * and percent-encoding are undone. The API servers create the bootstrap policy only when they
 * start; without it haproxy's anonymous `GET /readyz` check is refused (403, ClusterRole
 * system:public-info-viewer not found) and haproxy takes every replica out, so such a request,
 * which any admin may make and upstream allows, would end the run without finding anything
 * wrong with a server. Errs towards forbidding: a path that merely looks like one is not sent.
 */
export function deletesRbacCollection(c: FuzzCase): boolean {
  if (c.method !== 'DELETE' || c.credentials !== 'admin') return false;
  let pathname: string;
  try {
    // Origin-form (`//apis/…` included, which a relative URL would read as a host) or absolute-form.
    pathname = new URL(c.target.startsWith('/') ? `https://server${c.target}` : c.target).pathname;
  } catch {
    return false;
  }
  const segments = pathname
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  if (segments[0] !== 'apis' || segments[1] !== 'rbac.authorization.k8s.io') return false;
  return segments.length === 4 || (segments.length === 6 && segments[3] === 'namespaces');
}

/** The sum of every `apiserver_request_total` series of a replica's /metrics. */
async function requestTotal(url: string, tls: Required<TlsMaterial>): Promise<number | undefined> {
  try {
    const res = await httpsCall(url, tls, { path: '/metrics' });
    if (res.status !== 200) return undefined;
    let sum = 0;
    for (const line of res.text.split('\n')) if (line.startsWith('apiserver_request_total{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    return sum;
  } catch {
    return undefined;
  }
}

/** Starts the topology (about 20–60 s with sources through tsx) and the watch of its replicas. */
export async function startBalancedTarget(opts: { lanes: number; log?: (message: string) => void; keep?: boolean }): Promise<BalancedTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'corral-fuzz-lb-'));
  // The topology kills its processes when this one exits; this removes the directory too.
  const unregister = registerCleanup(() => [], dir);
  // `keep` leaves the directory (every component's log) for a look at what a finding did.
  const cleanUp = (): void => {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
    unregister();
  };
  let topology: Topology;
  try {
    topology = await startTopology({
      dir,
      apiServers: 2,
      nodes: 0,
      prometheus: false,
      runtime: 'source',
      apiserverArgs: ['--runtime-config=api/all=true'],
      ...(opts.log ? { log: opts.log } : {}),
    });
  } catch (err) {
    cleanUp();
    throw err;
  }
  const pki = topology.files.pki;
  const tls = { ca: readFileSync(pki.caCert, 'utf8'), cert: readFileSync(pki.adminCert, 'utf8'), key: readFileSync(pki.adminKey, 'utf8') };
  const transport = createTransport({ url: topology.url, ...tls, maxSockets: opts.lanes * 2 });
  const stop = async (): Promise<void> => {
    transport.close();
    await topology.stop();
    cleanUp();
  };
  let watch: ReplicaWatch | undefined;
  try {
    const served = await discoverServed(transport);
    const requestsBefore = await Promise.all(topology.apiServers.map((a) => requestTotal(a.url, tls)));
    const w = watchReplicas(
      topology.apiServers.map((a) => ({ name: a.process.name, process: a.process })),
      () => topology.backendStatus(),
    );
    watch = w;
    return {
      url: topology.url,
      caPem: tls.ca,
      transport,
      served,
      topology,
      forbids: deletesRbacCollection,
      exited: () => w.exited(),
      async unhealthy() {
        // The watch samples haproxy's view every second and fails a replica out of rotation too long.
        const seen = w.problem();
        if (seen) return seen;
        // While both replicas are briefly out (see MAX_OUT_OF_ROTATION_MS) haproxy has nowhere to send /readyz.
        const deadline = Date.now() + MAX_OUT_OF_ROTATION_MS;
        for (;;) {
          const ready = await readyzProblem(transport);
          if (!ready) return w.problem();
          if (Date.now() > deadline) return `through the balancer, for ${MAX_OUT_OF_ROTATION_MS / 1000} s: ${ready}`;
          await sleep(1_000);
        }
      },
      logTail(lines = 40) {
        return topology.apiServers.map((a) => `--- ${a.process.name} (${a.process.logFile}) ---\n${a.process.logTail(lines)}`).join('\n');
      },
      async replayOnEachReplica(c) {
        const lines = await Promise.all(
          topology.apiServers.map(async (a) => {
            const direct = createTransport({ url: a.url, ...tls, maxSockets: 1 });
            try {
              const outcome = await direct.send(c);
              const violations = checkReply(c, outcome);
              const answer = outcome.kind === 'reply' ? `${outcome.status}${outcome.cut ? ' (cut)' : ''}` : `no reply (${outcome.error})`;
              return `${a.process.name}: ${answer}; ${violations.length === 0 ? 'no violation' : violations.map((v) => v.kind).join(', ')}`;
            } finally {
              direct.close();
            }
          }),
        );
        return lines.join('\n');
      },
      async finish() {
        // A replica taken out for a moment near the end is back within MAX_OUT_OF_ROTATION_MS.
        const deadline = Date.now() + MAX_OUT_OF_ROTATION_MS;
        while (Date.now() < deadline && !allUp(await topology.backendStatus().catch(() => ({})))) await sleep(1_000);
        await w.stop();
        const requestsAfter = await Promise.all(topology.apiServers.map((a) => requestTotal(a.url, tls)));
        const view = await topology.backendStatus().catch((err: unknown) => String(err));
        const replicas = topology.apiServers.map((a, i): ReplicaSummary => {
          const record = w.records[i]!;
          const before = requestsBefore[i];
          const after = requestsAfter[i];
          return {
            name: record.name,
            url: a.url,
            pid: record.pid,
            restarts: Math.max(0, record.pids.length - 1),
            alive: a.process.child?.pid !== undefined && a.process.child.pid === record.pid,
            rssStart: record.rssStart,
            rssPeak: record.rssPeak,
            rssEnd: record.rssLast,
            requests: before === undefined || after === undefined ? undefined : after - before,
            lbStates: record.lbStates,
            outages: record.outages,
          };
        });
        return { url: topology.url, replicas, view };
      },
      async stop() {
        await w.stop();
        await stop();
      },
    };
  } catch (err) {
    await watch?.stop();
    await stop();
    throw err;
  }
}

const allUp = (view: Record<string, string>): boolean => Object.keys(view).length > 0 && Object.values(view).every(inRotation);

/** What is wrong per the report: a restart, a dead replica, RSS over the bound, a replica out of rotation at the end. */
export function balancerProblems(report: BalancerReport): string[] {
  const problems: string[] = [];
  if (typeof report.view === 'string') problems.push(`haproxy's view at the end: ${report.view}`);
  for (const r of report.replicas) {
    if (!r.alive) problems.push(`${r.name} (pid ${r.pid}) is not running any more`);
    if (r.restarts > 0) problems.push(`${r.name} was restarted ${r.restarts} times`);
    if ((r.rssPeak ?? 0) > MAX_REPLICA_RSS_BYTES) problems.push(`${r.name}: peak RSS ${mib(r.rssPeak)} exceeds ${mib(MAX_REPLICA_RSS_BYTES)}`);
    // `UP 1/2` (a check failed, one more takes it out) is still in rotation: a loaded replica may miss one 2 s check.
    if (typeof report.view !== 'string' && !inRotation(report.view[r.name]))
      problems.push(`${r.name} is ${report.view[r.name] ?? 'absent'} in haproxy at the end`);
  }
  return problems;
}

export function formatBalancerReport(report: BalancerReport): string {
  const out = [`replicas behind haproxy (${report.url}):`];
  for (const r of report.replicas) {
    out.push(
      `  ${r.name} (${r.url}, pid ${r.pid ?? '?'}${r.alive ? '' : ', NOT RUNNING'}): restarts ${r.restarts}, ` +
        `RSS start ${mib(r.rssStart)}, peak ${mib(r.rssPeak)}, end ${mib(r.rssEnd)} (bound ${mib(MAX_REPLICA_RSS_BYTES)}), ` +
        `requests counted ${r.requests ?? 'n/a'} (apiserver_request_total)`,
    );
    for (const [state, seen] of r.lbStates)
      out.push(`    haproxy state ${JSON.stringify(state)} seen ${seen.count} times, first ${(seen.firstAtMs / 1000).toFixed(0)} s into the run`);
    const seconds = (ms: number | undefined): string => (ms === undefined ? 'still out' : `${(ms / 1000).toFixed(0)} s`);
    if (r.outages.length > 0)
      out.push(`    out of haproxy's rotation ${r.outages.length} times: ${r.outages.map((o) => `at ${seconds(o.atMs)} for ${seconds(o.forMs)}`).join(', ')}`);
  }
  out.push(`  haproxy's view at the end: ${typeof report.view === 'string' ? report.view : JSON.stringify(report.view)}`);
  return out.join('\n');
}
