/**
 * The API server's Prometheus metrics, named and labelled as kube-apiserver's, served at /metrics
 * in the text exposition format.
 *
 * Stability follows the spec's metric lifecycle: every metric declares a level (ALPHA, STABLE),
 * shown in its help as upstream shows it (`[STABLE] ...`). A metric with a deprecatedVersion at or
 * before the current release is deprecated: its help gains `(Deprecated from x.y)` and its first
 * recording logs a warning. Three releases after its deprecation it is hidden (not exported)
 * unless --show-hidden-metrics-for-version names the previous release.
 *
 * Hot-path contract: metrics recorded per request, per etcd call or per watch event are series
 * families (SeriesCounter, SeriesHistogram): the caller finds its series once by a key it builds
 * from the label values, and recording is a few additions. prom-client's own metrics hash and
 * validate their labels on every update (several microseconds with nine labels), which is fine for
 * everything recorded rarely. Storage object counts and in-flight watermarks are read at scrape time.
 */
import { parseMinorVersion, releaseVersion } from '../../shared/version.ts';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry as PromRegistry, type Metric } from 'prom-client';
import { collectProcessMetrics } from '../../shared/http/process-metrics.ts';

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

/** One sample as prom-client's registry formats it (its Metric.get() values). */
interface SampleValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** What prom-client's registry reads from a metric at scrape time. */
interface CollectedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: SampleValue[];
  aggregator: 'sum';
}

/** A metric family prom-client's registry can format: anything with a name and get(). */
interface Exportable {
  readonly name: string;
  get(): Promise<CollectedMetric> | Promise<unknown>;
}

export interface CounterSeries {
  value: number;
}

/** A counter family whose series are looked up once and then incremented directly (`series.value++`). */
export class SeriesCounter<L extends string> implements Exportable {
  private readonly all = new Map<string, { labels: Record<L, string>; series: CounterSeries }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The series of `labels`, created at 0 the first time; `key` must identify the label values. */
  series(key: string, labels: Record<L, string>): CounterSeries {
    let entry = this.all.get(key);
    if (!entry) {
      entry = { labels: { ...labels }, series: { value: 0 } };
      this.all.set(key, entry);
    }
    return entry.series;
  }

  async get(): Promise<CollectedMetric> {
    const values = [...this.all.values()].map(({ labels, series }) => ({ labels, value: series.value }));
    return { name: this.name, help: this.help, type: 'counter', values, aggregator: 'sum' };
  }
}

export interface HistogramSeries {
  /** Per bucket (not cumulative); the last slot counts observations above every bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

/** A histogram family whose series are looked up once; observe() is a bucket search and three additions. */
export class SeriesHistogram<L extends string> implements Exportable {
  private readonly all = new Map<string, { labels: Record<L, string>; series: HistogramSeries }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  series(key: string, labels: Record<L, string>): HistogramSeries {
    let entry = this.all.get(key);
    if (!entry) {
      entry = { labels: { ...labels }, series: { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 } };
      this.all.set(key, entry);
    }
    return entry.series;
  }

  observe(series: HistogramSeries, value: number): void {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    series.counts[i]!++;
    series.sum += value;
    series.count++;
  }

  async get(): Promise<CollectedMetric> {
    const values: SampleValue[] = [];
    for (const { labels, series } of this.all.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        values.push({ labels: { le: bound, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: series.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...labels }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }
}

interface MetricSpec<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  stabilityLevel: StabilityLevel;
  /** `x.y`: the release that deprecated the metric. */
  deprecatedVersion?: string;
}

interface HistogramSpec<L extends string> extends MetricSpec<L> {
  buckets: number[];
}

export type MetricVisibility = 'current' | 'deprecated' | 'hidden';

/** Where a metric deprecated in `deprecatedVersion` stands in release `current`. */
export function metricVisibility(deprecatedVersion: string | undefined, current = releaseVersion): MetricVisibility {
  if (deprecatedVersion === undefined) return 'current';
  const dep = parseMinorVersion(deprecatedVersion, 'deprecated version');
  const cur = parseMinorVersion(current, 'current version');
  const age = (cur.major - dep.major) * 1000 + (cur.minor - dep.minor);
  if (age < 0) return 'current';
  return age >= 3 ? 'hidden' : 'deprecated';
}

export interface MetricsRegistryOptions {
  logger: Logger;
  /** Defaults to {@link releaseVersion}. */
  currentVersion?: string;
  /** --show-hidden-metrics-for-version (validated by the caller). */
  showHiddenMetricsForVersion?: string;
}

/**
 * A Prometheus registry that applies the stability rules to what is declared in it. Hidden
 * metrics are created (callers record into them as usual) but not exported.
 */
export class MetricsRegistry {
  readonly prometheus = new PromRegistry();
  private readonly currentVersion: string;
  private readonly showHidden: boolean;

  constructor(private readonly opts: MetricsRegistryOptions) {
    this.currentVersion = opts.currentVersion ?? releaseVersion;
    this.showHidden = (opts.showHiddenMetricsForVersion ?? '') !== '';
  }

  counter<L extends string>(spec: MetricSpec<L>): Counter<L> {
    return this.declare(spec, (help) => new Counter<L>({ name: spec.name, help, labelNames: spec.labelNames ?? [], registers: [] }), ['inc']);
  }

  gauge<L extends string>(spec: MetricSpec<L> & { collect?: (this: Gauge<L>) => void | Promise<void> }): Gauge<L> {
    return this.declare(
      spec,
      (help) => new Gauge<L>({ name: spec.name, help, labelNames: spec.labelNames ?? [], registers: [], ...(spec.collect ? { collect: spec.collect } : {}) }),
      ['set', 'inc', 'dec'],
    );
  }

  histogram<L extends string>(spec: HistogramSpec<L>): Histogram<L> {
    return this.declare(spec, (help) => new Histogram<L>({ name: spec.name, help, labelNames: spec.labelNames ?? [], buckets: spec.buckets, registers: [] }), [
      'observe',
    ]);
  }

  /** A counter for hot paths (see SeriesCounter). */
  seriesCounter<L extends string>(spec: MetricSpec<L>): SeriesCounter<L> {
    return this.declare(spec, (help) => new SeriesCounter<L>(spec.name, help), ['series']);
  }

  /** A histogram for hot paths (see SeriesHistogram). */
  seriesHistogram<L extends string>(spec: HistogramSpec<L>): SeriesHistogram<L> {
    return this.declare(spec, (help) => new SeriesHistogram<L>(spec.name, help, spec.buckets), ['series']);
  }

  /** Node's process and runtime metrics (process_*, nodejs_*). */
  collectProcessMetrics(): void {
    collectProcessMetrics(this.prometheus);
  }

  get contentType(): string {
    return this.prometheus.contentType;
  }

  /** The exposition text of every exported metric. */
  text(): Promise<string> {
    return this.prometheus.metrics();
  }

  private declare<M extends Metric<string> | Exportable>(spec: MetricSpec<string>, create: (help: string) => M, recorders: readonly string[]): M {
    const visibility = metricVisibility(spec.deprecatedVersion, this.currentVersion);
    const deprecated = visibility !== 'current';
    const help = `[${spec.stabilityLevel}] ${deprecated ? `(Deprecated from ${spec.deprecatedVersion}) ` : ''}${spec.help}`;
    const metric = create(help);
    if (visibility === 'hidden' && !this.showHidden) return metric;
    if (visibility === 'hidden')
      this.opts.logger.warn({ metric: spec.name }, `Hidden metrics (${spec.name}) have been manually overridden, showing this very deprecated metric.`);
    if (deprecated) this.warnOnFirstRecord(metric, spec, recorders);
    // prom-client formats whatever has a name and get(); series families are such metrics.
    this.prometheus.registerMetric(metric as Metric<string>);
    return metric;
  }

  /** Deprecated metrics log once, when first recorded; afterwards their recorders are the library's own. */
  private warnOnFirstRecord(metric: Metric<string> | Exportable, spec: MetricSpec<string>, recorders: readonly string[]): void {
    const target = metric as unknown as Record<string, (...args: unknown[]) => unknown>;
    const originals = new Map(recorders.map((name) => [name, target[name]!]));
    const restore = (): void => {
      for (const [name, fn] of originals) target[name] = fn;
      this.opts.logger.warn(
        { metric: spec.name, deprecatedVersion: spec.deprecatedVersion },
        `metric ${spec.name} is deprecated since ${spec.deprecatedVersion} and will be hidden in a later release`,
      );
    };
    for (const [name, fn] of originals) {
      target[name] = function (this: unknown, ...args: unknown[]) {
        restore();
        return fn.apply(this, args);
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The API server's metrics.

/** Upstream's request latency buckets (apiserver_request_duration_seconds, etcd_request_duration_seconds). */
const latencyBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

export const apiServerComponent = 'apiserver';

/** The labels of one request, as upstream's MonitorRequest derives them. */
export interface RequestLabels {
  /** GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE, ... */
  verb: string;
  /** `''`, `All`, or `invalid`. */
  dry_run: string;
  group: string;
  version: string;
  resource: string;
  /** The subresource, or the path of a non-resource request. */
  subresource: string;
  /** `resource`, `namespace`, `cluster`, or `''` for non-resource requests. */
  scope: string;
  component: string;
}

export interface WatchLabels {
  group: string;
  version: string;
  kind: string;
}

/** The size of the storage's database file (apiserver_storage_size_bytes), and which storage it is. */
export interface StorageSize {
  /** etcd's cluster ID upstream; `embedded` for the embedded store. */
  cluster: string;
  bytes: number;
}

export interface StorageObjectCount {
  /** The group resource, `configmaps` or `leases.coordination.k8s.io`. */
  resource: string;
  count: number;
}

export interface ApiServerMetricsOptions extends MetricsRegistryOptions {
  /** kubernetes_build_info's labels. */
  buildInfo?: Record<string, string>;
}

type ResponseSizeLabels = Exclude<keyof RequestLabels, 'dry_run'>;

/** Joins label values into series keys; no label value contains it. */
const sep = '\u0000';

function requestKey(l: RequestLabels): string {
  return `${l.verb}${sep}${l.dry_run}${sep}${l.group}${sep}${l.version}${sep}${l.resource}${sep}${l.subresource}${sep}${l.scope}${sep}${l.component}`;
}

interface RequestSeries {
  durations: HistogramSeries;
  sizes: HistogramSeries | undefined;
  codes: Map<number, CounterSeries>;
}

interface EtcdSeries {
  durations: HistogramSeries;
  requests: CounterSeries;
  errors: CounterSeries | undefined;
}

export class ApiServerMetrics {
  readonly registry: MetricsRegistry;
  private readonly requests: SeriesCounter<keyof RequestLabels | 'code'>;
  private readonly durations: SeriesHistogram<keyof RequestLabels>;
  private readonly responseSizes: SeriesHistogram<ResponseSizeLabels>;
  private readonly requestSeries = new Map<string, RequestSeries>();
  private readonly terminations: Counter<ResponseSizeLabels | 'code'>;
  private readonly longRunning: Gauge<ResponseSizeLabels>;
  private readonly watchers: Gauge<keyof WatchLabels>;
  private readonly watchEvents: SeriesCounter<keyof WatchLabels>;
  private readonly watchEventSizes: SeriesHistogram<keyof WatchLabels>;
  private readonly deprecatedApis: Gauge<'group' | 'version' | 'resource' | 'subresource' | 'removed_release'>;
  private readonly etcdDurations: SeriesHistogram<'operation' | 'type'>;
  private readonly etcdRequests: SeriesCounter<'operation' | 'type'>;
  private readonly etcdErrors: SeriesCounter<'operation' | 'type'>;
  private readonly etcdSeries = new Map<string, EtcdSeries>();
  private readonly embeddedDurations: SeriesHistogram<'operation' | 'type'>;
  private storageSize: () => StorageSize | undefined = () => undefined;
  private readonly auditEvents: Counter<string>;
  private storageObjects: () => readonly StorageObjectCount[] = () => [];
  private inflight: () => { readOnly: number; mutating: number } = () => ({ readOnly: 0, mutating: 0 });

  constructor(opts: ApiServerMetricsOptions) {
    const registry = new MetricsRegistry(opts);
    this.registry = registry;
    const requestLabels: (keyof RequestLabels)[] = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
    const sizeLabels: ResponseSizeLabels[] = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
    const watchLabels: (keyof WatchLabels)[] = ['group', 'version', 'kind'];
    this.requests = registry.seriesCounter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...requestLabels, 'code'],
      stabilityLevel: 'STABLE',
    });
    this.durations = registry.seriesHistogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: requestLabels,
      buckets: latencyBuckets,
      stabilityLevel: 'STABLE',
    });
    this.responseSizes = registry.seriesHistogram({
      name: 'apiserver_response_sizes',
      help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
      labelNames: sizeLabels,
      buckets: [1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000],
      stabilityLevel: 'STABLE',
    });
    this.terminations = registry.counter({
      name: 'apiserver_request_terminations_total',
      help: 'Number of requests which apiserver terminated in self-defense.',
      labelNames: [...sizeLabels, 'code'],
      stabilityLevel: 'ALPHA',
    });
    this.longRunning = registry.gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: sizeLabels,
      stabilityLevel: 'STABLE',
    });
    this.watchers = registry.gauge({
      name: 'apiserver_registered_watchers',
      help: 'Number of currently registered watchers for a given resources',
      labelNames: watchLabels,
      stabilityLevel: 'ALPHA',
    });
    this.watchEvents = registry.seriesCounter({
      name: 'apiserver_watch_events_total',
      help: 'Number of events sent in watch clients',
      labelNames: watchLabels,
      stabilityLevel: 'ALPHA',
    });
    this.watchEventSizes = registry.seriesHistogram({
      name: 'apiserver_watch_events_sizes',
      help: 'Watch event size distribution in bytes',
      labelNames: watchLabels,
      buckets: [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072],
      stabilityLevel: 'ALPHA',
    });
    this.deprecatedApis = registry.gauge({
      name: 'apiserver_requested_deprecated_apis',
      help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
      stabilityLevel: 'STABLE',
    });
    const inflightSource = (): { readOnly: number; mutating: number } => this.inflight();
    registry.gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      stabilityLevel: 'STABLE',
      collect() {
        const { readOnly, mutating } = inflightSource();
        this.set({ request_kind: 'readOnly' }, readOnly);
        this.set({ request_kind: 'mutating' }, mutating);
      },
    });
    const objectSource = (): readonly StorageObjectCount[] => this.storageObjects();
    registry.gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['resource'],
      stabilityLevel: 'STABLE',
      collect() {
        for (const { resource, count } of objectSource()) this.set({ resource }, count);
      },
    });
    this.etcdDurations = registry.seriesHistogram({
      name: 'etcd_request_duration_seconds',
      help: 'Etcd request latency in seconds for each operation and object type.',
      labelNames: ['operation', 'type'],
      buckets: latencyBuckets,
      stabilityLevel: 'ALPHA',
    });
    this.etcdRequests = registry.seriesCounter({
      name: 'etcd_requests_total',
      help: 'Etcd request counts for each operation and object type.',
      labelNames: ['operation', 'type'],
      stabilityLevel: 'ALPHA',
    });
    this.etcdErrors = registry.seriesCounter({
      name: 'etcd_request_errors_total',
      help: 'Etcd failed request counts for each operation and object type.',
      labelNames: ['operation', 'type'],
      stabilityLevel: 'ALPHA',
    });
    // The embedded store's own latency (etcd_request_duration_seconds is etcd's alone), under etcd's labels.
    this.embeddedDurations = registry.seriesHistogram({
      name: 'corral_embedded_storage_request_duration_seconds',
      help: 'Embedded storage request latency in seconds for each operation and object type.',
      labelNames: ['operation', 'type'],
      buckets: latencyBuckets,
      stabilityLevel: 'ALPHA',
    });
    const sizeSource = (): StorageSize | undefined => this.storageSize();
    registry.gauge({
      name: 'apiserver_storage_size_bytes',
      help: 'Size of the storage database file physically allocated in bytes.',
      labelNames: ['storage_cluster_id'],
      stabilityLevel: 'ALPHA',
      collect() {
        const size = sizeSource();
        if (size) this.set({ storage_cluster_id: size.cluster }, size.bytes);
      },
    });
    this.auditEvents = registry.counter({
      name: 'apiserver_audit_event_total',
      help: 'Counter of audit events generated and sent to the audit backend.',
      stabilityLevel: 'ALPHA',
    });
    if (opts.buildInfo) {
      const info = opts.buildInfo;
      registry
        .gauge({
          name: 'kubernetes_build_info',
          help: "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
          labelNames: Object.keys(info),
          stabilityLevel: 'ALPHA',
        })
        .set(info, 1);
    }
    registry.collectProcessMetrics();
  }

  /** Reads the object count of each stored resource at scrape time. */
  setStorageObjectsSource(source: () => readonly StorageObjectCount[]): void {
    this.storageObjects = source;
  }

  /** Reads the storage's database size at scrape time. */
  setStorageSizeSource(source: () => StorageSize | undefined): void {
    this.storageSize = source;
  }

  /** Reads the in-flight watermarks (maximum since the last scrape) at scrape time. */
  setInflightSource(source: () => { readOnly: number; mutating: number }): void {
    this.inflight = source;
  }

  /** One finished request. */
  observeRequest(labels: RequestLabels, code: number, seconds: number, responseBytes: number): void {
    const key = requestKey(labels);
    let series = this.requestSeries.get(key);
    if (!series) {
      const { dry_run: _unused, ...sizeLabels } = labels;
      series = {
        durations: this.durations.series(key, labels),
        // Upstream sizes the answers of reads only.
        sizes: labels.verb === 'GET' || labels.verb === 'LIST' ? this.responseSizes.series(key, sizeLabels) : undefined,
        codes: new Map(),
      };
      this.requestSeries.set(key, series);
    }
    let counter = series.codes.get(code);
    if (!counter) {
      counter = this.requests.series(`${key}${sep}${code}`, { ...labels, code: String(code) });
      series.codes.set(code, counter);
    }
    counter.value++;
    this.durations.observe(series.durations, seconds);
    if (series.sizes) this.responseSizes.observe(series.sizes, responseBytes);
  }

  /** A request the server ended itself (429 over the in-flight limit, 504 past the request timeout). */
  observeTermination(labels: RequestLabels, code: number): void {
    const { dry_run: _unused, ...rest } = labels;
    this.terminations.inc({ ...rest, code: String(code) });
  }

  /** A watch starts; the returned function ends it. */
  watchStarted(labels: RequestLabels, watch: WatchLabels): () => void {
    const { dry_run: _unused, ...rest } = labels;
    this.longRunning.inc(rest);
    this.watchers.inc(watch);
    return () => {
      this.longRunning.dec(rest);
      this.watchers.dec(watch);
    };
  }

  /** Returns the recorder of frames sent to one watch (its series are found once, when the watch starts). */
  watchEventRecorder(watch: WatchLabels): (bytes: number) => void {
    const key = `${watch.group}${sep}${watch.version}${sep}${watch.kind}`;
    const events = this.watchEvents.series(key, watch);
    const sizes = this.watchEventSizes.series(key, watch);
    return (bytes) => {
      events.value++;
      this.watchEventSizes.observe(sizes, bytes);
    };
  }

  deprecatedApiRequested(labels: { group: string; version: string; resource: string; subresource: string; removed_release: string }): void {
    this.deprecatedApis.set(labels, 1);
  }

  etcdRequest(operation: string, type: string, seconds: number, failed: boolean): void {
    const key = `${operation}${sep}${type}`;
    let series = this.etcdSeries.get(key);
    if (!series) {
      const labels = { operation, type };
      series = { durations: this.etcdDurations.series(key, labels), requests: this.etcdRequests.series(key, labels), errors: undefined };
      this.etcdSeries.set(key, series);
    }
    this.etcdDurations.observe(series.durations, seconds);
    series.requests.value++;
    if (failed) (series.errors ??= this.etcdErrors.series(key, { operation, type })).value++;
  }

  /** One request of the embedded store. */
  embeddedStorageRequest(operation: string, type: string, seconds: number): void {
    this.embeddedDurations.observe(this.embeddedDurations.series(`${operation}${sep}${type}`, { operation, type }), seconds);
  }

  auditEvent(): void {
    this.auditEvents.inc();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.text();
  }
}
