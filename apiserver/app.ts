/**
 * Assembles one API server replica from its configuration: etcd client, PKI, registry, admission,
 * authentication, health checks and the HTTPS server. Replicas share nothing but etcd and the
 * data dir's PKI, so any number of them serve one cluster.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Level, Logger } from 'pino';
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
import { Auditor, loadAuditPolicy, openAuditLog } from './server/audit.ts';
import type { HealthCheck } from './server/health.ts';
import { createLogger } from './server/logging.ts';
import { ApiServerMetrics, type StorageObjectCount } from './server/metrics.ts';
import { ApiServer } from './server/server.ts';
import { gracefulShutdown } from './server/shutdown.ts';
import type { WatchBudget } from './server/watch-budget.ts';
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
  metrics: ApiServerMetrics;
  /** The unsent bytes of this server's watches (tests narrow its limits). */
  watchBudget: WatchBudget;
  /**
   * Graceful shutdown (SIGTERM): /readyz fails at once, after --shutdown-delay-duration the server
   * stops accepting and ends watches, requests in flight finish, then storage is released.
   */
  shutdown(): Promise<void>;
  /** Immediate stop: connections are cut. */
  close(): Promise<void>;
}

/** The message of the readyz `shutdown` check once shutdown started (upstream's). */
export const shuttingDownMessage = 'process is shutting down';

/**
 * Wraps start-up checks for /livez: during the grace period after start they pass, so that a slow
 * start is not mistaken for a dead server (upstream's delayed livez checks).
 */
export function withLivezGrace(check: HealthCheck, graceMs: number, startedAt: number, now: () => number = Date.now): HealthCheck {
  if (graceMs <= 0) return check;
  return { name: check.name, check: async () => (now() > startedAt + graceMs ? check.check() : undefined) };
}

/** The number of objects of each stored resource, read from the watch cache; a resource stored for two groups counts once. */
function storageObjectCounts(registry: Registry, watchCache: WatchCache): StorageObjectCount[] {
  const seen = new Set<string>();
  const out: StorageObjectCount[] = [];
  for (const { definition, store } of registry.resources) {
    if (!store) continue;
    const stored = definition.storage?.resource ?? definition.plural;
    if (seen.has(stored)) continue;
    seen.add(stored);
    out.push({ resource: definition.group ? `${definition.plural}.${definition.group}` : definition.plural, count: watchCache.resource(stored).size });
  }
  return out;
}

/** The group resource an etcd key belongs to (etcd_request_duration_seconds' `type`), by its storage resource. */
function etcdTypeResolver(registry: Registry, prefix: string): (key: string) => string {
  const byStorage = new Map<string, string>();
  for (const { definition, store } of registry.resources) {
    if (!store) continue;
    const stored = definition.storage?.resource ?? definition.plural;
    if (!byStorage.has(stored)) byStorage.set(stored, definition.group ? `${definition.plural}.${definition.group}` : definition.plural);
  }
  return (key) => {
    const rest = key.slice(prefix.length + 1);
    const slash = rest.indexOf('/');
    const stored = slash < 0 ? rest : rest.slice(0, slash);
    return byStorage.get(stored) ?? stored;
  };
}

/** Enabled admission plugins: the defaults this server implements, adjusted by the flags. */
function admissionPlugins(config: ApiServerConfig, available: Record<string, () => AdmissionPlugin>): AdmissionPlugin[] {
  const names = new Set(['NamespaceLifecycle', ...config.enableAdmissionPlugins]);
  for (const name of config.disableAdmissionPlugins) names.delete(name);
  const unknown = [...names].filter((n) => !available[n]);
  if (unknown.length) throw new Error(`enable-admission-plugins plugin ${JSON.stringify(unknown[0])} is unknown`);
  return [...names].map((n) => available[n]!());
}

export async function startApiServer(config: ApiServerConfig, logger: Logger = createLogger(config.logLevel, 'apiserver')): Promise<RunningApiServer> {
  const startedAt = Date.now();
  // Everything a flag or a file can get wrong fails before anything is started.
  const audit = config.auditPolicyFile ? loadAuditPolicy(config.auditPolicyFile) : undefined;
  for (const warning of audit?.warnings ?? []) logger.warn(warning);
  const client = connectEtcd({ endpoints: config.etcdServers, requestTimeoutMs: config.etcdRequestTimeoutMs });
  const etcd = new EtcdStore(client, config.etcdPrefix);
  const definitions = allDefinitions(etcd);
  let enabled;
  try {
    enabled = runtimeConfig(config.runtimeConfig, definitions);
  } catch (err) {
    client.close();
    throw err;
  }
  const metrics = new ApiServerMetrics({
    logger,
    showHiddenMetricsForVersion: config.showHiddenMetricsForVersion,
    buildInfo: {
      build_date: '1970-01-01T00:00:00Z',
      compiler: 'node',
      git_commit: '',
      git_tree_state: 'clean',
      git_version: kubernetesVersion.gitVersion,
      go_version: process.version,
      major: kubernetesVersion.major,
      minor: kubernetesVersion.minor,
      platform: `${process.platform}/${process.arch}`,
    },
  });
  const auditor =
    audit && config.auditLogPath
      ? new Auditor(
          audit.policy,
          openAuditLog({ path: config.auditLogPath, maxSizeMb: config.auditLogMaxSizeMb, maxBackups: config.auditLogMaxBackups, maxAgeDays: config.auditLogMaxAgeDays }),
          () => metrics.auditEvent(),
        )
      : undefined;

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
  // etcd leases count whole seconds; a TTL under one second rounds up rather than to "never".
  const eventTTLSeconds = config.eventTtlMs > 0 ? Math.ceil(config.eventTtlMs / 1000) : 0;
  const registry = new Registry(definitions, etcd, admission, enabled, watchCache, { eventTTLSeconds });
  const etcdType = etcdTypeResolver(registry, config.etcdPrefix);
  etcd.observer = (operation, key, seconds, failed) => metrics.etcdRequest(operation, etcdType(key), seconds, failed);
  metrics.setStorageObjectsSource(() => storageObjectCounts(registry, watchCache));
  const namespaces = registry.namespaces();
  if (!namespaces) throw new Error('the core v1 API must be enabled');
  plugins.push(...admissionPlugins(config, { NamespaceLifecycle: () => namespaceLifecycle(lookupFrom((name, resourceVersion) => namespaces.get('', name, resourceVersion))) }));

  const authenticator = createAuthenticator({
    ...(config.tokenAuthFile ? { tokens: loadTokenFile(config.tokenAuthFile) } : {}),
    anonymous: config.anonymousAuth,
  });

  let bootstrapped = false;
  let shuttingDown = false;
  const etcdCheck: HealthCheck = { name: 'etcd', check: async () => void (await etcd.currentRevision()) };
  const bootstrapCheck: HealthCheck = {
    name: 'poststarthook/bootstrap-namespaces',
    check: async () => {
      if (!bootstrapped) throw new Error('system namespaces not yet created');
    },
  };
  const base: HealthCheck[] = [
    { name: 'ping', check: async () => {} },
    { name: 'log', check: async () => {} },
    etcdCheck,
  ];
  const server = new ApiServer({
    registry,
    authenticator,
    authorizer: alwaysAllow,
    tls,
    livez: [...base, withLivezGrace(bootstrapCheck, config.livezGracePeriodMs, startedAt)],
    readyz: [
      ...base,
      bootstrapCheck,
      {
        name: 'shutdown',
        check: async () => {
          if (shuttingDown) throw new Error(shuttingDownMessage);
        },
      },
    ],
    maxRequestBodyBytes: config.maxRequestBodyBytes,
    version: { ...kubernetesVersion, gitCommit: '', gitTreeState: 'clean', buildDate: '1970-01-01T00:00:00Z', goVersion: process.version, compiler: 'node', platform: `${process.platform}/${process.arch}` },
    logger,
    metrics,
    auditor,
    maxRequestsInflight: config.maxRequestsInflight,
    maxMutatingRequestsInflight: config.maxMutatingRequestsInflight,
    requestTimeoutMs: config.requestTimeoutMs,
    requestLogLevel: config.requestLogLevel as Level,
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

  let released: Promise<void> | undefined;
  const release = (): Promise<void> =>
    (released ??= (async () => {
      await server.close();
      await compactor.stop();
      await watchCache.stop();
      client.close();
      auditor?.close();
    })());
  let shutdown: Promise<void> | undefined;
  return {
    port,
    url,
    kubeconfigPath,
    registry,
    metrics,
    watchBudget: server.watchBudget,
    shutdown: () =>
      (shutdown ??= gracefulShutdown({
        delayMs: config.shutdownDelayMs,
        drainTimeoutMs: config.requestTimeoutMs,
        markNotReady: () => void (shuttingDown = true),
        stopAccepting: () => server.stopAccepting(),
        drain: (ms) => server.drain(ms),
        release,
        logger,
      })),
    close: release,
  };
}
