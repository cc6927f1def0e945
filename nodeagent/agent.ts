/**
 * One node agent: the node's identity (TLS bootstrap and certificate rotation), its Node (registered,
 * status kept current), its Lease (the heartbeat), its CSINode, and, for a full agent, its own
 * server and its pods. The process (main.ts) runs one of these, or many for `--simulate`.
 *
 * start() resolves once the node is registered and its loops are running; it rejects only for
 * what no retry can mend (an unreadable kubeconfig, a denied certificate request). Everything that
 * talks to the API retries on its own, so an API server restart or a fail-over behind a load
 * balancer costs retries, never the agent.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { contentTypeFrom, HttpApiClient } from '../shared/client/api-client.ts';
import { ApiEventRecorder } from '../shared/client/events.ts';
import { SharedInformerFactory } from '../shared/client/informer-factory.ts';
import type { Clock } from '../shared/client/clock.ts';
import { withoutManagedFields, type KubeObject } from '../shared/api/types.ts';
import { nodeCertificateSubject } from '../shared/api/node-identity.ts';
import { kubernetesVersion } from '../shared/version.ts';
import type { NodeAgentConfig } from './config/load.ts';
import { clientCertificateStore, loadClientCertificate, loadKubeconfig } from './certificates/bootstrap.ts';
import { kubeletClientSigner } from './certificates/request.ts';
import { CertificateRotator } from './certificates/rotation.ts';
import type { Host } from './node/host.ts';
import { ensureCSINode } from './node/csinode.ts';
import { NodeLease } from './node/lease.ts';
import { initialNode, registerNode, type NodeIdentity } from './node/registration.ts';
import { computeNodeStatus, nodeAddresses, type NodeCondition, type NodeStatus } from './node/status.ts';
import { NodeStatusUpdater, type Registered } from './node/status-updater.ts';
import { BootstrappedServingCertificate } from './certificates/serving.ts';
import { nodeAgentMetrics } from './metrics.ts';
import { applyStaticPodApiDefaults, validateStaticPod } from './pod-rules.ts';
import { boundPodsInformerOptions, hostIPsOf, NodePods } from './pods/node-pods.ts';
import type { Pod } from './pods/pod.ts';
import { StaticPodSource } from './pods/static-pod-source.ts';
import { podsResource } from './pods/status-manager.ts';
import { NoRuntime } from './runtime/no-runtime.ts';
import { startNodeAgentServers } from './server/servers.ts';

/** Where one agent keeps its identity. */
export interface AgentPaths {
  nodeName: string;
  hostname: string;
  kubeconfigPath: string;
  certDir: string;
}

export interface AgentDependencies {
  host: Host;
  /**
   * A simulated agent (`--simulate`) stops at the Node, its status, Lease and CSINode: no server,
   * no pods (N agents on one host could not truthfully share a port or a staticPodPath).
   */
  simulated?: boolean;
  clock: Clock;
  logger: Logger;
  /** `<runtime>://<version>` for nodeInfo.containerRuntimeVersion. */
  containerRuntimeVersion: string;
  /** Each lease renewal's latency (the simulation's benchmark reads them). */
  leaseRenewed?: (latencyMs: number) => void;
  /** Where in the renew interval the lease renewals fall (NodeLeaseOptions.phase): 0 unless simulated. */
  leasePhase?: number;
}

/** The client certificate's usages when rotating: no key encipherment for an ECDSA key (upstream's kubelet). */
const rotatedClientUsages = ['digital signature', 'client auth'];

export class NodeAgent {
  private readonly controller = new AbortController();
  private readonly loops: Promise<void>[] = [];
  /** What start() started beside the loops, stopped in reverse order. */
  private readonly stops: (() => Promise<void>)[] = [];
  private api: HttpApiClient | undefined;
  /**
   * The Node last written, without its managedFields: the agent reads its uid, addresses and
   * conditions, and a Node's field sets are some eighty small objects (a simulation keeps one per agent).
   */
  private node: KubeObject | undefined;

  constructor(
    private readonly config: NodeAgentConfig,
    readonly paths: AgentPaths,
    private readonly deps: AgentDependencies,
  ) {}

  /** The API client acting as the node (after start). */
  get client(): HttpApiClient {
    if (!this.api) throw new Error('the node agent has not started');
    return this.api;
  }

  /** The Node as registered (after start). */
  get registeredNode(): KubeObject | undefined {
    return this.node;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  async start(): Promise<void> {
    const { config: kubelet, flags } = this.config;
    const { clock, logger } = this.deps;
    const signal = this.controller.signal;
    // The kubelet's client and its bootstrap client both speak the configured content type.
    const contentType = contentTypeFrom(kubelet.contentType);
    await loadClientCertificate({
      kubeconfigPath: this.paths.kubeconfigPath,
      bootstrapKubeconfigPath: flags.bootstrapKubeconfig,
      certDir: this.paths.certDir,
      nodeName: this.paths.nodeName,
      clock,
      logger,
      signal,
      contentType,
    });
    const kubeconfig = loadKubeconfig(this.paths.kubeconfigPath, 'kubeconfig');
    const api = new HttpApiClient(kubeconfig, {
      userAgent: `corral-nodeagent/${kubernetesVersion.gitVersion}`,
      throttle: { qps: kubelet.kubeAPIQPS, burst: kubelet.kubeAPIBurst },
      contentType,
    });
    this.api = api;

    const store = clientCertificateStore(this.paths.certDir);
    if (kubelet.rotateCertificates && kubeconfig.getCurrentUser()?.certFile === store.currentPath) {
      const rotator = new CertificateRotator({
        store,
        signerName: kubeletClientSigner,
        usages: rotatedClientUsages,
        template: () => ({
          subject: nodeCertificateSubject(this.paths.nodeName),
          altNames: { dnsNames: [], ipAddresses: [] },
        }),
        api: () => api,
        clock,
        logger,
        signal,
        rotated: () => api.reloadCredentials(),
      });
      this.loops.push(rotator.run());
    }

    if (!kubelet.registerNode) return;
    const facts = this.deps.host.facts();
    const identity: NodeIdentity = {
      name: this.paths.nodeName,
      hostname: this.paths.hostname,
      operatingSystem: facts.operatingSystem,
      architecture: facts.architecture,
    };
    const computeStatus = (previous: readonly NodeCondition[]): NodeStatus =>
      computeNodeStatus({
        config: kubelet,
        facts: this.deps.host.facts(),
        usage: this.deps.host.usage(),
        hostname: this.paths.hostname,
        nodeIP: flags.nodeIP,
        kubeletVersion: kubernetesVersion.gitVersion,
        containerRuntimeVersion: this.deps.containerRuntimeVersion,
        previous,
        now: clock.now(),
      });
    // Created with its status, as the kubelet's initialNode is (registration.ts).
    const register = async (): Promise<Registered> => {
      const status = computeStatus([]);
      const { node, created } = await registerNode(initialNode(identity, kubelet, flags.nodeLabels, status), identity, { api, clock, logger, signal });
      this.node = withoutManagedFields(node);
      return created ? { node, createdWith: status } : { node };
    };
    const registered = await register();

    const statusUpdater = new NodeStatusUpdater({
      api,
      nodeName: this.paths.nodeName,
      clock,
      logger,
      updateFrequencyMs: kubelet.nodeStatusUpdateFrequency,
      reportFrequencyMs: kubelet.nodeStatusReportFrequency,
      compute: computeStatus,
      reregister: register,
      written: (node) => (this.node = withoutManagedFields(node)),
    });
    statusUpdater.seed(registered);
    this.loops.push(statusUpdater.run(signal));

    const lease = new NodeLease({
      api,
      nodeName: this.paths.nodeName,
      leaseDurationSeconds: kubelet.nodeLeaseDurationSeconds,
      clock,
      logger,
      nodeUid: () => this.node?.metadata.uid,
      ...(this.deps.leaseRenewed ? { renewed: this.deps.leaseRenewed } : {}),
      phase: this.deps.leasePhase ?? 0,
    });
    this.loops.push(lease.run(signal));
    this.loops.push(this.keepTrying('CSINode', () => ensureCSINode(api, this.paths.nodeName, this.node?.metadata.uid ?? '')));
    if (!this.deps.simulated) await this.startPodsAndServer(kubeconfig, api);
  }

  /** Static pods, mirror pods and the status of bound pods; then the agent's own server. */
  private async startPodsAndServer(kubeconfig: KubeConfig, api: HttpApiClient): Promise<void> {
    const { config: kubelet, featureGates } = this.config;
    const { clock, logger } = this.deps;
    const signal = this.controller.signal;
    const nodeName = this.paths.nodeName;
    const node = (): KubeObject | undefined => this.node;
    const events = new ApiEventRecorder(api, clock, 'kubelet', logger);
    const staticPods = new StaticPodSource({
      nodeName,
      ...(kubelet.staticPodPath ? { staticPodPath: kubelet.staticPodPath } : {}),
      fileCheckFrequencyMs: kubelet.fileCheckFrequency,
      ...(kubelet.staticPodURL ? { staticPodURL: kubelet.staticPodURL } : {}),
      staticPodURLHeader: kubelet.staticPodURLHeader,
      httpCheckFrequencyMs: kubelet.httpCheckFrequency,
      applyDefaults: applyStaticPodApiDefaults,
      validate: validateStaticPod,
      clock,
      logger,
      events,
      node,
    });
    const informers = new SharedInformerFactory(kubeconfig, api, clock, logger);
    const boundPods = informers.informer<Pod>(podsResource, boundPodsInformerOptions(nodeName));
    const pods = new NodePods({
      api,
      runtime: new NoRuntime(),
      clock,
      logger,
      pods: boundPods,
      staticPods,
      node,
      hostIPs: () => hostIPsOf(this.node),
      syncFrequencyMs: kubelet.syncFrequency,
    });
    informers.start();
    staticPods.start();
    pods.start();
    this.stops.push(async () => {
      pods.stop();
      staticPods.stop();
      await informers.stop();
    });

    const addresses = (): string[] => nodeAddresses(this.node);
    const servingCertificate =
      kubelet.serverTLSBootstrap && featureGates.enabled('RotateKubeletServerCertificate')
        ? new BootstrappedServingCertificate({ certDir: this.paths.certDir, nodeName, addresses, api: () => api, clock, logger, signal })
        : undefined;
    const servers = await startNodeAgentServers({
      config: kubelet,
      nodeName,
      certDir: this.paths.certDir,
      api,
      pods: () => boundPods.list(),
      registry: nodeAgentMetrics(nodeName),
      logger,
      ...(servingCertificate ? { servingCertificate } : {}),
      hostname: this.paths.hostname,
      alternateNames: addresses(),
      fineGrainedAuthz: featureGates.enabled('KubeletFineGrainedAuthz'),
      clock,
    });
    this.stops.push(() => servers.close());
    logger.info({ port: servers.port, readOnlyPort: servers.readOnlyPort, healthzPort: servers.healthzPort }, 'serving');
  }

  /** Stops every loop and server and closes connections. */
  async stop(): Promise<void> {
    this.controller.abort();
    for (const stop of this.stops.reverse()) await stop().catch(() => {});
    await Promise.allSettled(this.loops);
    this.api?.close();
  }

  /** Runs `once` until it succeeds, 1 s apart doubling to 30 s; never throws. */
  private async keepTrying(what: string, once: () => Promise<void>): Promise<void> {
    const { clock, logger } = this.deps;
    let delay = 1_000;
    while (!this.controller.signal.aborted) {
      try {
        await once();
        return;
      } catch (err) {
        logger.warn({ err: err instanceof Error ? err.message : String(err), retryInMs: delay }, `${what} not written yet; retrying`);
        await new Promise<void>((resolve) => clock.after(delay, resolve));
        delay = Math.min(30_000, delay * 2);
      }
    }
  }
}
