/** Upstream's apiserver_flowcontrol_* metrics of API Priority and Fairness, with their names, labels and buckets. */
import type { Counter } from 'prom-client';
import type { CounterSeries, HistogramSeries, MetricsRegistry, SeriesCounter, SeriesHistogram } from '../metrics.ts';

type FlowLabel = 'flow_schema' | 'priority_level';

/** What the gauges read at scrape time: each schema's priority level and its requests now. */
export interface SchemaCounts {
  readonly name: string;
  readonly level: { readonly name: string };
  readonly waiting: number;
  readonly executing: number;
}

export interface FlowControlMetricsSources {
  nominalLimits: ReadonlyMap<string, number>;
  schemas: () => Iterable<SchemaCounts>;
}

const sep = '\u0000';

export class FlowControlMetrics {
  private readonly dispatched: SeriesCounter<FlowLabel>;
  private readonly rejections: Counter<FlowLabel | 'reason'>;
  private readonly waits: SeriesHistogram<FlowLabel | 'execute'>;

  constructor(registry: MetricsRegistry, sources: FlowControlMetricsSources) {
    this.dispatched = registry.seriesCounter({
      name: 'apiserver_flowcontrol_dispatched_requests_total',
      help: 'Number of requests executed by API Priority and Fairness subsystem',
      labelNames: ['flow_schema', 'priority_level'],
      stabilityLevel: 'BETA',
    });
    this.rejections = registry.counter({
      name: 'apiserver_flowcontrol_rejected_requests_total',
      help: 'Number of requests rejected by API Priority and Fairness subsystem',
      labelNames: ['flow_schema', 'priority_level', 'reason'],
      stabilityLevel: 'BETA',
    });
    this.waits = registry.seriesHistogram({
      name: 'apiserver_flowcontrol_request_wait_duration_seconds',
      help: 'Length of time a request spent waiting in its queue',
      labelNames: ['flow_schema', 'priority_level', 'execute'],
      buckets: [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30],
      stabilityLevel: 'BETA',
    });
    const perSchema = (name: string, help: string, read: (schema: SchemaCounts) => number): void => {
      registry.gauge({
        name,
        help,
        labelNames: ['flow_schema', 'priority_level'],
        stabilityLevel: 'BETA',
        collect() {
          for (const schema of sources.schemas()) this.set({ flow_schema: schema.name, priority_level: schema.level.name }, read(schema));
        },
      });
    };
    perSchema(
      'apiserver_flowcontrol_current_inqueue_requests',
      'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
      (schema) => schema.waiting,
    );
    perSchema(
      'apiserver_flowcontrol_current_executing_requests',
      'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
      (schema) => schema.executing,
    );
    const nominal = registry.gauge({
      name: 'apiserver_flowcontrol_nominal_limit_seats',
      help: 'Nominal number of execution seats configured for each priority level',
      labelNames: ['priority_level'],
      stabilityLevel: 'BETA',
    });
    for (const [priorityLevel, seats] of sources.nominalLimits) nominal.set({ priority_level: priorityLevel }, seats);
  }

  dispatchedSeries(labels: Record<FlowLabel, string>): CounterSeries {
    return this.dispatched.series(`${labels.flow_schema}${sep}${labels.priority_level}`, labels);
  }

  /** The wait-time series of the schema's requests that ran (`execute` true) or were turned away. */
  waitSeries(labels: Record<FlowLabel, string>, execute: boolean): HistogramSeries {
    return this.waits.series(`${labels.flow_schema}${sep}${labels.priority_level}${sep}${execute}`, { ...labels, execute: String(execute) });
  }

  observeWait(series: HistogramSeries, seconds: number): void {
    this.waits.observe(series, seconds);
  }

  rejected(flowSchema: string, priorityLevel: string, reason: string): void {
    this.rejections.inc({ flow_schema: flowSchema, priority_level: priorityLevel, reason });
  }
}
