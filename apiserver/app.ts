/**
 * Assembles one API server replica from its configuration: etcd client, PKI, registry, admission,
 * authentication, health checks and the HTTPS server. Replicas share nothing but etcd and the
 * data dir's PKI, so any number of them serve one cluster.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { pino, type Logger } from 'pino';
import { isStatusError } from '../shared/api/errors.ts';
import { AdmissionChain, type AdmissionPlugin } from './admission/admission.ts';
import { lookupFrom, namespaceLifecycle } from './admission/namespace-lifecycle.ts';
import { createAuthenticator } from './auth/authenticate.ts';
import { ensurePki, writeAdminKubeconfig } from './auth/pki-setup.ts';
import { loadTokenFile } from './auth/tokenfile.ts';
import type { ApiServerConfig } from './config.ts';
import { allDefinitions } from './registry/all.ts';
import type { RequestContext } from './registry/definition.ts';
import { Registry, runtimeConfig } from './registry/registry.ts';
import { alwaysAllow } from './server/authorization.ts';
import type { HealthCheck } from './server/health.ts';
import { ApiServer } from './server/server.ts';
import { connectEtcd, EtcdStore } from './storage/etcd/store.ts';
import { WatchCache } from './storage/cache/watch-cache.ts';
import { Compactor } from './storage/etcd/compactor.ts';

/** The Kubernetes release whose wire behaviour corral follows; kubectl checks version skew against it. */
export const kubernetesVersion = { major: '1', minor: '32', gitVersion: 'v1.32.0-corral.0' };

/** Namespaces that exist in every cluster, created on start when missing. */
export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

export interface RunningApiServer {
  port: number;
  url: string;
  kubeconfigPath: string;
  registry: Registry;
  close(): Promise<void>;
}

/** Enabled admission plugins: the defaults this server implements, adjusted by the flags. */
function admissionPlugins(config: ApiServerConfig, available: Record<string, () => AdmissionPlugin>): AdmissionPlugin[] {
  const names = new Set(['NamespaceLifecycle', ...config.enableAdmissionPlugins]);
  for (const name of config.disableAdmissionPlugins) names.delete(name);
  const unknown = [...names].filter((n) => !available[n]);
  if (unknown.length) throw new Error(`enable-admission-plugins plugin ${JSON.stringify(unknown[0])} is unknown`);
  return [...names].map((n) => available[n]!());
}

export async function startApiServer(config: ApiServerConfig, logger: Logger = pino({ level: config.logLevel })): Promise<RunningApiServer> {
  const enabled = runtimeConfig(config.runtimeConfig);
  const client = connectEtcd({ endpoints: config.etcdServers, requestTimeoutMs: config.etcdRequestTimeoutMs });
  const etcd = new EtcdStore(client, config.etcdPrefix);

  const pki = await ensurePki(config.dataDir, { tlsSans: config.tlsSans, hostname: hostname() });
  const tls = {
    cert: readFileSync(config.tlsCertFile ?? pki.servingCert, 'utf8'),
    key: readFileSync(config.tlsPrivateKeyFile ?? pki.servingKey, 'utf8'),
    clientCA: readFileSync(config.clientCAFile ?? pki.caCert, 'utf8'),
  };

  // Admission consults the namespaces store, which the registry creates; the chain is filled after.
  const plugins: AdmissionPlugin[] = [];
  const admission = new AdmissionChain(plugins);
  const watchCache = new WatchCache(client, config.etcdPrefix, (err) => logger.warn({ err }, 'watch cache re-initializing'));
  await watchCache.start();
  const compactor = new Compactor(client, `${config.etcdPrefix}/compact_rev_key`, {
    intervalMs: config.etcdCompactionIntervalMs,
    onCompacted: (revision) => logger.info({ revision }, 'compacted etcd history'),
    onError: (err) => logger.warn({ err }, 'etcd compaction failed'),
  });
  compactor.start();
  const registry = new Registry(allDefinitions(etcd), etcd, admission, enabled, watchCache);
  const namespaces = registry.namespaces();
  if (!namespaces) throw new Error('the core v1 API must be enabled');
  plugins.push(...admissionPlugins(config, { NamespaceLifecycle: () => namespaceLifecycle(lookupFrom((name, resourceVersion) => namespaces.get('', name, resourceVersion))) }));

  const authenticator = createAuthenticator({
    ...(config.tokenAuthFile ? { tokens: loadTokenFile(config.tokenAuthFile) } : {}),
    anonymous: config.anonymousAuth,
  });

  let bootstrapped = false;
  const etcdCheck: HealthCheck = { name: 'etcd', check: async () => void (await etcd.currentRevision()) };
  const common: HealthCheck[] = [
    { name: 'ping', check: async () => {} },
    { name: 'log', check: async () => {} },
    etcdCheck,
    {
      name: 'poststarthook/bootstrap-namespaces',
      check: async () => {
        if (!bootstrapped) throw new Error('system namespaces not yet created');
      },
    },
  ];
  const server = new ApiServer({
    registry,
    authenticator,
    authorizer: alwaysAllow,
    tls,
    livez: common,
    readyz: [...common, { name: 'shutdown', check: async () => {} }],
    maxRequestBodyBytes: config.maxRequestBodyBytes,
    version: { ...kubernetesVersion, gitCommit: '', gitTreeState: 'clean', buildDate: '1970-01-01T00:00:00Z', goVersion: process.version, compiler: 'node', platform: `${process.platform}/${process.arch}` },
    logger,
  });
  const port = await server.listen(config.securePort, config.bindAddress);
  const host = config.bindAddress === '0.0.0.0' || config.bindAddress === '::' ? '127.0.0.1' : config.bindAddress;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const kubeconfigPath = writeAdminKubeconfig(config.dataDir, url, pki);

  const system: RequestContext = { user: { username: 'system:apiserver', groups: ['system:masters'] }, now: new Date() };
  for (const name of systemNamespaces) {
    try {
      await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { ...system, now: new Date() }, { dryRun: false, manager: 'kube-apiserver' });
    } catch (err) {
      if (!isStatusError(err, 'AlreadyExists')) throw err;
    }
  }
  bootstrapped = true;
  logger.info({ url, kubeconfig: kubeconfigPath }, 'API server ready');

  return {
    port,
    url,
    kubeconfigPath,
    registry,
    async close() {
      await server.close();
      await compactor.stop();
      await watchCache.stop();
      client.close();
    },
  };
}
