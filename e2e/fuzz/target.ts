/**
 * What a fuzz run is aimed at (`FuzzTarget`), and its first kind: one real API server process (the
 * e2e harness's cluster, on the embedded store; every API version enabled), a transport with and
 * without the admin certificate, the served resources from discovery, and the checks that it is
 * still there: the process has not exited and `/readyz` answers 200. The second kind, replicas
 * behind haproxy, is in balanced-target.ts.
 */
import { readFileSync } from 'node:fs';
import { adminTls, startCluster } from '../harness.ts';
import type { FuzzCase } from './arbitraries/request.ts';
import { discoverServed, type ServedResource } from './served.ts';
import { createTransport, type Transport } from './transport.ts';

export interface FuzzTarget {
  /** Where the transport sends the fuzz requests: `https://127.0.0.1:<port>`. */
  url: string;
  /** PEM of the CA that signed the serving certificate at `url`. */
  caPem: string;
  transport: Transport;
  served: ServedResource[];
  /** Why the target is not healthy, or undefined when it is (alive and `/readyz` 200, at least). */
  unhealthy(): Promise<string | undefined>;
  /**
   * Why a server process of the target is gone (exited or restarted), or undefined. Called after
   * every request, so it looks at process state alone, never at the network.
   */
  exited(): string | undefined;
  /**
   * Cases this target must never be sent, or none: requests any admin may make, whose effect the
   * target's own health depends on not happening (see balanced-target.ts). They are never
   * generated, so a run's counts are of cases sent.
   */
  forbids?(c: FuzzCase): boolean;
  /** The last lines of the servers' logs (their stack traces). */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

/** Why `GET /readyz?verbose` (as the admin, over HTTP/1.1) is not a 200, or undefined when it is. */
export async function readyzProblem(transport: Transport): Promise<string | undefined> {
  const reply = await transport.send({ protocol: 'http1', credentials: 'admin', method: 'GET', target: '/readyz?verbose', headers: {} });
  if (reply.kind !== 'reply') return `/readyz: no answer (${reply.error})`;
  if (reply.status !== 200) return `/readyz: ${reply.status} ${reply.body.toString('utf8')}`;
  return undefined;
}

/** One API server process of the e2e harness, fuzzed directly. */
export async function startTarget(opts: { lanes: number }): Promise<FuzzTarget> {
  const cluster = await startCluster({ apiserverArgs: ['--runtime-config=api/all=true'] });
  const replica = cluster.replicas[0]!;
  const tls = adminTls(cluster.dataDir);
  const transport = createTransport({ url: replica.url, ...tls, maxSockets: opts.lanes * 2 });
  const exited = (): string | undefined =>
    replica.child.exitCode !== null || replica.child.signalCode !== null
      ? `the API server exited (${replica.child.exitCode ?? replica.child.signalCode})`
      : undefined;
  try {
    const served = await discoverServed(transport);
    return {
      url: replica.url,
      caPem: cluster.caPem,
      transport,
      served,
      exited,
      async unhealthy() {
        return exited() ?? (await readyzProblem(transport));
      },
      logTail(lines = 40) {
        try {
          return readFileSync(replica.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
        } catch {
          return '';
        }
      },
      async stop() {
        transport.close();
        await cluster.stop();
      },
    };
  } catch (err) {
    transport.close();
    await cluster.stop();
    throw err;
  }
}
