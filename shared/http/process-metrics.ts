/**
 * Every process's own metrics on its /metrics: prom-client's defaults (process_* for CPU, memory and
 * file descriptors, as upstream's components export them; nodejs_* for the heap, GC and the event
 * loop), without the per-handle counts (`nodejs_active_handles`, `nodejs_active_requests`,
 * `nodejs_active_resources` and their totals). Those list every libuv handle of the process on each
 * scrape, one per open connection, on the event loop: with 2,500 node agents connected to a replica
 * that was about 40 ms of a 110 ms scrape (bench:node-leases --cpu-prof), every 15 s, for series
 * no upstream component has. `process_open_fds` stays: it reads /proc/self/fd, as Go's does.
 */
import { collectDefaultMetrics, type Registry } from 'prom-client';

const perHandleMetrics = [
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_requests',
  'nodejs_active_requests_total',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
];

export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of perHandleMetrics) registry.removeSingleMetric(name);
}
