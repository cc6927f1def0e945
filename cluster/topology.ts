/**
 * A whole cluster as separate processes on loopback ports, the topology of docker-compose.yml
 * without containers (`npm run cluster`, the fault tests in e2e/cluster/):
 *
 *   3 etcd members ─ 2 API servers (or 1–9) ─ haproxy (TCP, TLS passed through) ─ clients, kubectl
 *                                       ├─ 2 controller managers (leader-elected)
 *                                       ├─ 1 node agent process running N simulated nodes
 *                                       └─ Prometheus (when on PATH), scraping API servers and managers
 *
 * Every process reads the shared files of cluster/pki.ts in `dir`; every client (controller
 * managers, agents, kubectl) reaches the API servers through the load balancer alone, as in a real
 * deployment. Each component logs into `dir/logs/<name>.log`. Ports are chosen free once and kept
 * in `dir/ports.json`, so that starting again on the same dir serves the same address and the
 * kubeconfigs stay valid.
 *
 * The API servers run with --shutdown-delay-duration longer than haproxy's time to mark a replica
 * down (see haproxy.ts), so that a graceful restart is invisible to clients of the balancer.
 *
 * Components run the built `dist/cli.js` when it exists (`runtime: 'built'`), else the sources
 * through tsx; tests ask for the sources, which may be newer than the build.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import { findExecutable } from '../shared/etcd/availability.ts';
import { startEtcdCluster, type EtcdCluster } from '../shared/etcd/process.ts';
import { freePorts } from '../shared/net/free-ports.ts';
import { sharedHostNodeFlags } from '../shared/process/shared-host.ts';
import { startProxyGroup, type TcpProxyGroup } from '../shared/etcd/proxy.ts';
import { backendStatus, renderHaproxyConfig } from './haproxy.ts';
import { ManagedProcess } from './managed-process.ts';
import { writeClusterFiles, type ClusterFiles } from './pki.ts';

/** Longer than haproxy's `inter 1s fall 2`, with room for a loaded machine. */
const SHUTDOWN_DELAY = '5s';
/** Names of the simulated nodes: `<prefix>-0` … */
export const NODE_NAME_PREFIX = 'corral-node';

export type Runtime = 'built' | 'source';

export interface TopologyOptions {
  /** Everything of the cluster lives here; created when missing, resumed when it holds a cluster. */
  dir: string;
  /** API server replicas behind the balancer (default 2). */
  apiServers?: number;
  /**
   * Each API server reaches etcd through TCP proxies of its own (shared/etcd/proxy.ts), run by the
   * owner of the topology, so that a test can cut one replica off etcd (`ApiServerComponent.etcdPath`).
   */
  breakableEtcdPaths?: boolean;
  /** Simulated nodes in the node agent process (default 3; 0: no node agent). */
  nodes?: number;
  /** Default: 'built' when dist/cli.js exists. */
  runtime?: Runtime;
  /** Start Prometheus (default: when `prometheus` is on PATH). */
  prometheus?: boolean;
  /** The load balancer's port (default: the one remembered in dir/ports.json, else a free one). */
  port?: number;
  /** Extra flags for every API server. */
  apiserverArgs?: readonly string[];
  /** Extra flags for every controller manager. */
  controllerManagerArgs?: readonly string[];
  /** Progress messages (default: none). */
  log?: (message: string) => void;
}

/** A component that serves on a port of its own. */
export interface ServingComponent {
  process: ManagedProcess;
  port: number;
  /** `https://127.0.0.1:<port>` (Prometheus: `http://…`). */
  url: string;
}

/** An API server replica. */
export interface ApiServerComponent extends ServingComponent {
  /** Its own path to etcd, with `breakableEtcdPaths`: pause() partitions it from every member. */
  etcdPath: TcpProxyGroup | undefined;
}

export interface Topology {
  dir: string;
  files: ClusterFiles;
  /** The load balancer's URL: every kubeconfig names it. */
  url: string;
  etcd: EtcdCluster;
  apiServers: readonly ApiServerComponent[];
  haproxy: ServingComponent;
  controllerManagers: readonly ServingComponent[];
  /** The node agent process (its simulated nodes are `corral-node-0` …); undefined with `nodes: 0`. */
  nodeAgents: ManagedProcess | undefined;
  /** Prometheus, when it runs. */
  prometheus: ServingComponent | undefined;
  /** Why Prometheus does not run, when it does not. */
  prometheusSkipped: string | undefined;
  /** haproxy's view of the API servers: `{ 'apiserver-0': 'UP', 'apiserver-1': 'DOWN' }`. */
  backendStatus(): Promise<Record<string, string>>;
  /** Stops every component, clients first and etcd last (SIGTERM, SIGKILL after a grace). */
  stop(): Promise<void>;
}

interface Ports {
  lb: number;
  apiServers: number[];
  controllerManagers: number[];
  prometheus: number;
}

/** The repository root, from the sources (`<root>/cluster`) or the build (`<root>/dist/cluster`). */
export const repoRoot = ((): string => {
  const parent = dirname(dirname(fileURLToPath(import.meta.url)));
  return basename(parent) === 'dist' ? dirname(parent) : parent;
})();

/** The node command line that runs `corral <subcommand>` in `runtime`, as a process sharing this host with the others (shared-host.ts). */
function corralCommand(runtime: Runtime, subcommand: string): string[] {
  const entry = runtime === 'built' ? [join(repoRoot, 'dist', 'cli.js')] : ['--import', 'tsx', join(repoRoot, 'cli.ts')];
  return [...sharedHostNodeFlags(), ...entry, subcommand];
}

/**
 * Ports remembered in `dir/ports.json`, or new free ones (also when the number of API servers
 * changed); `lb` overrides the balancer's.
 */
async function choosePorts(dir: string, apiServers: number, lb: number | undefined): Promise<Ports> {
  const file = join(dir, 'ports.json');
  const remembered = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Ports) : undefined;
  let ports: Ports | undefined = remembered?.apiServers.length === apiServers ? remembered : undefined;
  if (!ports) {
    const [lbPort = 0, cm0 = 0, cm1 = 0, prometheus = 0, ...api] = await freePorts(4 + apiServers);
    ports = { lb: lbPort, apiServers: api, controllerManagers: [cm0, cm1], prometheus };
  }
  if (lb !== undefined) ports.lb = lb;
  writeFileSync(file, JSON.stringify(ports));
  return ports;
}

/** GET `url` and resolve with the status code (0 when nothing answers). */
function statusOf(url: string, tls: { ca?: string; insecure?: boolean } = {}): Promise<number> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { timeout: 2000, ...(tls.ca ? { ca: tls.ca } : {}), ...(tls.insecure ? { rejectUnauthorized: false } : {}) }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
    req.end();
  });
}

/** Starts the topology (see the module comment) and resolves once every component is ready. */
export async function startTopology(opts: TopologyOptions): Promise<Topology> {
  const dir = opts.dir;
  const log = opts.log ?? ((): void => undefined);
  const runtime = opts.runtime ?? (existsSync(join(repoRoot, 'dist', 'cli.js')) ? 'built' : 'source');
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true });
  /** Components by tier, in start order: the API servers, haproxy, the controller managers, the agents, Prometheus. */
  const tiers = new Map<string, ManagedProcess[]>();
  const started = (): ManagedProcess[] => [...tiers.values()].flat();
  let etcd: EtcdCluster | undefined;
  const etcdPaths: TcpProxyGroup[] = [];

  const stop = async (): Promise<void> => {
    // Clients first, so that nothing logs errors about the servers going away; etcd last. A tier
    // stops at once: the API servers drain side by side.
    for (const tier of [...tiers.values()].reverse()) await Promise.all(tier.map((p) => p.stop()));
    await Promise.all(etcdPaths.map((p) => p.close()));
    await etcd?.stop();
  };
  const run = async (tier: string, p: ManagedProcess): Promise<ManagedProcess> => {
    tiers.set(tier, [...(tiers.get(tier) ?? []), p]);
    await p.start();
    return p;
  };
  // A topology whose owner dies without stopping it must not leave processes behind.
  const killAll = (): void => {
    for (const p of started()) p.child?.kill('SIGKILL');
    for (const m of etcd?.members ?? []) m?.child.kill('SIGKILL');
  };
  process.once('exit', killAll);

  try {
    log(`etcd: 3 members in ${join(dir, 'etcd')}`);
    const etcdCluster = await startEtcdCluster({ dataDir: join(dir, 'etcd') });
    etcd = etcdCluster;
    // Chosen once etcd listens, so that no port of ours can be one of its own.
    const replicas = opts.apiServers ?? 2;
    if (!Number.isInteger(replicas) || replicas < 1 || replicas > 9) throw new Error(`apiServers must be 1 to 9, not ${replicas}`);
    const ports = await choosePorts(dir, replicas, opts.port);
    const url = `https://127.0.0.1:${ports.lb}`;
    const files = await writeClusterFiles({ dir, server: url, sans: ['127.0.0.1', 'localhost'] });
    const ca = readFileSync(files.pki.caCert, 'utf8');

    const apiServers = await Promise.all(
      ports.apiServers.map(async (port, i): Promise<ApiServerComponent> => {
        const serverUrl = `https://127.0.0.1:${port}`;
        const etcdPath = opts.breakableEtcdPaths ? await startProxyGroup(etcdCluster.specs.map((m) => m.clientPort)) : undefined;
        if (etcdPath) etcdPaths.push(etcdPath);
        const etcdServers = (etcdPath?.urls ?? etcdCluster.endpoints).join(',');
        const component = new ManagedProcess({
          name: `apiserver-${i}`,
          command: process.execPath,
          args: [
            ...corralCommand(runtime, 'apiserver'),
            `--etcd-servers=${etcdServers}`,
            `--secure-port=${port}`,
            // Every replica advertises the load balancer's port: each its own would have them reset
            // the kubernetes Service's target port to theirs every 10 s.
            `--advertise-port=${ports.lb}`,
            '--bind-address=127.0.0.1',
            `--data-dir=${dir}`,
            `--token-auth-file=${files.tokenFile}`,
            '--enable-bootstrap-token-auth=true',
            `--shutdown-delay-duration=${SHUTDOWN_DELAY}`,
            ...(opts.apiserverArgs ?? []),
          ],
          cwd: repoRoot,
          logFile: join(logs, `apiserver-${i}.log`),
          ready: async () => (await statusOf(`${serverUrl}/readyz`, { ca })) === 200,
        });
        await run('apiservers', component);
        log(`apiserver-${i}: ${serverUrl} (pid ${component.child?.pid})`);
        return { process: component, port, url: serverUrl, etcdPath };
      }),
    );

    const statsSocket = join(dir, 'haproxy.sock');
    const haproxyConfig = join(dir, 'haproxy.cfg');
    writeFileSync(
      haproxyConfig,
      renderHaproxyConfig({
        bind: `127.0.0.1:${ports.lb}`,
        backends: apiServers.map((a, i) => ({ name: `apiserver-${i}`, address: `127.0.0.1:${a.port}` })),
        statsSocket,
      }),
    );
    const haproxyBinary = findExecutable('haproxy');
    if (!haproxyBinary) throw new Error('haproxy is not installed (apt-get install -y haproxy): the API servers have no load balancer');
    const haproxy = await run(
      'haproxy',
      new ManagedProcess({
        name: 'haproxy',
        command: haproxyBinary,
        // -db: stay in the foreground, logging to stdout; -f: the generated configuration.
        args: ['-db', '-f', haproxyConfig],
        cwd: dir,
        logFile: join(logs, 'haproxy.log'),
        // Ready once both replicas passed their checks (`rise 2`), so that the first clients reach either.
        ready: async () => Object.values(await backendStatus(statsSocket)).every((s) => s === 'UP'),
      }),
    );
    log(`haproxy: ${url} in front of ${apiServers.map((a) => a.url).join(', ')}`);

    const controllerManagers = await Promise.all(
      ports.controllerManagers.map(async (port, i): Promise<ServingComponent> => {
        const component = new ManagedProcess({
          name: `controller-manager-${i}`,
          command: process.execPath,
          args: [
            ...corralCommand(runtime, 'controllers'),
            `--kubeconfig=${files.controllerManagerKubeconfig}`,
            `--cluster-signing-cert-file=${files.pki.caCert}`,
            `--cluster-signing-key-file=${files.pki.caKey}`,
            '--use-service-account-credentials=true',
            '--leader-elect=true',
            `--secure-port=${port}`,
            '--bind-address=127.0.0.1',
            ...(opts.controllerManagerArgs ?? []),
          ],
          cwd: repoRoot,
          logFile: join(logs, `controller-manager-${i}.log`),
          ready: async () => (await statusOf(`https://127.0.0.1:${port}/healthz`, { insecure: true })) === 200,
        });
        await run('controller-managers', component);
        log(`controller-manager-${i}: https://127.0.0.1:${port} (pid ${component.child?.pid})`);
        return { process: component, port, url: `https://127.0.0.1:${port}` };
      }),
    );

    const nodes = opts.nodes ?? 3;
    let nodeAgents: ManagedProcess | undefined;
    if (nodes > 0) {
      const nodesDir = join(dir, 'nodes');
      mkdirSync(nodesDir, { recursive: true });
      nodeAgents = await run(
        'nodeagents',
        new ManagedProcess({
          name: 'nodeagent',
          command: process.execPath,
          args: [
            ...corralCommand(runtime, 'nodeagent'),
            `--bootstrap-kubeconfig=${files.bootstrapKubeconfig}`,
            // With --simulate each node keeps its kubeconfig and certificates in <cert-dir>/<node>/.
            `--kubeconfig=${join(nodesDir, 'kubeconfig')}`,
            `--cert-dir=${join(nodesDir, 'pki')}`,
            `--root-dir=${nodesDir}`,
            `--hostname-override=${NODE_NAME_PREFIX}`,
            `--simulate=${nodes}`,
          ],
          cwd: repoRoot,
          logFile: join(logs, 'nodeagent.log'),
        }),
      );
      log(`nodeagent: ${nodes} simulated nodes ${NODE_NAME_PREFIX}-0 … ${NODE_NAME_PREFIX}-${nodes - 1}`);
    }

    const prometheusBinary = opts.prometheus === false ? undefined : findExecutable('prometheus');
    let prometheus: ServingComponent | undefined;
    let prometheusSkipped: string | undefined;
    if (prometheusBinary) {
      const promDir = join(dir, 'prometheus');
      mkdirSync(promDir, { recursive: true });
      const configFile = join(promDir, 'prometheus.yml');
      writeFileSync(configFile, toYaml(prometheusConfig(files, apiServers, controllerManagers)));
      const promUrl = `http://127.0.0.1:${ports.prometheus}`;
      const component = await run(
        'prometheus',
        new ManagedProcess({
          name: 'prometheus',
          command: prometheusBinary,
          args: [`--config.file=${configFile}`, `--storage.tsdb.path=${join(promDir, 'data')}`, `--web.listen-address=127.0.0.1:${ports.prometheus}`],
          cwd: promDir,
          logFile: join(logs, 'prometheus.log'),
          ready: async () => (await statusOf(`${promUrl}/-/ready`)) === 200,
        }),
      );
      prometheus = { process: component, port: ports.prometheus, url: promUrl };
      log(`prometheus: ${promUrl}`);
    } else {
      prometheusSkipped = opts.prometheus === false ? 'not asked for' : 'prometheus is not on PATH (apt-get install -y prometheus)';
      log(`prometheus: skipped, ${prometheusSkipped}`);
    }

    return {
      dir,
      files,
      url,
      etcd: etcdCluster,
      apiServers,
      haproxy: { process: haproxy, port: ports.lb, url },
      controllerManagers,
      nodeAgents,
      prometheus,
      prometheusSkipped,
      backendStatus: () => backendStatus(statsSocket),
      async stop() {
        await stop();
        process.removeListener('exit', killAll);
      },
    };
  } catch (err) {
    await stop();
    process.removeListener('exit', killAll);
    throw err;
  }
}

/**
 * Two jobs, both authenticated with the monitoring token (system:monitoring): the API servers
 * (verified against the cluster CA) and the controller managers (whose serving certificates are
 * self-signed in memory, hence not verified).
 */
function prometheusConfig(files: ClusterFiles, apiServers: readonly ServingComponent[], managers: readonly ServingComponent[]): Record<string, unknown> {
  const authorization = { type: 'Bearer', credentials_file: files.monitoringTokenFile };
  return {
    global: { scrape_interval: '5s', scrape_timeout: '4s', evaluation_interval: '5s' },
    scrape_configs: [
      {
        job_name: 'apiserver',
        scheme: 'https',
        authorization,
        tls_config: { ca_file: files.pki.caCert },
        static_configs: [{ targets: apiServers.map((a) => `127.0.0.1:${a.port}`) }],
      },
      {
        job_name: 'controller-manager',
        scheme: 'https',
        authorization,
        tls_config: { insecure_skip_verify: true },
        static_configs: [{ targets: managers.map((m) => `127.0.0.1:${m.port}`) }],
      },
    ],
  };
}
