import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { collectProcessMetrics } from './process-metrics.ts';

test('the process metrics keep CPU, memory, file descriptors and the event loop, without per-handle counts', async () => {
  const registry = new Registry();
  collectProcessMetrics(registry);
  const text = await registry.metrics();
  for (const name of [
    'process_cpu_seconds_total',
    'process_resident_memory_bytes',
    'process_open_fds',
    'nodejs_eventloop_lag_p99_seconds',
    'nodejs_heap_size_used_bytes',
  ]) {
    assert.match(text, new RegExp(`^${name} `, 'm'), name);
  }
  assert.doesNotMatch(text, /^nodejs_active_(handles|requests|resources)/m);
});
