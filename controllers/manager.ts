/**
 * The controller manager: its endpoint, leader election, and the enabled controllers.
 *
 * Start: the /healthz and /metrics endpoint comes up first (probes see a live process while it
 * waits to lead). With --leader-elect the manager campaigns for the Lease; once it leads, it
 * starts every enabled controller on a fresh set of informers and runs until it stops leading.
 * Losing the lease stops all controllers before the lease could be taken by another replica
 * (renew deadline < lease duration), and the manager campaigns again with empty caches: nothing a
 * controller learned as leader is trusted after a gap. Without leader election it runs the
 * controllers at once.
 */
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { collectProcessMetrics } from '../shared/http/process-metrics.ts';
import { signingFilesFor, type ControllerManagerConfig } from './config.ts';
import { ServiceAccountCredentials } from './credentials.ts';
import { HttpApiClient, type ApiClient, type WatchClient } from '../shared/client/api-client.ts';
import { realClock, type Clock } from '../shared/client/clock.ts';
import type { ControllerContext } from './framework/controller.ts';
import { ApiEventRecorder } from '../shared/client/events.ts';
import { SharedInformerFactory } from '../shared/client/informer-factory.ts';
import { LeaderElector } from './framework/leader-election.ts';
import { leaderElectionMetric, workQueueMetrics, type WorkQueueMetrics } from './framework/metrics.ts';
import { enabledControllers, type RegisteredController } from './registry.ts';
import { startManagerServer, type ManagerServer } from './server.ts';

export interface RunningControllerManager {
  /** The port of /healthz and /metrics; 0 when --secure-port is 0. */
  port: number;
  /** The identity this replica campaigns with (hostname_uuid, as upstream). */
  identity: string;
  isLeader(): boolean;
  /** Stops the controllers, releases the lease when leading, closes the endpoint. */
  stop(): Promise<void>;
}

export interface ControllerManagerOptions {
  clock?: Clock;
  /** Overrides the controller registry's selection (tests). */
  controllers?: RegisteredController[];
}

export async function startControllerManager(
  config: ControllerManagerConfig,
  logger: Logger,
  options: ControllerManagerOptions = {},
): Promise<RunningControllerManager> {
  const clock = options.clock ?? realClock;
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(config.kubeconfig);
  const api = new HttpApiClient(kubeconfig, { userAgent: 'kube-controller-manager/corral' });
  const registry = new Registry();
  collectProcessMetrics(registry);
  const metrics = workQueueMetrics(registry);
  const leaderGauge = leaderElectionMetric(registry);
  const identity = `${hostname()}_${randomUUID()}`;
  const controllers = options.controllers ?? enabledControllers(config.controllers);
  const apiFor = await controllerClients(config, kubeconfig, api, controllers);
  let leading = !config.leaderElection.enabled;

  let server: ManagerServer | undefined;
  if (config.securePort !== 0) {
    server = await startManagerServer({
      port: config.securePort,
      bindAddress: config.bindAddress,
      certFile: config.tlsCertFile,
      keyFile: config.tlsPrivateKeyFile,
      alwaysAllowPaths: config.alwaysAllowPaths,
      api,
      registry,
      logger,
      checks: {},
    });
  }
  logger.info({ controllers: controllers.map((c) => c.name), identity, port: server?.port ?? 0 }, 'controller manager started');

  const stopping = new AbortController();
  // Every queue, informer and sleep of every controller listens on the signals: no leak, just many.
  setMaxListeners(0, stopping.signal);
  const lead = (signal: AbortSignal): Promise<void> => runControllers({ controllers, kubeconfig, api, apiFor, clock, logger, metrics, config, signal });
  const running = (async () => {
    if (!config.leaderElection.enabled) return lead(stopping.signal);
    const elector = new LeaderElector(
      api,
      clock,
      {
        namespace: config.leaderElection.resourceNamespace,
        name: config.leaderElection.resourceName,
        identity,
        leaseDurationMs: config.leaderElection.leaseDurationMs,
        renewDeadlineMs: config.leaderElection.renewDeadlineMs,
        retryPeriodMs: config.leaderElection.retryPeriodMs,
      },
      logger,
      (now) => {
        leading = now;
        leaderGauge.set({ name: config.leaderElection.resourceName }, now ? 1 : 0);
      },
    );
    leaderGauge.set({ name: config.leaderElection.resourceName }, 0);
    while (!stopping.signal.aborted) await elector.run(stopping.signal, lead);
  })().catch((err: unknown) => logger.error({ err }, 'controller manager stopped unexpectedly'));

  return {
    port: server?.port ?? 0,
    identity,
    isLeader: () => leading,
    async stop() {
      stopping.abort();
      await running;
      await server?.close();
      api.close();
    },
  };
}

/** The API client of each controller: its own identity under --use-service-account-credentials, else the manager's. */
async function controllerClients(
  config: ControllerManagerConfig,
  kubeconfig: KubeConfig,
  api: ApiClient,
  controllers: RegisteredController[],
): Promise<(controller: RegisteredController) => ApiClient> {
  const signer = signingFilesFor(config, 'kubernetes.io/kube-apiserver-client');
  if (!config.useServiceAccountCredentials || !signer) return () => api;
  const credentials = await ServiceAccountCredentials.load(kubeconfig, signer);
  const clients = new Map<string, ApiClient>();
  for (const controller of controllers) {
    if (clients.has(controller.serviceAccount)) continue;
    const own = await credentials.kubeconfigFor(controller.serviceAccount);
    clients.set(controller.serviceAccount, new HttpApiClient(own, { userAgent: `kube-controller-manager/corral (${controller.serviceAccount})` }));
  }
  return (controller) => clients.get(controller.serviceAccount) ?? api;
}

interface RunOptions {
  controllers: RegisteredController[];
  kubeconfig: KubeConfig;
  /** The manager's own client, which also runs the informers' watches. */
  api: ApiClient & WatchClient;
  apiFor: (controller: RegisteredController) => ApiClient;
  clock: Clock;
  logger: Logger;
  metrics: WorkQueueMetrics;
  config: ControllerManagerConfig;
  signal: AbortSignal;
}

/** Starts every controller on fresh informers; resolves once `signal` aborted and the informers stopped. */
async function runControllers(options: RunOptions): Promise<void> {
  const { signal, logger } = options;
  const informers = new SharedInformerFactory(options.kubeconfig, options.api, options.clock, logger);
  for (const controller of options.controllers) {
    const api = options.apiFor(controller);
    const ctx: ControllerContext<ControllerManagerConfig> = {
      api,
      informers,
      clock: options.clock,
      logger: logger.child({ controller: controller.name }),
      metrics: options.metrics,
      config: options.config,
      signal,
      events: new ApiEventRecorder(api, options.clock, controller.serviceAccount, logger),
    };
    try {
      await controller.start(ctx);
      logger.info({ controller: controller.name }, 'started controller');
    } catch (err) {
      logger.error({ err, controller: controller.name }, 'controller failed to start');
    }
  }
  informers.start();
  if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  await informers.stop();
  logger.info('controllers stopped');
}
