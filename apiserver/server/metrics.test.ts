import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from './logging.ts';
import { ApiServerMetrics, MetricsRegistry, metricVisibility, type RequestLabels } from './metrics.ts';
import { validateShowHiddenMetricsVersion } from '../../shared/version.ts';

/** A logger whose lines are kept, parsed. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('info', 'test', sink), lines };
}

/** Lines of the exposition text for one metric family, comments included. */
function family(text: string, name: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `) || l.startsWith(`# HELP ${name} `) || l.startsWith(`# TYPE ${name} `));
}

describe('metric stability', () => {
  it('accepts only the previous minor release for --show-hidden-metrics-for-version', () => {
    validateShowHiddenMetricsVersion('');
    validateShowHiddenMetricsVersion('1.31');
    for (const bad of ['1.30', '1.32', '1.31.0', 'v1.31']) {
      assert.throws(() => validateShowHiddenMetricsVersion(bad), {
        message: "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed",
      });
    }
  });

  it('deprecates a metric from its deprecated version and hides it three releases later', () => {
    assert.equal(metricVisibility(undefined, '1.32'), 'current');
    assert.equal(metricVisibility('1.33', '1.32'), 'current');
    assert.equal(metricVisibility('1.32', '1.32'), 'deprecated');
    assert.equal(metricVisibility('1.30.0', '1.32'), 'deprecated');
    assert.equal(metricVisibility('1.29', '1.32'), 'hidden');
    assert.equal(metricVisibility('1.20', '1.32'), 'hidden');
  });

  it('annotates help with the stability level and a deprecation notice, and warns once when a deprecated metric is first recorded', async () => {
    const { logger, lines } = capturingLogger();
    const registry = new MetricsRegistry({ logger, currentVersion: '1.32' });
    const stable = registry.counter({ name: 'test_stable_total', help: 'Stable things.', stabilityLevel: 'STABLE' });
    const old = registry.counter({ name: 'test_old_total', help: 'Old things.', labelNames: ['kind'], stabilityLevel: 'ALPHA', deprecatedVersion: '1.31' });
    stable.inc();
    assert.equal(lines.length, 0);
    old.inc({ kind: 'a' });
    old.inc({ kind: 'a' });
    const text = await registry.text();
    assert.deepEqual(family(text, 'test_stable_total'), [
      '# HELP test_stable_total [STABLE] Stable things.',
      '# TYPE test_stable_total counter',
      'test_stable_total 1',
    ]);
    assert.deepEqual(family(text, 'test_old_total'), [
      '# HELP test_old_total [ALPHA] (Deprecated from 1.31) Old things.',
      '# TYPE test_old_total counter',
      'test_old_total{kind="a"} 2',
    ]);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.level, 40);
    assert.equal(lines[0]?.metric, 'test_old_total');
  });

  it('hides metrics deprecated three releases ago unless hidden metrics are shown', async () => {
    const hidden = (show: string) => {
      const { logger, lines } = capturingLogger();
      const registry = new MetricsRegistry({ logger, currentVersion: '1.32', showHiddenMetricsForVersion: show });
      registry.gauge({ name: 'test_ancient', help: 'Ancient.', stabilityLevel: 'STABLE', deprecatedVersion: '1.29' }).set(7);
      return { registry, lines };
    };
    const off = hidden('');
    assert.deepEqual(family(await off.registry.text(), 'test_ancient'), []);
    const on = hidden('1.31');
    assert.deepEqual(family(await on.registry.text(), 'test_ancient'), [
      '# HELP test_ancient [STABLE] (Deprecated from 1.29) Ancient.',
      '# TYPE test_ancient gauge',
      'test_ancient 7',
    ]);
    assert.match(String(on.lines[0]?.msg), /^Hidden metrics \(test_ancient\) have been manually overridden, showing this very deprecated metric\.$/);
  });
});

describe('ApiServerMetrics', () => {
  const list: RequestLabels = {
    verb: 'LIST',
    dry_run: '',
    group: '',
    version: 'v1',
    resource: 'configmaps',
    subresource: '',
    scope: 'namespace',
    component: 'apiserver',
  };

  it('counts requests and their latency with upstream labels', async () => {
    const metrics = new ApiServerMetrics({ logger: capturingLogger().logger });
    metrics.observeRequest(list, 200, 0.003, 1234);
    metrics.observeRequest(list, 200, 0.3, 10);
    metrics.observeRequest({ ...list, verb: 'POST', scope: 'resource', dry_run: 'All' }, 201, 0.01, 10);
    const text = await metrics.text();
    assert.ok(
      text.includes(
        '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      ),
    );
    assert.ok(
      text.includes(
        'apiserver_request_total{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"} 2',
      ),
    );
    assert.ok(
      text.includes(
        'apiserver_request_total{verb="POST",dry_run="All",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="201"} 1',
      ),
    );
    assert.ok(
      text.includes(
        'apiserver_request_duration_seconds_bucket{le="0.005",verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver"} 1',
      ),
    );
    assert.ok(
      text.includes(
        'apiserver_request_duration_seconds_bucket{le="0.4",verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver"} 2',
      ),
    );
    assert.ok(
      text.includes(
        'apiserver_response_sizes_sum{verb="LIST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver"} 1244',
      ),
    );
    assert.ok(!text.includes('apiserver_response_sizes_sum{verb="POST"'));
  });

  it('tracks watches, their events, deprecated APIs, terminations and etcd calls', async () => {
    const metrics = new ApiServerMetrics({ logger: capturingLogger().logger });
    const watch = { ...list, verb: 'WATCH' };
    const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };
    const end1 = metrics.watchStarted(watch, gvk);
    metrics.watchStarted(watch, gvk);
    end1();
    const record = metrics.watchEventRecorder(gvk);
    record(100);
    record(3000);
    metrics.deprecatedApiRequested({ group: '', version: 'v1', resource: 'componentstatuses', subresource: '', removed_release: '' });
    metrics.observeTermination(list, 429);
    metrics.etcdRequest('get', 'configmaps', 0.002, false);
    metrics.etcdRequest('get', 'configmaps', 0.002, true);
    const text = await metrics.text();
    assert.ok(
      text.includes(
        'apiserver_longrunning_requests{verb="WATCH",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver"} 1',
      ),
    );
    assert.ok(text.includes('apiserver_registered_watchers{group="",version="v1",kind="ConfigMap"} 1'));
    assert.ok(text.includes('apiserver_watch_events_total{group="",version="v1",kind="ConfigMap"} 2'));
    assert.ok(text.includes('apiserver_watch_events_sizes_bucket{le="1024",group="",version="v1",kind="ConfigMap"} 1'));
    assert.ok(text.includes('apiserver_requested_deprecated_apis{group="",version="v1",resource="componentstatuses",subresource="",removed_release=""} 1'));
    assert.ok(
      text.includes(
        'apiserver_request_terminations_total{verb="LIST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="429"} 1',
      ),
    );
    assert.ok(text.includes('etcd_request_duration_seconds_count{operation="get",type="configmaps"} 2'));
    assert.ok(text.includes('etcd_requests_total{operation="get",type="configmaps"} 2'));
    assert.ok(text.includes('etcd_request_errors_total{operation="get",type="configmaps"} 1'));
  });

  it('reads object counts and in-flight watermarks when scraped, and exports process metrics', async () => {
    const metrics = new ApiServerMetrics({ logger: capturingLogger().logger, buildInfo: { major: '1', minor: '32' } });
    let count = 3;
    metrics.setStorageObjectsSource(() => [{ resource: 'leases.coordination.k8s.io', count }]);
    metrics.setInflightSource(() => ({ readOnly: 5, mutating: 2 }));
    assert.ok((await metrics.text()).includes('apiserver_storage_objects{resource="leases.coordination.k8s.io"} 3'));
    count = 4;
    const text = await metrics.text();
    assert.ok(text.includes('apiserver_storage_objects{resource="leases.coordination.k8s.io"} 4'));
    assert.ok(text.includes('apiserver_current_inflight_requests{request_kind="readOnly"} 5'));
    assert.ok(text.includes('apiserver_current_inflight_requests{request_kind="mutating"} 2'));
    assert.ok(text.includes('kubernetes_build_info{major="1",minor="32"} 1'));
    assert.match(text, /^process_cpu_seconds_total \d/m);
    assert.match(text, /^process_resident_memory_bytes \d/m);
    assert.match(text, /^nodejs_heap_size_used_bytes \d/m);
    assert.equal(metrics.contentType, 'text/plain; version=0.0.4; charset=utf-8');
  });
});
