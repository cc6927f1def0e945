/**
 * The server under fuzz: one real API server process (the e2e harness's cluster, on the embedded store;
 * every API version enabled), a transport with and without the admin certificate, the served
 * resources from discovery, and the checks that it is still there: the process has not exited
 * and `/readyz` answers 200.
 */
import { readFileSync } from 'node:fs';
import { adminTls, startCluster, type Cluster } from '../harness.ts';
import { discoverServed, type ServedResource } from './served.ts';
import { createTransport, type Transport } from './transport.ts';

export interface FuzzTarget {
  cluster: Cluster;
  transport: Transport;
  served: ServedResource[];
  /** Why the server is not healthy, or undefined when it is (alive and `/readyz` 200). */
  unhealthy(): Promise<string | undefined>;
  /** The process has exited. */
  exited(): boolean;
  /** The last lines of the server's log (its stack traces). */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

export async function startTarget(opts: { lanes: number }): Promise<FuzzTarget> {
  const cluster = await startCluster({ apiserverArgs: ['--runtime-config=api/all=true'] });
  const replica = cluster.replicas[0]!;
  const tls = adminTls(cluster.dataDir);
  const transport = createTransport({ url: replica.url, ...tls, maxSockets: opts.lanes * 2 });
  const exited = (): boolean => replica.child.exitCode !== null || replica.child.signalCode !== null;
  try {
    const served = await discoverServed(transport);
    return {
      cluster,
      transport,
      served,
      exited,
      async unhealthy() {
        if (exited()) return `the API server exited (${replica.child.exitCode ?? replica.child.signalCode})`;
        const reply = await transport.send({ protocol: 'http1', credentials: 'admin', method: 'GET', target: '/readyz?verbose', headers: {} });
        if (reply.kind !== 'reply') return `/readyz: no answer (${reply.error})`;
        if (reply.status !== 200) return `/readyz: ${reply.status} ${reply.body.toString('utf8')}`;
        return undefined;
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
