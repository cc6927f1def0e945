/**
 * Node agents as e2e tests run them: child processes (`nodeagent/main.ts`) that join a harness
 * cluster with a bootstrap token alone, each with its own configuration file, cert dir and
 * kubeconfig under the cluster's directory. Killed with the cluster's processes if the test
 * process ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../shared/net/free-ports.ts';
import { renderKubeconfig } from '../shared/pki/kubeconfig.ts';
import { registerCleanup, repoRoot, succeeded, terminate, type Cluster } from './harness.ts';

/** Creates a bootstrap token Secret (`<id>.<secret>`) allowed to authenticate, and returns the token. */
export async function createBootstrapToken(cluster: Cluster, id = 'abcdef', secret = '0123456789abcdef'): Promise<string> {
  const token = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: {
      'token-id': id,
      'token-secret': secret,
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-signing': 'true',
      'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
    },
  };
  succeeded(await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(token) }));
  return `${id}.${secret}`;
}

/** A bootstrap kubeconfig for `token` against replica `replica`, written under the cluster's directory. */
export function writeBootstrapKubeconfig(cluster: Cluster, token: string, replica = 0): string {
  const file = join(cluster.dir, `bootstrap-${replica}.kubeconfig`);
  const server = cluster.urls[replica];
  if (!server) throw new Error(`no replica ${replica}`);
  writeFileSync(file, renderKubeconfig({ server, caPem: cluster.caPem, token, userName: 'tls-bootstrap-token-user' }));
  return file;
}

export interface NodeAgentProcess {
  child: ChildProcess;
  name: string;
  dir: string;
  certDir: string;
  kubeconfig: string;
  log(): string;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  kill(): void;
}

export interface NodeAgentOptions {
  /** The node's name (--hostname-override). */
  name: string;
  bootstrapKubeconfig: string;
  /** The KubeletConfiguration's fields beyond apiVersion and kind (YAML-compatible JSON). */
  config?: Record<string, unknown>;
  args?: readonly string[];
}

/**
 * Starts an agent serving on a free port; resolves once it is spawned (the test waits for what it
 * expects). The same name again is a restart: the same directory, cert dir and kubeconfig.
 */
export async function startNodeAgent(cluster: Cluster, opts: NodeAgentOptions): Promise<NodeAgentProcess> {
  const dir = join(cluster.dir, 'nodes', opts.name);
  const certDir = join(dir, 'pki');
  const kubeconfig = join(dir, 'kubeconfig');
  mkdirSync(dir, { recursive: true });
  const configFile = join(dir, 'config.json');
  const config = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', port: await freePort(), healthzPort: 0, ...opts.config };
  writeFileSync(configFile, JSON.stringify(config));
  const logFile = join(dir, 'agent.log');
  const fd = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'nodeagent/main.ts',
      `--config=${configFile}`,
      `--bootstrap-kubeconfig=${opts.bootstrapKubeconfig}`,
      `--kubeconfig=${kubeconfig}`,
      `--cert-dir=${certDir}`,
      `--root-dir=${dir}`,
      `--hostname-override=${opts.name}`,
      ...(opts.args ?? []),
    ],
    { cwd: repoRoot, stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  const unregister = registerCleanup(() => [child], dir);
  return {
    child,
    name: opts.name,
    dir,
    certDir,
    kubeconfig,
    log: () => readFileSync(logFile, 'utf8'),
    async stop() {
      await terminate(child);
      unregister();
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
}
