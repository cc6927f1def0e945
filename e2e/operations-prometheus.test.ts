/**
 * A real Prometheus (Debian's `prometheus` package, installed here when missing and we are root)
 * scrapes two API server replicas over HTTPS with the admin client certificate: both targets
 * report up, and the request counters of both are queryable through Prometheus' HTTP API.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { stringify as toYaml } from 'yaml';
import { skipUnlessEtcd } from '../shared/etcd/availability.ts';
import { freePort } from '../shared/net/free-ports.ts';
import { waitFor, type WaitOptions } from '../apiserver/testing/wait-for.ts';
import { registerCleanup, run, startCluster, terminate, type Cluster } from './harness.ts';

/** How long Prometheus may take to start, discover and scrape both targets. */
const SCRAPE_TIMEOUT_MS = 60_000;

/** The prometheus binary: on PATH, or installed from Debian's package when running as root. */
async function prometheusBinary(): Promise<string> {
  const found = await run('sh', ['-c', 'command -v prometheus']);
  if (found.code === 0) return found.stdout.trim();
  if (process.getuid?.() !== 0) throw new Error('prometheus is not installed and this test is not root: apt-get install -y prometheus');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = await run('sh', ['-c', 'apt-get install -y -qq prometheus || (apt-get update -qq && apt-get install -y -qq prometheus)'], {
    env,
    timeoutMs: 600_000,
  });
  if (install.code !== 0) throw new Error(`apt-get install prometheus failed:\n${install.stderr}`);
  const again = await run('sh', ['-c', 'command -v prometheus']);
  if (again.code !== 0) throw new Error('prometheus is still not on PATH after installing it');
  return again.stdout.trim();
}

/** GET on Prometheus' HTTP API (plain HTTP on loopback), decoded. */
function promApi(port: number, path: string): Promise<{ status: string; data: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { status: string; data: unknown });
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    });
    req.once('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.once('error', reject);
    req.end();
  });
}

interface Target {
  scrapeUrl: string;
  health: string;
  lastError: string;
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describe('Prometheus scraping two replicas', { timeout: 240_000, skip: skipUnlessEtcd() }, () => {
  let cluster: Cluster;
  let prometheus: ChildProcess | undefined;
  let promPort = 0;
  let promLog = '';

  before(async () => {
    const binary = await prometheusBinary();
    cluster = await startCluster({ replicas: 2 });
    const pki = join(cluster.dataDir, 'pki');
    const promDir = join(cluster.dir, 'prometheus');
    mkdirSync(promDir, { recursive: true });
    const config = {
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      scrape_configs: [
        {
          job_name: 'corral',
          scheme: 'https',
          metrics_path: '/metrics',
          tls_config: { ca_file: join(pki, 'ca.crt'), cert_file: join(pki, 'admin.crt'), key_file: join(pki, 'admin.key') },
          static_configs: [{ targets: cluster.replicas.map((r) => `127.0.0.1:${r.port}`) }],
        },
      ],
    };
    const configFile = join(promDir, 'prometheus.yml');
    writeFileSync(configFile, toYaml(config));
    promPort = await freePort();
    promLog = join(promDir, 'prometheus.log');
    const fd = openSync(promLog, 'a');
    prometheus = spawn(binary, [`--config.file=${configFile}`, `--storage.tsdb.path=${join(promDir, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`], {
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    const started = prometheus;
    registerCleanup(() => [started], promDir);
  });

  after(async () => {
    if (prometheus) await terminate(prometheus);
    await cluster?.stop();
  });

  const logTail = (): string => {
    try {
      return readFileSync(promLog, 'utf8').split('\n').slice(-20).join('\n');
    } catch {
      return '';
    }
  };

  /** How Prometheus' answers are polled: a failed query is retried, and a timeout shows its log. */
  const scraping: WaitOptions = { timeoutMs: SCRAPE_TIMEOUT_MS, intervalMs: 500, retryErrors: true, detail: () => `--- prometheus log ---\n${logTail()}` };

  it('reports both replicas up', async () => {
    const expected = cluster.replicas.map((r) => `https://127.0.0.1:${r.port}/metrics`).sort();
    const targets = await waitFor(
      'both targets up',
      async () => {
        const res = await promApi(promPort, '/api/v1/targets?state=active');
        const active = (res.data as { activeTargets: Target[] }).activeTargets;
        const up = active
          .filter((t) => t.health === 'up')
          .map((t) => t.scrapeUrl)
          .sort();
        if (JSON.stringify(up) !== JSON.stringify(expected)) throw new Error(active.map((t) => `${t.scrapeUrl} ${t.health} ${t.lastError}`).join('; '));
        return active;
      },
      scraping,
    );
    assert.equal(targets.length, 2);
    const up = await promApi(promPort, `/api/v1/query?query=${encodeURIComponent('up{job="corral"}')}`);
    const samples = (up.data as { result: Sample[] }).result;
    assert.deepEqual(
      samples.map((s) => s.value[1]),
      ['1', '1'],
    );
  });

  it('has the request counters of both replicas', async () => {
    for (const [i] of cluster.replicas.entries()) {
      const res = await cluster.request({
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        replica: i,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `scraped-${i}` } }),
      });
      assert.equal(res.status, 201, res.text);
    }
    const query = 'sum by (instance) (apiserver_request_total{job="corral",verb="POST",resource="configmaps",code="201"})';
    const samples = await waitFor(
      'POST counters of both replicas',
      async () => {
        const res = await promApi(promPort, `/api/v1/query?query=${encodeURIComponent(query)}`);
        const result = (res.data as { result: Sample[] }).result;
        return result.length === 2 && result.every((s) => Number(s.value[1]) >= 1) ? result : undefined;
      },
      scraping,
    );
    assert.deepEqual(samples.map((s) => s.metric.instance).sort(), cluster.replicas.map((r) => `127.0.0.1:${r.port}`).sort());
    // Prometheus' own view of the scraped families (metadata API) names the upstream metrics.
    const metadata = await promApi(promPort, '/api/v1/metadata');
    const families = metadata.data as Record<string, { type: string; help: string }[]>;
    for (const name of [
      'apiserver_request_total',
      'apiserver_request_duration_seconds',
      'apiserver_current_inflight_requests',
      'apiserver_storage_objects',
      'etcd_request_duration_seconds',
      'process_cpu_seconds_total',
    ]) {
      assert.ok(families[name], `${name} is scraped`);
    }
    assert.equal(families.apiserver_request_total?.[0]?.type, 'counter');
    assert.match(families.apiserver_request_total?.[0]?.help ?? '', /^\[STABLE\] Counter of apiserver requests/);
  });
});
