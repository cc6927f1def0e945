/**
 * The controller manager's metrics, under the names kube-controller-manager exposes (all with the
 * label `name`): the work queues' `workqueue_*` family and `leader_election_master_status`.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** What a work queue reports; one instance serves every queue of a process. */
export interface WorkQueueMetrics {
  register(name: string, unfinished: () => { total: number; longest: number }): void;
  unregister(name: string): void;
  added(name: string): void;
  retried(name: string): void;
  depth(name: string, depth: number): void;
  /** Seconds a key waited in the queue before a worker took it. */
  waited(name: string, seconds: number): void;
  /** Seconds a worker spent on a key. */
  worked(name: string, seconds: number): void;
}

/** Upstream's buckets for queue and work durations: 10 ns to 10 s, ×10 each. */
const durationBuckets = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

export function workQueueMetrics(registry: Registry): WorkQueueMetrics {
  const sources = new Map<string, () => { total: number; longest: number }>();
  const registers = [registry];
  const depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers });
  const adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'], registers });
  const retries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'], registers });
  const queueDuration = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested.',
    labelNames: ['name'],
    buckets: durationBuckets,
    registers,
  });
  const workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    labelNames: ['name'],
    buckets: durationBuckets,
    registers,
  });
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
    labelNames: ['name'],
    registers,
    collect() {
      for (const [name, unfinished] of sources) this.set({ name }, unfinished().total);
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: ['name'],
    registers,
    collect() {
      for (const [name, unfinished] of sources) this.set({ name }, unfinished().longest);
    },
  });
  return {
    register(name, unfinished) {
      sources.set(name, unfinished);
      depth.set({ name }, 0);
      adds.inc({ name }, 0);
      retries.inc({ name }, 0);
    },
    unregister(name) {
      sources.delete(name);
    },
    added: (name) => adds.inc({ name }),
    retried: (name) => retries.inc({ name }),
    depth: (name, value) => depth.set({ name }, value),
    waited: (name, seconds) => queueDuration.observe({ name }, seconds),
    worked: (name, seconds) => workDuration.observe({ name }, seconds),
  };
}

/** `leader_election_master_status{name}`: 1 while this process leads the lease `name`, else 0. */
export function leaderElectionMetric(registry: Registry): Gauge {
  return new Gauge({
    name: 'leader_election_master_status',
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labelNames: ['name'],
    registers: [registry],
  });
}
