import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecureVersion, TLSSocket } from 'node:tls';
import { after, afterEach, before, describe, it } from 'node:test';
import pino from 'pino';
import { Counter, Registry } from 'prom-client';
import { StatusError } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingApiClient, type ApiAction } from '../../shared/client/testing.ts';
import { createCA, issueClientCertificate, issueServingCertificate, type CertificateAndKey, type CertificateAuthority } from '../../shared/pki/certificates.ts';
import { defaultKubeletConfiguration } from '../config/defaults.ts';
import type { KubeletConfiguration } from '../config/fields.ts';
import { subjectAccessReviewPath } from './authorization.ts';
import type { ServingCertificateSource } from './serving-certificate.ts';
import { startNodeAgentServers, type NodeAgentServerOptions, type NodeAgentServers } from './servers.ts';
import { tokenReviewPath } from '../../shared/delegated-auth/token-review.ts';
import { freePort } from '../../shared/net/free-ports.ts';

const logger = pino({ level: 'silent' });

let dir: string;
let servingCA: CertificateAuthority;
let serving: CertificateAndKey;
let clientCA: CertificateAuthority;
let alice: CertificateAndKey;
let rogue: CertificateAndKey;
let serverOnly: CertificateAndKey;
let certFile: string;
let keyFile: string;
let clientCAFile: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corral-nodeagent-server-'));
  servingCA = await createCA({ commonName: 'serving-ca' });
  serving = await issueServingCertificate(servingCA, { commonName: 'node-a', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  clientCA = await createCA({ commonName: 'client-ca' });
  alice = await issueClientCertificate(clientCA, { commonName: 'alice', organizations: ['devs'] });
  rogue = await issueClientCertificate(await createCA({ commonName: 'rogue-ca' }), { commonName: 'alice', organizations: ['devs'] });
  serverOnly = await issueServingCertificate(clientCA, { commonName: 'alice', dnsNames: ['alice'], ipAddresses: [] });
  certFile = join(dir, 'serving.crt');
  keyFile = join(dir, 'serving.key');
  clientCAFile = join(dir, 'client-ca.crt');
  await writeFile(certFile, serving.certPem);
  await writeFile(keyFile, serving.keyPem);
  await writeFile(clientCAFile, clientCA.certPem);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const running: NodeAgentServers[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** Tokens `alice-token` (alice, devs) and `bob-token` (bob) authenticate; SARs allow what `grants` lists as `user verb subresource`. */
function apiServer(grants: string[] = []): RecordingApiClient {
  const api = new RecordingApiClient();
  api.react((action: ApiAction) => {
    if (action.verb !== 'create') return undefined;
    if (action.path === tokenReviewPath) {
      const review = action.body as { spec: { token: string } };
      const users: Record<string, { username: string; groups: string[] }> = {
        'alice-token': { username: 'alice', groups: ['devs'] },
        'bob-token': { username: 'bob', groups: [] },
      };
      const user = users[review.spec.token];
      return { ...review, status: user ? { authenticated: true, user } : { authenticated: false } };
    }
    if (action.path === subjectAccessReviewPath) {
      const review = action.body as { spec: { user: string; resourceAttributes: { verb: string; subresource: string } } };
      const { verb, subresource } = review.spec.resourceAttributes;
      return { ...review, status: { allowed: grants.includes(`${review.spec.user} ${verb} ${subresource}`) } };
    }
    return undefined;
  });
  return api;
}

function config(change: (c: KubeletConfiguration) => void = () => {}): KubeletConfiguration {
  const c = defaultKubeletConfiguration({});
  c.address = '127.0.0.1';
  c.port = 0;
  c.healthzPort = 0;
  c.readOnlyPort = 0;
  c.tlsCertFile = certFile;
  c.tlsPrivateKeyFile = keyFile;
  change(c);
  return c;
}

const pods: KubeObject[] = [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'p1' },
    spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] },
  },
];

async function start(options: Partial<NodeAgentServerOptions> & { config: KubeletConfiguration }): Promise<NodeAgentServers> {
  const registry = new Registry();
  new Counter({ name: 'corral_test_total', help: 'A counter for the test.', registers: [registry] }).inc();
  const servers = await startNodeAgentServers({
    nodeName: 'node-a',
    certDir: join(dir, 'unused-cert-dir'),
    api: apiServer(),
    pods: () => pods,
    registry,
    logger,
    ...options,
  });
  running.push(servers);
  return servers;
}

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  peerCertificate: string;
}

interface Call {
  method?: string;
  token?: string;
  client?: CertificateAndKey;
  maxVersion?: SecureVersion;
  ciphers?: string;
  servername?: string;
}

/** One HTTPS request on a fresh connection, trusting the test CA (and the self-signed one when given). */
function call(port: number, path: string, opts: Call = {}, ca: string = servingCA.certPem): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        agent: false,
        ca,
        servername: opts.servername ?? 'localhost',
        headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
        ...(opts.client ? { cert: opts.client.certPem, key: opts.client.keyPem } : {}),
        ...(opts.maxVersion ? { maxVersion: opts.maxVersion } : {}),
        ...(opts.ciphers ? { ciphers: opts.ciphers } : {}),
      },
      (res) => {
        const peer = (res.socket as TLSSocket).getPeerCertificate();
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers, peerCertificate: peer.fingerprint256 }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function plainCall(port: number, path: string, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
const sars = (api: RecordingApiClient) =>
  api.actions.filter((a) => a.path === subjectAccessReviewPath).map((a) => (a.body as { spec: Record<string, unknown> }).spec);

describe('node agent server: bearer tokens and access reviews', () => {
  it('serves a request whose token is authenticated and whose review allows it', async () => {
    const api = apiServer(['alice get proxy']);
    const { port } = await start({ config: config(), api });
    const answer = await call(port!, '/pods', { token: 'alice-token' });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(answer.body), {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: {},
      items: [{ metadata: { name: 'web', namespace: 'default', uid: 'p1' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] } }],
    });
    assert.deepEqual(
      api.actions.map((a) => a.path),
      [tokenReviewPath, subjectAccessReviewPath],
    );
    assert.deepEqual(sars(api), [
      {
        resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', subresource: 'proxy', name: 'node-a' },
        user: 'alice',
        groups: ['devs', 'system:authenticated'],
      },
    ]);
  });

  it('refuses a token the API server does not authenticate with 401, even where anonymous requests are allowed', async () => {
    const { port } = await start({ config: config((c) => (c.authentication.anonymous.enabled = true)), api: apiServer(['system:anonymous get proxy']) });
    const answer = await call(port!, '/pods', { token: 'stolen' });
    assert.equal(answer.status, 401);
    assert.equal(answer.body, 'Unauthorized');
  });

  it('answers 403 with the user, verb and subresources tried', async () => {
    const api = apiServer();
    const { port } = await start({ config: config(), api });
    const answer = await call(port!, '/pods', { token: 'bob-token', method: 'POST' });
    assert.equal(answer.status, 403);
    assert.equal(answer.body, 'Forbidden (user=bob, verb=create, resource=nodes, subresource(s)=[proxy])\n');
  });

  it('tries the fine-grained subresource first, then proxy, with KubeletFineGrainedAuthz', async () => {
    const denied = await start({ config: config(), fineGrainedAuthz: true });
    assert.equal(
      (await call(denied.port!, '/pods', { token: 'bob-token' })).body,
      'Forbidden (user=bob, verb=get, resource=nodes, subresource(s)=[pods proxy])\n',
    );

    const podsOnly = apiServer(['bob get pods']);
    const viaPods = await start({ config: config(), api: podsOnly, fineGrainedAuthz: true });
    assert.equal((await call(viaPods.port!, '/pods', { token: 'bob-token' })).status, 200);
    assert.deepEqual(
      sars(podsOnly).map((s) => (s.resourceAttributes as { subresource: string }).subresource),
      ['pods'],
    );

    const proxyOnly = apiServer(['bob get proxy']);
    const viaProxy = await start({ config: config(), api: proxyOnly, fineGrainedAuthz: true });
    assert.equal((await call(viaProxy.port!, '/healthz', { token: 'bob-token' })).status, 200);
    assert.deepEqual(
      sars(proxyOnly).map((s) => (s.resourceAttributes as { subresource: string }).subresource),
      ['healthz', 'proxy'],
    );
  });

  it('answers 500 when a review cannot be had', async () => {
    const api = apiServer();
    api.react((action) => {
      if (action.path === subjectAccessReviewPath) throw new StatusError({ code: 503, reason: 'ServiceUnavailable', message: 'unavailable' });
      return undefined;
    });
    const { port } = await start({ config: config(), api });
    const answer = await call(port!, '/metrics', { token: 'alice-token' });
    assert.equal(answer.status, 500);
    assert.equal(answer.body, 'Authorization error (user=alice, verb=get, resource=nodes, subresource=metrics)');
  });

  it('caches token reviews for cacheTTL and access reviews for their TTLs', async () => {
    const api = apiServer(['alice get metrics']);
    const clock = new FakeClock();
    const { port } = await start({
      config: config((c) => {
        c.authentication.webhook.cacheTTL = 60_000;
        c.authorization.webhook.cacheAuthorizedTTL = 120_000;
        c.authorization.webhook.cacheUnauthorizedTTL = 10_000;
      }),
      api,
      clock,
    });
    const requests = async (): Promise<void> => {
      assert.equal((await call(port!, '/metrics', { token: 'alice-token' })).status, 200);
      assert.equal((await call(port!, '/pods', { token: 'alice-token' })).status, 403);
    };
    const count = (path: string): number => api.actions.filter((a) => a.path === path).length;
    await requests();
    await requests();
    assert.deepEqual([count(tokenReviewPath), count(subjectAccessReviewPath)], [1, 2]);
    clock.step(10_000);
    await requests();
    assert.deepEqual([count(tokenReviewPath), count(subjectAccessReviewPath)], [1, 3], 'the denial expired, the token and the allowance did not');
    clock.step(50_000);
    await requests();
    assert.deepEqual([count(tokenReviewPath), count(subjectAccessReviewPath)], [2, 4]);
  });

  it('asks nothing in AlwaysAllow mode', async () => {
    const api = apiServer();
    const { port } = await start({ config: config((c) => (c.authorization.mode = 'AlwaysAllow')), api });
    assert.equal((await call(port!, '/pods', { token: 'alice-token' })).status, 200);
    assert.deepEqual(
      api.actions.map((a) => a.path),
      [tokenReviewPath],
    );
  });
});

describe('node agent server: anonymous requests', () => {
  it('refuses requests without credentials with 401 when anonymous requests are disabled', async () => {
    const api = apiServer();
    const { port } = await start({ config: config(), api });
    const answer = await call(port!, '/healthz');
    assert.deepEqual([answer.status, answer.body], [401, 'Unauthorized']);
    assert.deepEqual(api.actions, []);
  });

  it('authorizes them as system:anonymous when enabled', async () => {
    const api = apiServer();
    const { port } = await start({ config: config((c) => (c.authentication.anonymous.enabled = true)), api });
    const answer = await call(port!, '/healthz');
    assert.deepEqual([answer.status, answer.body], [403, 'Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource(s)=[proxy])\n']);
    assert.deepEqual(sars(api)[0]?.groups, ['system:unauthenticated']);
  });

  it('takes a non-bearer Authorization header as no credentials', async () => {
    const { port } = await start({ config: config((c) => (c.authentication.anonymous.enabled = true)), api: apiServer(['system:anonymous get proxy']) });
    const answer = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port, path: '/healthz', agent: false, ca: servingCA.certPem, headers: { authorization: 'Basic YTpi' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(answer, 200);
  });

  it('serves everyone with anonymous requests alone', async () => {
    const { port } = await start({
      config: config((c) => {
        c.authentication.anonymous.enabled = true;
        c.authentication.webhook.enabled = false;
        c.authorization.mode = 'AlwaysAllow';
      }),
      api: null,
    });
    assert.equal((await call(port!, '/healthz', { token: 'anything' })).body, 'ok');
  });
});

describe('node agent server: client certificates', () => {
  const withClientCA = (anonymous: boolean) =>
    config((c) => {
      c.authentication.x509.clientCAFile = clientCAFile;
      c.authentication.anonymous.enabled = anonymous;
    });

  it('authenticates a certificate from the client CA as its CommonName in its Organizations', async () => {
    const api = apiServer(['alice get metrics']);
    const { port } = await start({ config: withClientCA(false), api });
    const answer = await call(port!, '/metrics', { client: alice });
    assert.equal(answer.status, 200);
    assert.match(answer.body, /corral_test_total 1/);
    assert.deepEqual(sars(api)[0]?.groups, ['devs', 'system:authenticated']);
    assert.deepEqual(
      api.actions.map((a) => a.path),
      [subjectAccessReviewPath],
      'no token review',
    );
  });

  it('refuses a certificate from another CA, even where anonymous requests are allowed', async () => {
    const { port } = await start({ config: withClientCA(true), api: apiServer(['alice get metrics', 'system:anonymous get metrics']) });
    assert.equal((await call(port!, '/metrics', { client: rogue })).status, 401);
  });

  it('refuses a certificate not made for client authentication', async () => {
    const { port } = await start({ config: withClientCA(false), api: apiServer(['alice get metrics']) });
    assert.equal((await call(port!, '/metrics', { client: serverOnly })).status, 401);
  });

  it('lets a valid token through beside a refused certificate', async () => {
    const { port } = await start({ config: withClientCA(false), api: apiServer(['alice get metrics']) });
    assert.equal((await call(port!, '/metrics', { client: rogue, token: 'alice-token' })).status, 200);
  });

  it('does not ask for certificates without a client CA', async () => {
    const api = apiServer();
    const { port } = await start({ config: config(), api });
    assert.equal((await call(port!, '/metrics', { client: alice })).status, 401);
  });

  it('refuses to start with an unreadable client CA file', async () => {
    await assert.rejects(
      start({ config: config((c) => (c.authentication.x509.clientCAFile = join(dir, 'missing.crt'))) }),
      /^Error: unable to load client CA file .*missing\.crt: /,
    );
  });
});

describe('node agent server: paths', () => {
  const open = () =>
    config((c) => {
      c.authentication.anonymous.enabled = true;
      c.authentication.webhook.enabled = false;
      c.authorization.mode = 'AlwaysAllow';
    });

  it('answers /healthz as the healthz handler does', async () => {
    const { port } = await start({ config: open(), healthChecks: { syncloop: () => undefined } });
    const ok = await call(port!, '/healthz');
    assert.deepEqual([ok.status, ok.body, ok.headers['content-type']], [200, 'ok', 'text/plain; charset=utf-8']);
    assert.equal((await call(port!, '/healthz?verbose')).body, '[+]ping ok\n[+]log ok\n[+]syncloop ok\nhealthz check passed\n');
    assert.equal((await call(port!, '/healthz/syncloop')).body, 'ok');
    assert.equal((await call(port!, '/healthz/nope')).status, 404);
  });

  it('reports failed checks with their reasons withheld', async () => {
    const { port } = await start({ config: open(), healthChecks: { syncloop: () => 'sync Loop took longer than expected' } });
    const failed = await call(port!, '/healthz');
    assert.deepEqual([failed.status, failed.body], [500, '[+]ping ok\n[+]log ok\n[-]syncloop failed: reason withheld\nhealthz check failed\n']);
    assert.equal((await call(port!, '/healthz?exclude=syncloop')).body, 'ok');
    assert.deepEqual(await call(port!, '/healthz/syncloop').then((a) => [a.status, a.body]), [
      500,
      'internal server error: sync Loop took longer than expected\n',
    ]);
  });

  it('answers /configz with the configuration under kubeletconfig', async () => {
    const { port } = await start({ config: open() });
    const answer = await call(port!, '/configz');
    assert.equal(answer.headers['content-type'], 'application/json');
    const body = JSON.parse(answer.body);
    assert.deepEqual(Object.keys(body), ['kubeletconfig']);
    assert.equal(body.kubeletconfig.tlsCertFile, certFile);
    assert.equal(body.kubeletconfig.authorization.mode, 'AlwaysAllow');
  });

  it('hides /configz and disables debugging paths without enableDebuggingHandlers', async () => {
    const { port } = await start({ config: config((c) => Object.assign(c, open(), { enableDebuggingHandlers: false })) });
    assert.equal((await call(port!, '/configz')).status, 404);
    assert.deepEqual(await call(port!, '/exec/ns/pod/c').then((a) => [a.status, a.body]), [405, 'Debug endpoints are disabled.\n']);
  });

  it('serves /metrics in the registry content type, "items": null for no pods, and 404 or 405 elsewhere', async () => {
    const { port } = await start({ config: open(), pods: () => [] });
    const metrics = await call(port!, '/metrics');
    assert.match(String(metrics.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(metrics.body, /# HELP corral_test_total A counter for the test\./);
    assert.equal((await call(port!, '/pods')).body, '{"kind":"PodList","apiVersion":"v1","metadata":{},"items":null}');
    assert.deepEqual(await call(port!, '/pods', { method: 'POST' }).then((a) => [a.status, a.body]), [405, '405: Method Not Allowed']);
    assert.deepEqual(await call(port!, '/nothing/here').then((a) => [a.status, a.body]), [404, '404 page not found\n']);
  });
});

describe('node agent server: the read-only and healthz ports', () => {
  it('serves read-only paths without authentication, and /healthz alone on the healthz port', async () => {
    const [readOnlyPort, healthzPort] = [await freePort(), await freePort()];
    const api = apiServer();
    const servers = await start({
      config: config((c) => {
        c.readOnlyPort = readOnlyPort;
        c.healthzPort = healthzPort;
        c.healthzBindAddress = '127.0.0.1';
      }),
      api,
    });
    assert.deepEqual([servers.readOnlyPort, servers.healthzPort], [readOnlyPort, healthzPort]);

    const podList = await plainCall(readOnlyPort, '/pods');
    assert.equal(podList.status, 200);
    assert.equal(JSON.parse(podList.body).items[0].metadata.name, 'web');
    assert.deepEqual(await plainCall(readOnlyPort, '/healthz'), { status: 200, body: 'ok' });
    assert.equal((await plainCall(readOnlyPort, '/metrics')).status, 200);
    assert.equal((await plainCall(readOnlyPort, '/configz')).status, 404);
    assert.deepEqual(await plainCall(readOnlyPort, '/exec/ns/pod/c', 'POST'), { status: 405, body: 'Debug endpoints are disabled.\n' });

    assert.deepEqual(await plainCall(healthzPort, '/healthz'), { status: 200, body: 'ok' });
    assert.deepEqual(await plainCall(healthzPort, '/healthz?verbose'), { status: 200, body: '[+]ping ok\nhealthz check passed\n' });
    assert.deepEqual(await plainCall(healthzPort, '/pods'), { status: 404, body: '404 page not found\n' });
    assert.deepEqual(api.actions, [], 'nothing was reviewed');
  });

  it('runs no main server when enableServer is false, and none of the optional ones at port 0', async () => {
    const servers = await start({ config: config((c) => (c.enableServer = false)) });
    assert.deepEqual([servers.port, servers.readOnlyPort, servers.healthzPort], [null, null, null]);
  });
});

describe('node agent server: TLS', () => {
  it('refuses clients below tlsMinVersion', async () => {
    const { port } = await start({ config: config((c) => (c.tlsMinVersion = 'VersionTLS13')) });
    await assert.rejects(call(port!, '/healthz', { maxVersion: 'TLSv1.2' }));
    assert.equal((await call(port!, '/healthz')).status, 401);
  });

  it('offers only the configured TLS 1.2 cipher suites, TLS 1.3 staying available', async () => {
    const { port } = await start({ config: config((c) => (c.tlsCipherSuites = ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'])) });
    await assert.rejects(call(port!, '/healthz', { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' }));
    assert.equal((await call(port!, '/healthz', { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' })).status, 401);
    assert.equal((await call(port!, '/healthz')).status, 401);
  });

  it("refuses unknown cipher suites at start with cliflag's error", async () => {
    await assert.rejects(start({ config: config((c) => (c.tlsCipherSuites = ['TLS_NOPE'])) }), {
      message: "Cipher suite TLS_NOPE not supported or doesn't exist",
    });
  });

  it('generates a self-signed pair in the cert dir when no files are configured, and reuses it', async () => {
    const certDir = join(dir, 'self-signed');
    const open = config((c) => {
      c.tlsCertFile = '';
      c.tlsPrivateKeyFile = '';
      c.authentication.anonymous.enabled = true;
      c.authentication.webhook.enabled = false;
      c.authorization.mode = 'AlwaysAllow';
    });
    const first = await start({ config: open, certDir, hostname: 'host-a' });
    assert.deepEqual(first.certificateFiles, { certFile: join(certDir, 'kubelet.crt'), keyFile: join(certDir, 'kubelet.key') });
    const pem = await readFile(join(certDir, 'kubelet.crt'), 'utf8');
    const caPem = pem.slice(pem.indexOf('-----END CERTIFICATE-----') + 26);
    const answer = await call(first.port!, '/configz', { servername: 'host-a' }, caPem);
    assert.equal(answer.peerCertificate, fingerprint(pem));
    assert.equal(JSON.parse(answer.body).kubeletconfig.tlsCertFile, join(certDir, 'kubelet.crt'));
    await first.close();

    const second = await start({ config: open, certDir, hostname: 'host-a' });
    assert.equal(await readFile(join(certDir, 'kubelet.crt'), 'utf8'), pem);
    assert.equal((await call(second.port!, '/healthz', { servername: 'host-a' }, caPem)).peerCertificate, fingerprint(pem));
  });

  it('serves with an injected certificate and swaps it when it changes', async () => {
    let currentPair: CertificateAndKey | null = null;
    const listeners = new Set<() => void>();
    const provider: ServingCertificateSource = {
      current: () => currentPair,
      onChange: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      stop: () => {},
    };
    const set = (pair: CertificateAndKey): void => {
      currentPair = pair;
      for (const listener of listeners) listener();
    };
    const { port, certificateFiles } = await start({ config: config(), servingCertificate: provider });
    assert.equal(certificateFiles, null);
    await assert.rejects(call(port!, '/healthz'), 'no certificate yet: handshakes fail');

    set(serving);
    assert.equal((await call(port!, '/healthz')).peerCertificate, fingerprint(serving.certPem));

    const rotated = await issueServingCertificate(servingCA, { commonName: 'node-a', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    set(rotated);
    const answer = await call(port!, '/healthz');
    assert.equal(answer.peerCertificate, fingerprint(rotated.certPem));
    assert.equal(answer.status, 401);
  });

  it('re-reads configured certificate files', async () => {
    const rotatingCert = join(dir, 'rotating-server.crt');
    const rotatingKey = join(dir, 'rotating-server.key');
    await writeFile(rotatingCert, serving.certPem);
    await writeFile(rotatingKey, serving.keyPem);
    const clock = new FakeClock();
    const { port } = await start({
      config: config((c) => {
        c.tlsCertFile = rotatingCert;
        c.tlsPrivateKeyFile = rotatingKey;
      }),
      clock,
      certificateReloadIntervalMs: 1000,
    });
    const rotated = await issueServingCertificate(servingCA, { commonName: 'node-a', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    await writeFile(rotatingCert, rotated.certPem);
    await writeFile(rotatingKey, rotated.keyPem);
    clock.step(1000);
    for (let i = 0; i < 50 && (await call(port!, '/healthz')).peerCertificate !== fingerprint(rotated.certPem); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal((await call(port!, '/healthz')).peerCertificate, fingerprint(rotated.certPem));
  });
});

describe('node agent server: configuration errors', () => {
  it('refuses webhook modes without an API client, and a configuration that authenticates nobody', async () => {
    await assert.rejects(start({ config: config(), api: null }), { message: 'no client provided, cannot use webhook authentication' });
    await assert.rejects(start({ config: config((c) => (c.authentication.webhook.enabled = false)), api: null }), {
      message: 'No authentication method configured',
    });
    await assert.rejects(
      start({
        config: config((c) => {
          c.authentication.webhook.enabled = false;
          c.authentication.anonymous.enabled = true;
        }),
        api: null,
      }),
      { message: 'no client provided, cannot use webhook authorization' },
    );
    await assert.rejects(start({ config: config((c) => (c.serverTLSBootstrap = true)) }), {
      message: 'serverTLSBootstrap is enabled but no serving certificate manager was given',
    });
  });
});
