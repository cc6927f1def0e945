/**
 * Assembles one API server replica from its configuration, in named steps: what flags and files
 * say (checked before anything starts), storage, authorization, registry, admission,
 * authentication, health, the HTTPS server, bootstrap, then the kubernetes service and its
 * endpoints (startup/kubernetes-service.ts). Replicas share nothing but etcd and the
 * data dir's PKI, so any number of them serve one cluster.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Level, Logger } from 'pino';
import { AdmissionChain, type AdmissionPlugin } from './admission/admission.ts';
import { lookupFrom, namespaceLifecycle } from './admission/namespace-lifecycle.ts';
import { loadAdmissionConfiguration } from './admission/configuration.ts';
import { buildAdmissionPlugins } from './admission/plugins.ts';
import { createAuthenticator } from './auth/authenticate.ts';
import type { Authorizer } from './authorization/authorizer.ts';
import { bootstrapTokenAuthenticator } from './auth/bootstrap-token.ts';
import { ensurePki, writeAdminKubeconfig, writeControllerManagerKubeconfig } from './auth/pki-setup.ts';
import { loadTokenFile } from './auth/tokenfile.ts';
import type { ApiServerConfig } from './config.ts';
import { allDefinitions } from './registry/all.ts';
import { Registry, runtimeConfig } from './registry/registry.ts';
import { Auditor, loadAuditPolicy, openAuditLog } from './server/audit.ts';
import { createLogger } from './server/logging.ts';
import { ApiServerMetrics } from './server/metrics.ts';
import { ApiServer } from './server/server.ts';
import { gracefulShutdown } from './server/shutdown.ts';
import type { WatchBudget } from './server/watch-budget.ts';
import { buildAuthorization } from './startup/authorization.ts';
import { bootstrap } from './startup/bootstrap.ts';
import { kubernetesVersion } from '../shared/version.ts';
import { healthChecks, shuttingDownMessage, withLivezGrace, type HealthState } from './startup/health.ts';
import { openStorage } from './startup/storage.ts';
import { etcdTypeResolver, storageObjectCounts } from './startup/storage-metrics.ts';
import { startKubernetesService } from './startup/kubernetes-service.ts';
import { ClusterIPAllocator } from './services/cluster-ip-allocator.ts';
import { NodePortAllocator } from './services/node-port-allocator.ts';

export { shuttingDownMessage, withLivezGrace };
export { systemNamespaces } from './startup/bootstrap.ts';

export interface RunningApiServer {
  port: number;
  url: string;
  kubeconfigPath: string;
  /** The kubeconfig of the controller manager's identity (system:kube-controller-manager). */
  controllerManagerKubeconfigPath: string;
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

function createMetrics(logger: Logger, config: ApiServerConfig): ApiServerMetrics {
  return new ApiServerMetrics({
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
}

/** The chain of enabled admission plugins, in the registry's order; their deprecation notices are logged. */
function buildAdmission(config: ApiServerConfig, registry: Registry, plugins: AdmissionPlugin[], authorizer: Authorizer, logger: Logger): void {
  const namespaces = registry.namespaces();
  if (!namespaces) throw new Error('the core v1 API must be enabled');
  const configurations = config.admissionControlConfigFile
    ? loadAdmissionConfiguration(config.admissionControlConfigFile)
    : new Map<string, Record<string, unknown>>();
  const built = buildAdmissionPlugins(config.admissionPlugins, {
    namespaceLifecycle: () => namespaceLifecycle(lookupFrom((name, resourceVersion) => namespaces.get('', name, resourceVersion))),
    authorizer,
    configuration: (plugin) => configurations.get(plugin),
  });
  for (const warning of built.warnings) logger.warn(warning);
  plugins.push(...built.plugins);
}

export async function startApiServer(config: ApiServerConfig, logger: Logger = createLogger(config.logLevel, 'apiserver')): Promise<RunningApiServer> {
  const startedAt = Date.now();
  // Files: everything a file can get wrong fails before anything is started.
  const audit = config.auditPolicyFile ? loadAuditPolicy(config.auditPolicyFile) : undefined;
  for (const warning of audit?.warnings ?? []) logger.warn(warning);
  const tokens = config.tokenAuthFile ? loadTokenFile(config.tokenAuthFile) : undefined;

  // Storage and authorization: nothing touches the network yet.
  const storage = openStorage(config, logger);
  const authorization = buildAuthorization(config.authorizationModes, storage.watchCache);

  const authenticator = createAuthenticator({
    ...(tokens ? { tokens } : {}),
    tokenAuthenticators: config.enableBootstrapTokenAuth ? [bootstrapTokenAuthenticator(storage.watchCache.resource('secrets'), logger)] : [],
    anonymous: config.anonymousAuth,
  });

  // Registry and admission (the chain is filled once the registry exists: it reads namespaces).
  // Service cluster IPs and node ports are allocated in storage, shared by every replica.
  const serviceAllocators = {
    clusterIPs: new ClusterIPAllocator(storage.storage, config.serviceClusterIPRange),
    nodePorts: new NodePortAllocator(storage.storage, config.serviceNodePortRange),
  };
  const definitions = allDefinitions(() => storage.probe(), {
    guard: authorization.guard,
    authorizer: authorization.authorizer,
    rules: authorization.rules,
    authenticator,
    serviceAllocators,
  });
  const plugins: AdmissionPlugin[] = [];
  let registry: Registry;
  try {
    const enabled = runtimeConfig(config.runtimeConfig, definitions);
    const eventTTLSeconds = config.eventTtlMs > 0 ? Math.ceil(config.eventTtlMs / 1000) : 0; // etcd leases count whole seconds
    registry = new Registry(definitions, storage.storage, new AdmissionChain(plugins), enabled, storage.watchCache, { eventTTLSeconds });
    buildAdmission(config, registry, plugins, authorization.authorizer, logger);
  } catch (err) {
    // A bad --runtime-config or admission configuration: nothing was started but the client.
    await storage.stop();
    throw err;
  }

  const metrics = createMetrics(logger, config);
  storage.instrument(metrics, etcdTypeResolver(registry, config.etcdPrefix));
  metrics.setStorageObjectsSource(() => storageObjectCounts(registry, storage.watchCache));
  const auditor =
    audit && config.auditLogPath
      ? new Auditor(
          audit.policy,
          openAuditLog({
            path: config.auditLogPath,
            maxSizeMb: config.auditLogMaxSizeMb,
            maxBackups: config.auditLogMaxBackups,
            maxAgeDays: config.auditLogMaxAgeDays,
          }),
          () => metrics.auditEvent(),
        )
      : undefined;

  // TLS: the cluster CA (generated on first start) verifies client certificates.
  const pki = await ensurePki(config.dataDir, { tlsSans: config.tlsSans, hostname: hostname() });
  const tls = {
    cert: readFileSync(config.tlsCertFile ?? pki.servingCert, 'utf8'),
    key: readFileSync(config.tlsPrivateKeyFile ?? pki.servingKey, 'utf8'),
    clientCA: readFileSync(config.clientCAFile ?? pki.caCert, 'utf8'),
  };
  await storage.start();

  // Health, then the server.
  const health: HealthState = { namespacesCreated: false, policyReconciled: false, shuttingDown: false };
  const checks = healthChecks(health, storage.backend, () => storage.probe(), {
    livezGracePeriodMs: config.livezGracePeriodMs,
    startedAt,
    healthcheckTimeoutMs: config.etcdHealthcheckTimeoutMs,
    readycheckTimeoutMs: config.etcdReadycheckTimeoutMs,
  });
  const server = new ApiServer({
    registry,
    authenticator,
    authorizer: authorization.authorizer,
    tls,
    livez: checks.livez,
    readyz: checks.readyz,
    maxRequestBodyBytes: config.maxRequestBodyBytes,
    version: {
      ...kubernetesVersion,
      gitCommit: '',
      gitTreeState: 'clean',
      buildDate: '1970-01-01T00:00:00Z',
      goVersion: process.version,
      compiler: 'node',
      platform: `${process.platform}/${process.arch}`,
    },
    logger,
    metrics,
    auditor,
    maxRequestsInflight: config.maxRequestsInflight,
    maxMutatingRequestsInflight: config.maxMutatingRequestsInflight,
    enablePriorityAndFairness: config.enablePriorityAndFairness,
    requestTimeoutMs: config.requestTimeoutMs,
    requestLogLevel: config.requestLogLevel as Level,
  });
  const port = await server.listen(config.securePort, config.bindAddress);
  const host = config.bindAddress === '0.0.0.0' || config.bindAddress === '::' ? '127.0.0.1' : config.bindAddress;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const kubeconfigPath = writeAdminKubeconfig(config.dataDir, url, pki);
  const controllerManagerKubeconfigPath = writeControllerManagerKubeconfig(config.dataDir, url, pki);

  // Bootstrap: system namespaces and the default RBAC policy.
  // Nodes joining with bootstrap tokens find the cluster through kube-public/cluster-info, as kubeadm sets it up.
  const clusterInfo = config.enableBootstrapTokenAuth ? { server: url, caPem: readFileSync(pki.caCert, 'utf8') } : undefined;
  const aggregator = await bootstrap(registry, storage.watchCache, health, logger, {
    nodeJoin: config.enableBootstrapTokenAuth,
    ...(clusterInfo ? { clusterInfo } : {}),
  });
  // The kubernetes service and its endpoints listing the live replicas.
  const kubernetesService = startKubernetesService(config, port, serviceAllocators.clusterIPs.firstAddress(), registry, storage.storage, logger);
  logger.info({ url, kubeconfig: kubeconfigPath }, 'API server ready');

  let released: Promise<void> | undefined;
  const release = (): Promise<void> =>
    (released ??= (async () => {
      // Before storage goes: this replica leaves the kubernetes endpoints.
      await kubernetesService?.stop();
      await server.close();
      aggregator?.stop();
      await storage.stop();
      auditor?.close();
    })());
  let shutdown: Promise<void> | undefined;
  return {
    port,
    url,
    kubeconfigPath,
    controllerManagerKubeconfigPath,
    registry,
    metrics,
    watchBudget: server.watchBudget,
    shutdown: () =>
      (shutdown ??= gracefulShutdown({
        delayMs: config.shutdownDelayMs,
        drainTimeoutMs: config.requestTimeoutMs,
        markNotReady: () => {
          health.shuttingDown = true;
          server.closeConnectionsAfterAnswers();
        },
        stopAccepting: () => server.stopAccepting(),
        drain: (ms) => server.drain(ms),
        release,
        logger,
      })),
    close: release,
  };
}
