/**
 * Admission plugins that need a server: EventRateLimit configured through
 * --admission-control-config-file (with a real kubectl), and configuration errors that stop the
 * server before it serves.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot, run, startCluster, type Cluster } from './harness.ts';

const configDir = mkdtempSync(join(tmpdir(), 'corral-admission-'));
after(() => rmSync(configDir, { recursive: true, force: true }));

const event = (name: string, namespace = 'default') =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace },
    involvedObject: { kind: 'ConfigMap', name: 'x', namespace },
    reason: 'Test',
    message: 'admission e2e',
    type: 'Normal',
  });

describe('EventRateLimit from --admission-control-config-file', { timeout: 180_000 }, () => {
  let cluster: Cluster;
  before(async () => {
    writeFileSync(
      join(configDir, 'events.yaml'),
      'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Namespace\n  qps: 0.01\n  burst: 3\n',
    );
    writeFileSync(
      join(configDir, 'admission.yaml'),
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: events.yaml\n',
    );
    cluster = await startCluster({
      apiserverArgs: ['--enable-admission-plugins=EventRateLimit', `--admission-control-config-file=${join(configDir, 'admission.yaml')}`],
    });
  });
  after(async () => cluster?.stop());

  it("admits the burst of a namespace, then answers 429 with upstream's message", async () => {
    for (const name of ['e1', 'e2', 'e3']) {
      const created = await cluster.kubectl(['create', '-f', '-'], { input: event(name) });
      assert.equal(created.code, 0, created.stderr);
    }
    const refused = await cluster.request({
      method: 'POST',
      path: '/api/v1/namespaces/default/events',
      headers: { 'content-type': 'application/json' },
      body: event('e4'),
    });
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests: limit reached on type Namespace for key default',
      reason: 'TooManyRequests',
      code: 429,
    });
    const other = await cluster.request({
      method: 'POST',
      path: '/api/v1/namespaces/kube-system/events',
      headers: { 'content-type': 'application/json' },
      body: event('e5', 'kube-system'),
    });
    assert.equal(other.status, 201, 'another namespace has its own bucket');
  });
});

describe('admission configuration errors stop the server before it serves', () => {
  const start = (...flags: string[]) =>
    run(
      process.execPath,
      ['--import', 'tsx', 'apiserver/main.ts', '--etcd-servers=http://127.0.0.1:1', '--secure-port=0', `--data-dir=${join(configDir, 'data')}`, ...flags],
      {
        cwd: repoRoot,
        timeoutMs: 60_000,
      },
    );

  it('names every bad flag at once', async () => {
    const result = await start('--enable-admission-plugins=Nope', '--authorization-mode=RBAC,RBAC');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /authorization-mode \["RBAC" "RBAC"\] has mode specified more than once/);
    assert.match(result.stderr, /enable-admission-plugins plugin "Nope" is unknown/);
  });

  it('refuses EventRateLimit without limits, and a missing configuration file', async () => {
    const noLimits = await start('--enable-admission-plugins=EventRateLimit');
    assert.equal(noLimits.code, 1);
    assert.match(noLimits.stderr, /EventRateLimit configuration: limits: Invalid value: null: must not be empty/);
    const missing = await start(`--admission-control-config-file=${join(configDir, 'nope.yaml')}`);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /unable to read admission control configuration from ".*nope.yaml"/);
  });
});
