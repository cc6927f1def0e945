/**
 * The operational features of the pipeline against in-process API servers on one embedded store:
 * deprecation signals, /metrics, the audit log, request logs, in-flight limits, request timeouts,
 * runtime configuration errors and graceful shutdown.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { connect as http2Connect } from 'node:http2';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApiServer, withLivezGrace, type RunningApiServer } from '../app.ts';
import { pkiPaths } from '../auth/pki-setup.ts';
import { configFromFlags, parseFlags } from '../config.ts';
import { waitFor } from '../testing/wait-for.ts';
import { createLogger } from './logging.ts';
import { configMapDefinition } from '../registry/core/configmap.ts';

const workDir = mkdtempSync(join(tmpdir(), 'corral-operations-'));
const dataDir = join(workDir, 'data');
const tokenFile = join(workDir, 'tokens.csv');
// bob is an ordinary user whose group may edit configmaps (see `start`); prometheus reads /metrics
// through the default policy's system:monitoring.
writeFileSync(tokenFile, 'bob-token,bob,uid-bob,"devs"\nprom-token,prometheus,uid-prom,"system:monitoring"\n');
const running: RunningApiServer[] = [];

after(async () => {
  for (const s of running) await s.close();
  rmSync(workDir, { recursive: true, force: true });
});

interface Started {
  server: RunningApiServer;
  /** Every log line of this server, parsed. */
  logs: Record<string, unknown>[];
  /** The raw log text, to look for what must never be logged. */
  logText: () => string;
}

async function start(args: string[] = []): Promise<Started> {
  const logs: Record<string, unknown>[] = [];
  let raw = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw += chunk.toString('utf8');
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = configFromFlags(
    parseFlags([
      '--secure-port=0',
      '--bind-address=127.0.0.1',
      `--data-dir=${dataDir}`,
      `--token-auth-file=${tokenFile}`,
      '--etcd-compaction-interval=0',
      ...args,
    ]),
  );
  const server = await startApiServer(config, createLogger('info', 'apiserver', sink));
  running.push(server);
  await grantConfigMaps(server.url, 'devs');
  return { server, logs, logText: () => raw };
}

type Auth = 'admin' | 'none' | { token: string };

/** Lets a group do anything with configmaps, everywhere (as the admin). */
async function grantConfigMaps(url: string, group: string): Promise<void> {
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'configmap-editor' },
    rules: [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }],
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `configmap-editor-${group}` },
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: group }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'configmap-editor' },
  };
  // PUT creates or keeps them: the servers of this file share one store.
  assert.ok([200, 201].includes((await call(url, 'PUT', '/apis/rbac.authorization.k8s.io/v1/clusterroles/configmap-editor', { body: role })).status));
  assert.ok(
    [200, 201].includes((await call(url, 'PUT', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${binding.metadata.name}`, { body: binding })).status),
  );
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  warnings: string[];
}

function requestOptions(url: string, path: string, method: string, auth: Auth, headers: Record<string, string>): RequestOptions {
  const pki = pkiPaths(dataDir);
  const base = new URL(url);
  return {
    hostname: base.hostname,
    port: base.port,
    path,
    method,
    agent: false,
    ca: readFileSync(pki.caCert),
    ...(auth === 'admin' ? { cert: readFileSync(pki.adminCert), key: readFileSync(pki.adminKey) } : {}),
    headers: { accept: 'application/json', ...(typeof auth === 'object' ? { authorization: `Bearer ${auth.token}` } : {}), ...headers },
  };
}

function collect(res: IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.once('error', reject);
    res.once('end', () => {
      const warnings: string[] = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]?.toLowerCase() === 'warning') warnings.push(res.rawHeaders[i + 1] ?? '');
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), warnings });
    });
  });
}

function call(url: string, method: string, path: string, opts: { auth?: Auth; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers = { ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}), ...opts.headers };
  return new Promise((resolve, reject) => {
    const req = httpsRequest(requestOptions(url, path, method, opts.auth ?? 'admin', headers), (res) => void collect(res).then(resolve, reject));
    req.once('error', reject);
    req.end(body);
  });
}

/** A POST whose body is only partly sent: the request is in flight until `finish` sends the rest. */
function slowPost(url: string, path: string, body: unknown, auth: Auth = 'admin'): { answer: Promise<Answer>; finish(): void; req: ClientRequest } {
  const text = JSON.stringify(body);
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
  let req!: ClientRequest;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = httpsRequest(requestOptions(url, path, 'POST', auth, headers), (res) => void collect(res).then(resolve, reject));
    req.once('error', reject);
  });
  req.write(text.slice(0, 5));
  return { answer, req, finish: () => req.end(text.slice(5)) };
}

/** An open watch: its frames so far, and a promise of how it ended. */
function openWatch(url: string, path: string): Promise<{ frames: string[]; ended: Promise<'end' | 'error'>; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(requestOptions(url, path, 'GET', 'admin', {}), (res) => {
      const frames: string[] = [];
      res.setEncoding('utf8');
      res.on('data', (c: string) => frames.push(...c.split('\n').filter(Boolean)));
      const ended = new Promise<'end' | 'error'>((done) => {
        res.once('end', () => done('end'));
        res.once('error', () => done('error'));
        res.once('aborted', () => done('error'));
      });
      resolve({ frames, ended, headers: res.headers });
    });
    req.once('error', reject);
    req.end();
  });
}

const configMap = (name: string, data: Record<string, string> = { a: 'b' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/** The value of a sample line of the exposition text, or undefined. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('a default server', () => {
  let s: Started;
  before(async () => {
    s = await start();
  });

  it('signals a deprecated API: Warning header and apiserver_requested_deprecated_apis', async () => {
    const res = await call(s.server.url, 'GET', '/api/v1/componentstatuses');
    assert.equal(res.status, 200);
    assert.deepEqual(res.warnings, ['299 - "v1 ComponentStatus is deprecated in v1.19+"']);
    const metrics = await call(s.server.url, 'GET', '/metrics');
    assert.equal(
      sample(metrics.text, 'apiserver_requested_deprecated_apis{group="",version="v1",resource="componentstatuses",subresource="",removed_release=""}'),
      1,
    );
    assert.equal(
      sample(metrics.text, 'apiserver_requested_deprecated_apis{group="",version="v1",resource="configmaps",subresource="",removed_release=""}'),
      undefined,
    );
  });

  it('signals that /healthz is deprecated', async () => {
    const res = await call(s.server.url, 'GET', '/healthz', { auth: 'none' });
    assert.equal(res.status, 200);
    assert.equal(res.text, 'ok');
    assert.deepEqual(res.warnings, ['299 - "/healthz is deprecated in v1.16+, use /livez and /readyz"']);
    assert.deepEqual((await call(s.server.url, 'GET', '/livez', { auth: 'none' })).warnings, []);
  });

  it('serves /metrics to system:monitoring (the default policy), in the Prometheus text format', async () => {
    const anonymous = await call(s.server.url, 'GET', '/metrics', { auth: 'none' });
    assert.equal(anonymous.status, 403);
    assert.equal((JSON.parse(anonymous.text) as { message: string }).message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
    assert.equal((await call(s.server.url, 'GET', '/metrics', { auth: { token: 'bob-token' } })).status, 403);
    const prometheus = await call(s.server.url, 'GET', '/metrics', { auth: { token: 'prom-token' } });
    assert.equal(prometheus.status, 200);
    assert.equal(prometheus.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(prometheus.text, /^# HELP apiserver_request_total \[STABLE\] /m);
    assert.match(prometheus.text, /^# TYPE apiserver_request_duration_seconds histogram$/m);
    assert.match(prometheus.text, /^process_start_time_seconds \d+/m);
  });

  it('counts requests with upstream verbs, scopes and codes, and times storage calls', async () => {
    const url = s.server.url;
    assert.equal((await call(url, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('m1') })).status, 201);
    assert.equal((await call(url, 'POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: configMap('m2') })).status, 201);
    assert.equal((await call(url, 'GET', '/api/v1/namespaces/default/configmaps/m1')).status, 200);
    assert.equal((await call(url, 'GET', '/api/v1/namespaces/default/configmaps/missing')).status, 404);
    assert.equal((await call(url, 'GET', '/api/v1/configmaps')).status, 200);
    assert.equal(
      (
        await call(url, 'PATCH', '/api/v1/namespaces/default/configmaps/m1', {
          body: { data: { c: 'd' } },
          headers: { 'content-type': 'application/merge-patch+json' },
        })
      ).status,
      200,
    );
    assert.equal((await call(url, 'DELETE', '/api/v1/namespaces/default/configmaps/m1')).status, 200);
    assert.equal((await call(url, 'GET', '/apis')).status, 200);
    assert.equal((await call(url, 'GET', '/readyz', { auth: 'none' })).status, 200);
    const text = (await call(url, 'GET', '/metrics')).text;
    const count = (labels: string) => sample(text, `apiserver_request_total{${labels}}`);
    assert.equal(
      count('verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="201"'),
      1,
    );
    assert.equal(
      count('verb="POST",dry_run="All",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="201"'),
      1,
    );
    assert.equal(
      count('verb="GET",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="200"'),
      1,
    );
    assert.equal(
      count('verb="GET",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="404"'),
      1,
    );
    assert.equal(
      count('verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="cluster",component="apiserver",code="200"'),
      1,
    );
    assert.equal(
      count('verb="PATCH",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="200"'),
      1,
    );
    assert.equal(
      count('verb="DELETE",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="200"'),
      1,
    );
    assert.equal(count('verb="GET",dry_run="",group="",version="",resource="",subresource="/apis",scope="",component="apiserver",code="200"'), 1);
    assert.ok((count('verb="GET",dry_run="",group="",version="",resource="",subresource="/readyz",scope="",component="",code="200"') ?? 0) >= 1);
    assert.equal(
      sample(
        text,
        'apiserver_request_duration_seconds_count{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver"}',
      ),
      1,
    );
    // The embedded store's own histogram: etcd_request_duration_seconds is etcd's alone.
    for (const operation of ['create', 'update', 'delete', 'get'])
      assert.ok((sample(text, `corral_embedded_storage_request_duration_seconds_count{operation="${operation}",type="configmaps"}`) ?? 0) >= 1, operation);
    assert.equal(sample(text, 'etcd_request_duration_seconds_count{operation="create",type="configmaps"}'), undefined);
    assert.ok((sample(text, 'apiserver_storage_size_bytes{storage_cluster_id="embedded"}') ?? 0) > 0);
    assert.equal(sample(text, 'apiserver_current_inflight_requests{request_kind="readOnly"}'), 1);
  });

  it('reports watches, their events and the stored objects', async () => {
    const url = s.server.url;
    await call(url, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('w1') });
    const watch = await openWatch(url, '/api/v1/namespaces/default/configmaps?watch=true');
    await call(url, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('w2') });
    await waitFor('two watch events', () => watch.frames.length >= 2);
    const text = (await call(url, 'GET', '/metrics')).text;
    assert.equal(
      sample(
        text,
        'apiserver_longrunning_requests{verb="WATCH",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver"}',
      ),
      1,
    );
    assert.equal(sample(text, 'apiserver_registered_watchers{group="",version="v1",kind="ConfigMap"}'), 1);
    assert.ok((sample(text, 'apiserver_watch_events_total{group="",version="v1",kind="ConfigMap"}') ?? 0) >= 2);
    const stored = sample(text, 'apiserver_storage_objects{resource="configmaps"}');
    const listed = JSON.parse((await call(url, 'GET', '/api/v1/configmaps')).text) as { items: unknown[] };
    assert.equal(stored, listed.items.length);
    assert.equal(sample(text, 'apiserver_storage_objects{resource="namespaces"}'), 4);
  });

  it('times out with upstream 504 when the timeout parameter is shorter than the request', async () => {
    // The message tells this timeout from the cache's own 504 (`Too large resource version`, after 3 s).
    const res = await call(
      s.server.url,
      'GET',
      '/api/v1/namespaces/default/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan&timeout=300ms',
    );
    assert.equal(res.status, 504);
    assert.deepEqual(JSON.parse(res.text), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within the allotted timeout',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    assert.equal(res.headers['retry-after'], undefined);
    const bad = await call(s.server.url, 'GET', '/api/v1/configmaps?timeout=5');
    assert.equal(bad.status, 400);
    assert.equal((JSON.parse(bad.text) as { message: string }).message, 'invalid timeout specified in the request URL - time: missing unit in duration "5"');
  });

  it('answers a bug in a handler with a 500 Status for that request alone, logs its stack and keeps serving', async () => {
    const strategy = configMapDefinition.strategy;
    // Saved only to be put back as it was, never called detached.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const validate = strategy.validate;
    strategy.validate = () => {
      throw new TypeError('a bug in validation');
    };
    try {
      const res = await call(s.server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('buggy') });
      assert.equal(res.status, 500);
      const status = JSON.parse(res.text) as { code: number; reason: string; message: string };
      assert.deepEqual([status.code, status.reason, status.message], [500, 'InternalError', 'Internal error occurred: a bug in validation']);
      assert.ok(!res.text.includes('    at '), 'no stack trace reaches the client');
      const logged = s.logs.find((l) => l.msg === 'request failed' && l.requestId === res.headers['audit-id']);
      assert.match(String((logged?.err as { stack?: string } | undefined)?.stack), /TypeError: a bug in validation\n\s+at /);
    } finally {
      strategy.validate = validate;
    }
    assert.equal((await call(s.server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('after-the-bug') })).status, 201);
    assert.equal((await call(s.server.url, 'GET', '/api/v1/namespaces/default/configmaps/buggy')).status, 404);
  });

  it('logs nothing per request at the default request log level', () => {
    assert.equal(s.logs.filter((l) => l.msg === 'request').length, 0);
  });

  it('declares the length of every answer it sends whole, over HTTP/1.1 and HTTP/2, so that a client can tell one cut short', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    for (const [method, target, status] of [
      ['GET', path, 200],
      ['GET', `${path}/absent`, 404],
      ['GET', '/version', 200],
      ['GET', '/openapi/v2', 200],
    ] as const) {
      const res = await call(s.server.url, method, target);
      assert.equal(res.status, status, `${method} ${target}`);
      assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.text)), `${method} ${target}`);
      assert.equal(res.headers['transfer-encoding'], undefined, `${method} ${target}: not chunked`);
    }
    const head = await call(s.server.url, 'HEAD', path);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers['content-length'], (await call(s.server.url, 'GET', path)).headers['content-length'], "HEAD declares GET's length");

    const pki = pkiPaths(dataDir);
    const session = http2Connect(s.server.url, { ca: readFileSync(pki.caCert), cert: readFileSync(pki.adminCert), key: readFileSync(pki.adminKey) });
    try {
      for (const method of ['GET', 'HEAD']) {
        const answer = await new Promise<{ headers: IncomingHttpHeaders; bytes: number }>((resolve, reject) => {
          const stream = session.request({ ':method': method, ':path': path, accept: 'application/json' });
          let bytes = 0;
          let headers: IncomingHttpHeaders = {};
          stream.once('response', (h) => (headers = h));
          stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
          stream.once('end', () => resolve({ headers, bytes }));
          stream.once('error', reject);
        });
        assert.equal(answer.headers[':status'], 200, method);
        assert.equal(answer.headers['content-length'], head.headers['content-length'], method);
        assert.equal(answer.bytes, method === 'GET' ? Number(head.headers['content-length']) : 0, method);
      }
    } finally {
      session.close();
    }
  });
});

describe('limits and logs', () => {
  let s: Started;
  before(async () => {
    s = await start([
      '--enable-priority-and-fairness=false',
      '--max-requests-inflight=1',
      '--max-mutating-requests-inflight=1',
      '--request-timeout=1500ms',
      '--request-log-level=info',
    ]);
  });

  it('turns away requests beyond --max-mutating-requests-inflight with upstream 429, except for system:masters', async () => {
    const held = slowPost(s.server.url, '/api/v1/namespaces/default/configmaps', configMap('held'));
    await waitFor('the held request to be in flight', async () => {
      const text = (await call(s.server.url, 'GET', '/metrics')).text;
      return (sample(text, 'apiserver_current_inflight_requests{request_kind="mutating"}') ?? 0) >= 1;
    });
    const refused = await call(s.server.url, 'POST', '/api/v1/namespaces/default/configmaps', { auth: { token: 'bob-token' }, body: configMap('bob1') });
    assert.equal(refused.status, 429);
    assert.equal(refused.text, 'Too many requests, please try again later.\n');
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.headers['content-type'], 'text/plain; charset=utf-8');
    // reads have their own limit
    assert.equal((await call(s.server.url, 'GET', '/api/v1/namespaces/default/configmaps', { auth: { token: 'bob-token' } })).status, 200);
    assert.equal((await call(s.server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('admin1') })).status, 201);
    held.finish();
    assert.equal((await held.answer).status, 201);
    assert.equal(
      (await call(s.server.url, 'POST', '/api/v1/namespaces/default/configmaps', { auth: { token: 'bob-token' }, body: configMap('bob2') })).status,
      201,
    );
    const text = (await call(s.server.url, 'GET', '/metrics')).text;
    assert.equal(
      sample(
        text,
        'apiserver_request_total{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="429"}',
      ),
      1,
    );
    assert.equal(
      sample(
        text,
        'apiserver_request_terminations_total{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="429"}',
      ),
      1,
    );
    assert.equal(sample(text, 'apiserver_current_inflight_requests{request_kind="mutating"}'), 2);
  });

  it('turns away reads beyond --max-requests-inflight, but never watches', async () => {
    const slow = call(s.server.url, 'GET', '/api/v1/namespaces/default/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan');
    await sleep(200);
    assert.equal((await call(s.server.url, 'GET', '/api/v1/namespaces/default/configmaps', { auth: { token: 'bob-token' } })).status, 429);
    const watch = await openWatch(s.server.url, '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=3');
    assert.equal(watch.headers['content-type'], 'application/json');
    assert.equal((await slow).status, 504);
    // the watch outlives --request-timeout (1.5s) and ends at its own timeoutSeconds
    assert.equal(await watch.ended, 'end');
  });

  it('times out requests after --request-timeout with upstream 504', async () => {
    const started = Date.now();
    const res = await call(s.server.url, 'GET', '/api/v1/namespaces/default/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan');
    const took = Date.now() - started;
    assert.equal(res.status, 504);
    assert.equal((JSON.parse(res.text) as { message: string }).message, 'Timeout: request did not complete within the allotted timeout');
    assert.ok(took >= 1400, `took ${took} ms`);
    const text = (await call(s.server.url, 'GET', '/metrics')).text;
    assert.ok(
      (sample(
        text,
        'apiserver_request_terminations_total{verb="LIST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="504"}',
      ) ?? 0) >= 1,
    );
  });

  it('logs one line per request at --request-log-level with the request id of the audit-id header, and never a credential', async () => {
    const res = await call(s.server.url, 'GET', '/api/v1/namespaces/default/configmaps/held', { auth: { token: 'bob-token' } });
    const id = res.headers['audit-id'];
    assert.match(String(id), /^[0-9a-f-]{36}$/);
    await waitFor('the request line', () => s.logs.some((l) => l.requestId === id));
    const line = s.logs.find((l) => l.requestId === id)!;
    assert.equal(line.level, 30);
    assert.equal(line.msg, 'request');
    assert.equal(line.verb, 'get');
    assert.equal(line.path, '/api/v1/namespaces/default/configmaps/held');
    assert.equal(line.user, 'bob');
    assert.equal(line.code, 200);
    assert.equal(typeof line.latencyMs, 'number');
    assert.ok(!s.logText().includes('bob-token'));
  });
});

describe('priority and fairness', () => {
  let s: Started;
  // A concurrency limit of 2 gives every priority level one seat; --request-timeout=2s lets a
  // request wait 500 ms for it.
  before(async () => {
    s = await start(['--max-requests-inflight=1', '--max-mutating-requests-inflight=1', '--request-timeout=2s']);
  });
  const configMaps = '/api/v1/namespaces/default/configmaps';
  const bob = { token: 'bob-token' };
  const inQueue = async (): Promise<number | undefined> =>
    sample(
      (await call(s.server.url, 'GET', '/metrics')).text,
      'apiserver_flowcontrol_current_inqueue_requests{flow_schema="global-default",priority_level="global-default"}',
    );

  it("queues a request beyond its level's seats instead of turning it away, and runs it once the seat is free", async () => {
    const held = slowPost(s.server.url, configMaps, configMap('pf-held'), bob);
    await waitFor('the held request to hold the seat', async () => {
      const text = (await call(s.server.url, 'GET', '/metrics')).text;
      return sample(text, 'apiserver_flowcontrol_current_executing_requests{flow_schema="global-default",priority_level="global-default"}') === 1;
    });
    const queued = call(s.server.url, 'POST', configMaps, { auth: bob, body: configMap('pf-queued') });
    await waitFor('the second request to wait in its queue', async () => (await inQueue()) === 1);
    // the exempt level (system:masters) and the probes are not held up by it
    assert.equal((await call(s.server.url, 'POST', configMaps, { body: configMap('pf-admin') })).status, 201);
    assert.equal((await call(s.server.url, 'GET', '/readyz', { auth: bob })).status, 200);
    held.finish();
    assert.equal((await held.answer).status, 201);
    const answer = await queued;
    assert.equal(answer.status, 201);
    assert.equal(await inQueue(), 0);
  });

  it('turns a request away with 429 when its wait runs out, and tells the client its flow schema and priority level', async () => {
    const held = slowPost(s.server.url, configMaps, configMap('pf-held2'), bob);
    await waitFor('the held request to hold the seat', async () => {
      const text = (await call(s.server.url, 'GET', '/metrics')).text;
      return sample(text, 'apiserver_flowcontrol_current_executing_requests{flow_schema="global-default",priority_level="global-default"}') === 1;
    });
    const started = Date.now();
    const refused = await call(s.server.url, 'POST', configMaps, { auth: bob, body: configMap('pf-late') });
    assert.equal(refused.status, 429);
    assert.ok(Date.now() - started >= 400, `answered after ${Date.now() - started} ms, before its 500 ms wait ran out`);
    assert.equal(refused.text, 'Too many requests, please try again later.\n');
    assert.equal(refused.headers['retry-after'], '1');
    assert.match(String(refused.headers['x-kubernetes-pf-flowschema-uid']), /^[0-9a-f-]{36}$/);
    assert.match(String(refused.headers['x-kubernetes-pf-prioritylevel-uid']), /^[0-9a-f-]{36}$/);
    held.finish();
    const ok = await held.answer;
    assert.equal(ok.status, 201);
    assert.equal(ok.headers['x-kubernetes-pf-flowschema-uid'], refused.headers['x-kubernetes-pf-flowschema-uid']);
    const admin = await call(s.server.url, 'GET', configMaps);
    assert.notEqual(admin.headers['x-kubernetes-pf-flowschema-uid'], ok.headers['x-kubernetes-pf-flowschema-uid']);
    const text = (await call(s.server.url, 'GET', '/metrics')).text;
    assert.equal(
      sample(text, 'apiserver_flowcontrol_rejected_requests_total{flow_schema="global-default",priority_level="global-default",reason="time-out"}'),
      1,
    );
    assert.equal(
      sample(
        text,
        'apiserver_request_terminations_total{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="429"}',
      ),
      1,
    );
  });
});

describe('the audit log', () => {
  let s: Started;
  const logPath = join(workDir, 'audit', 'audit.log');
  before(async () => {
    const policy = join(workDir, 'audit-policy.yaml');
    writeFileSync(
      policy,
      [
        'apiVersion: audit.k8s.io/v1',
        'kind: Policy',
        'omitStages: [RequestReceived]',
        'rules:',
        '- level: None',
        '  nonResourceURLs: ["/metrics", "/readyz*", "/livez*"]',
        '- level: Metadata',
        '  resources:',
        '  - group: ""',
        '    resources: [secrets]',
        '- level: RequestResponse',
        '  users: [bob]',
        '  verbs: [create]',
        '- level: Request',
        '  namespaces: [default]',
        '  omitStages: [ResponseStarted]',
        '- level: Metadata',
        '',
      ].join('\n'),
    );
    s = await start([`--audit-policy-file=${policy}`, `--audit-log-path=${logPath}`]);
  });

  const events = (): Record<string, unknown>[] =>
    readFileSync(logPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const byId = (id: unknown) => events().filter((e) => e.auditID === id);

  it('writes audit.k8s.io/v1 events per the policy, tied to the audit-id header', async () => {
    const res = await call(s.server.url, 'POST', '/api/v1/namespaces/default/configmaps', { auth: { token: 'bob-token' }, body: configMap('audited') });
    assert.equal(res.status, 201);
    const [event, ...more] = byId(res.headers['audit-id']);
    assert.equal(more.length, 0, 'RequestReceived is omitted by the policy');
    assert.equal(event?.kind, 'Event');
    assert.equal(event?.apiVersion, 'audit.k8s.io/v1');
    assert.equal(event?.level, 'RequestResponse');
    assert.equal(event?.stage, 'ResponseComplete');
    assert.equal(event?.verb, 'create');
    assert.equal(event?.requestURI, '/api/v1/namespaces/default/configmaps');
    assert.deepEqual(event?.user, { username: 'bob', uid: 'uid-bob', groups: ['devs', 'system:authenticated'] });
    assert.deepEqual(event?.sourceIPs, ['127.0.0.1']);
    assert.deepEqual(event?.objectRef, { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' });
    assert.deepEqual(event?.responseStatus, { metadata: {}, code: 201 });
    assert.deepEqual((event?.requestObject as { data: unknown }).data, { a: 'b' });
    assert.equal((event?.responseObject as { metadata: { name: string } }).metadata.name, 'audited');
    assert.deepEqual(event?.annotations, {
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "configmap-editor-devs" of ClusterRole "configmap-editor" to Group "devs"',
    });
  });

  it('keeps secrets at Metadata level and failures with their Status', async () => {
    const created = await call(s.server.url, 'POST', '/api/v1/namespaces/default/secrets', {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pw' }, data: { p: 'aHVudGVyMg==' } },
    });
    assert.equal(created.status, 201);
    const [event] = byId(created.headers['audit-id']);
    assert.equal(event?.level, 'Metadata');
    assert.equal(event?.requestObject, undefined);
    assert.ok(!readFileSync(logPath, 'utf8').includes('aHVudGVyMg=='));
    const missing = await call(s.server.url, 'GET', '/api/v1/namespaces/default/configmaps/missing');
    const [failed] = byId(missing.headers['audit-id']);
    assert.equal(failed?.level, 'Request');
    assert.deepEqual(failed?.responseStatus, {
      metadata: {},
      status: 'Failure',
      message: 'configmaps "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', kind: 'configmaps' },
      code: 404,
    });
  });

  it('annotates requests to deprecated APIs and skips what the policy excludes', async () => {
    const res = await call(s.server.url, 'GET', '/api/v1/componentstatuses');
    const [event] = byId(res.headers['audit-id']);
    assert.deepEqual(event?.annotations, { 'k8s.io/deprecated': 'true', 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
    const healthz = await call(s.server.url, 'GET', '/healthz', { auth: 'none' });
    const [probe] = byId(healthz.headers['audit-id']);
    assert.deepEqual(probe?.user, { username: 'system:anonymous', groups: ['system:unauthenticated'] });
    assert.deepEqual(probe?.annotations, {
      'k8s.io/deprecated': 'true',
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason':
        'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"',
    });
    const metrics = await call(s.server.url, 'GET', '/metrics');
    assert.deepEqual(byId(metrics.headers['audit-id']), []);
    assert.ok((sample(metrics.text, 'apiserver_audit_event_total') ?? 0) >= 4);
  });

  it('audits a watch with ResponseStarted unless the matching rule omits it, and a failed authentication', async () => {
    const watch = await openWatch(s.server.url, '/apis/coordination.k8s.io/v1/leases?watch=true&timeoutSeconds=1');
    assert.equal(await watch.ended, 'end');
    const id = watch.headers['audit-id'];
    await waitFor('the last event of the watch', () => byId(id).length === 2);
    assert.deepEqual(
      byId(id).map((e) => e.stage),
      ['ResponseStarted', 'ResponseComplete'],
    );
    const defaultNs = await openWatch(s.server.url, '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1');
    await defaultNs.ended;
    await waitFor('the last event of the other watch', () => byId(defaultNs.headers['audit-id']).length === 1);
    await sleep(100);
    assert.deepEqual(
      byId(defaultNs.headers['audit-id']).map((e) => e.stage),
      ['ResponseComplete'],
    );
    const rejected = await call(s.server.url, 'GET', '/api/v1/namespaces', { auth: { token: 'wrong' } });
    assert.equal(rejected.status, 401);
    const [event] = byId(rejected.headers['audit-id']);
    assert.deepEqual(event?.user, {});
    assert.equal((event?.responseStatus as { code: number }).code, 401);
  });
});

describe('graceful shutdown', () => {
  it('fails /readyz first, serves during --shutdown-delay-duration, then stops accepting, ends watches and finishes requests in flight', async () => {
    const s = await start(['--shutdown-delay-duration=1s']);
    const url = s.server.url;
    const watch = await openWatch(url, '/api/v1/namespaces/default/configmaps?watch=true');
    const held = slowPost(url, '/api/v1/namespaces/default/configmaps', configMap('in-flight'));
    await sleep(100);
    const stopped = s.server.shutdown();
    const ready = await call(url, 'GET', '/readyz?verbose', { auth: 'none' });
    assert.equal(ready.status, 500);
    assert.match(ready.text, /^\[-\]shutdown failed: reason withheld$/m);
    assert.match(ready.text, /^\[\+\]embedded-storage ok$/m);
    assert.equal((await call(url, 'GET', '/livez', { auth: 'none' })).status, 200);
    assert.equal((await call(url, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    await waitFor('the watch to end', async () => (await Promise.race([watch.ended, sleep(50).then(() => 'open')])) === 'end', { timeoutMs: 5000 });
    await assert.rejects(call(url, 'GET', '/livez', { auth: 'none' }), { code: 'ECONNREFUSED' });
    held.finish();
    assert.equal((await held.answer).status, 201);
    await stopped;
    const messages = s.logs.map((l) => l.msg);
    assert.deepEqual(
      messages.filter((m) => typeof m === 'string' && /shutdown|accepting|drained/.test(m)),
      [
        'shutdown initiated: /readyz fails from now on',
        'no longer accepting new connections; ending watches',
        'requests in flight drained',
        'shutdown complete',
      ],
    );
  });

  it('sends HTTP/2 clients a GOAWAY and still completes their streams in flight', async () => {
    const s = await start();
    const pki = pkiPaths(dataDir);
    const session = http2Connect(s.server.url, { ca: readFileSync(pki.caCert), cert: readFileSync(pki.adminCert), key: readFileSync(pki.adminKey) });
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    const text = JSON.stringify(configMap('over-h2'));
    const stream = session.request({
      ':method': 'POST',
      ':path': '/api/v1/namespaces/default/configmaps',
      'content-type': 'application/json',
      'content-length': String(text.length),
    });
    const status = new Promise<number>((resolve) => stream.once('response', (headers) => resolve(Number(headers[':status']))));
    stream.resume();
    const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    stream.write(text.slice(0, 5));
    await sleep(200);
    const stopped = s.server.shutdown();
    await goaway;
    stream.end(text.slice(5));
    assert.equal(await status, 201);
    await closed;
    await stopped;
    session.close();
  });

  it('ends an HTTP/2 session with a GOAWAY after its next answer once leaving, as HTTP/1.1 answers close their connection', async () => {
    const s = await start(['--shutdown-delay-duration=2s']);
    const pki = pkiPaths(dataDir);
    const session = http2Connect(s.server.url, { ca: readFileSync(pki.caCert), cert: readFileSync(pki.adminCert), key: readFileSync(pki.adminKey) });
    let goaways = 0;
    session.on('goaway', () => goaways++);
    const get = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const stream = session.request({ ':path': '/api/v1/namespaces/default/configmaps' });
        stream.once('response', (headers) => resolve(Number(headers[':status'])));
        stream.once('error', reject);
        stream.resume();
      });
    assert.equal(await get(), 200);
    await sleep(100);
    assert.equal(goaways, 0, 'a ready replica keeps the session');
    const stopped = s.server.shutdown();
    assert.equal(await get(), 200, 'still serving during the shutdown delay');
    await waitFor('the GOAWAY after the answer', () => (goaways > 0 ? true : undefined), { timeoutMs: 2000 });
    await stopped;
    session.close();
  });
});

describe('start-up errors', () => {
  it('rejects an invalid --runtime-config with upstream message', async () => {
    await assert.rejects(start(['--runtime-config=batch/v1=false']), { message: 'unknown api groups batch' });
    await assert.rejects(start(['--runtime-config=storage.k8s.io/v1=yes']), {
      message: 'invalid value of storage.k8s.io/v1: yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    });
  });

  it('rejects an invalid audit policy', async () => {
    const policy = join(workDir, 'bad-policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n');
    await assert.rejects(start([`--audit-policy-file=${policy}`]), {
      message: `loading audit policy file: loaded illegal policy with 0 rules: from file ${policy}`,
    });
  });

  it('serves alpha versions only when --runtime-config enables them', async () => {
    const alpha = await start(['--runtime-config=networking.k8s.io/v1alpha1=true,storage.k8s.io/v1/csinodes=false']);
    assert.equal((await call(alpha.server.url, 'GET', '/apis/networking.k8s.io/v1alpha1/clustercidrs')).status, 200);
    assert.equal((await call(alpha.server.url, 'GET', '/apis/storage.k8s.io/v1/csinodes')).status, 404);
    assert.equal((await call(alpha.server.url, 'GET', '/apis/storage.k8s.io/v1/csidrivers')).status, 200);
    await alpha.server.close();
  });
});

describe('livez grace period', () => {
  it('passes start-up checks until the grace period is over', async () => {
    let now = 1000;
    const failing = { name: 'poststarthook/x', check: async () => Promise.reject(new Error('not yet')) };
    const graced = withLivezGrace(failing, 5000, 1000, () => now);
    await graced.check();
    now = 6000;
    await graced.check();
    now = 6001;
    await assert.rejects(graced.check(), { message: 'not yet' });
    assert.equal(withLivezGrace(failing, 0, 1000), failing);
  });
});
