/**
 * Node flags for a process of a topology whose processes share one host: the cluster launcher's
 * (`npm run cluster`) and the benches'.
 *
 * V8's background threads (Node's `--v8-pool-size`, four whatever the host) do mostly the garbage
 * collector's work: parallel scavenges and concurrent marking, which come in bursts. On a 2-core host
 * one process's burst took both cores for 200–450 ms while every other process of the topology waited
 * (bench:node-leases at 5,000 nodes, every thread's CPU sampled every 100 ms): each replica's, etcd's
 * and the agents' requests of that moment then took that much longer. A pool of half the host's cores
 * leaves the other half to the rest; the collector's work is the same, spread over longer.
 * Measured there (p99 of lease renewals, separate runs): 316, 286, 292 and 378 ms with four threads;
 * 234, 229, 221, 339 and 161 ms with one or two (the last with two).
 *
 * A process alone on its host (a replica on its own machine or container) keeps Node's default.
 */
import { availableParallelism } from 'node:os';

/** V8's threads for a process sharing a host of `cores` cores: half of them, at least one, at most V8's default four. */
export function sharedHostPoolSize(cores: number = availableParallelism()): number {
  return Math.max(1, Math.min(4, Math.floor(cores / 2)));
}

/** The Node flags a process sharing this host starts with. */
export function sharedHostNodeFlags(cores?: number): string[] {
  return [`--v8-pool-size=${sharedHostPoolSize(cores)}`];
}

/** The V8 pool size flag this process was started with (on the command line, or in NODE_OPTIONS); undefined when none. */
export function poolSizeFlag(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env['NODE_OPTIONS'] ?? ''): string | undefined {
  return [...execArgv, ...nodeOptions.split(/\s+/)].find((arg) => arg === '--v8-pool-size' || arg.startsWith('--v8-pool-size='));
}
