/**
 * The size of Node's shared Buffer pool in corral's processes, which hold many connections for long.
 *
 * Small Buffers (Buffer.from of a few bytes, allocUnsafe of less than half the pool) are slices of
 * one shared pool, and a slice that lives keeps its whole pool alive. Every TLS connection keeps
 * such a slice for its whole life: its copy of the ALPN protocol list, a dozen bytes. Node 24 raised
 * the pool from 8 KiB to 64 KiB (nodejs/node#63597), so each connection could pin 64 KiB: at 5,000
 * simulated nodes, one API server replica's 2,500 agent connections held 1,187 pools, 74 MiB
 * (bench:node-leases, heap snapshot), all of it scanned by no GC and freed by none. With Node's
 * former 8 KiB a connection pins at most 8 KiB. Larger pools only spare allocations of 4 to 32 KiB
 * a trip to the allocator, which the request paths here do not make often.
 */

/** The pool size every process runs with (Node's default before 24). */
export const bufferPoolSize = 8 * 1024;

/** Makes later pools `bufferPoolSize` long (never longer than Node's default). */
export function useSmallBufferPool(): void {
  Buffer.poolSize = Math.min(Buffer.poolSize, bufferPoolSize);
}
