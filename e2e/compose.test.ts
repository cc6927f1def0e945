/**
 * docker-compose.yml and deploy/: no Docker engine runs on these machines and no image can be
 * pulled, so the cluster in containers is checked without running it:
 *
 * - Compose itself validates the file (`docker-compose config -q`, Debian's docker-compose 1.x, and
 *   `docker compose config -q` when the v2 plugin works) and its normalized output has the topology
 *   the README promises: 3 etcd members, replicated API servers behind haproxy, 2 controller
 *   managers, 2 node agents with volumes of their own, Prometheus, and a one-shot PKI job that
 *   everything waits for.
 * - Every corral command in the file is accepted by the flag parser of its own process (an unknown
 *   or malformed flag would stop the container at start), and the node agents' KubeletConfiguration
 *   loads and validates.
 * - The pki job's command, run for real into a temporary directory standing in for the `cluster`
 *   volume, writes every file any service reads from that volume, and the API servers then find a
 *   serving certificate with all their names (so they never re-issue it).
 * - haproxy and promtool accept deploy/haproxy.cfg and deploy/prometheus.yml, and Prometheus
 *   scrapes every component by its service name.
 *
 * The same topology runs as processes in the cluster tests (cluster/topology.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { configFromFlags as apiServerConfig, parseFlags as parseApiServerFlags } from '../apiserver/config.ts';
import { ensurePki, pkiPaths } from '../apiserver/auth/pki-setup.ts';
import { flags as pkiFlags } from '../cluster/pki-main.ts';
import { flags as controllerManagerFlags } from '../controllers/config.ts';
import { controllerManagerConfig } from '../controllers/main.ts';
import { loadNodeAgentConfig } from '../nodeagent/config/load.ts';
import { parseFlagTable } from '../shared/process/flags.ts';
import { composeModel, flagValue, type ComposeModel, type Service } from './compose-model.ts';
import { repoRoot, run, type CommandResult } from './harness.ts';
import { dockerCompose, haproxy, promtool, skipUnlessTool } from './tool-availability.ts';

const composeFile = join(repoRoot, 'docker-compose.yml');
const deployDir = join(repoRoot, 'deploy');
/** The mount point of the shared volume the pki job fills, in every container that reads it. */
const CLUSTER_DIR = '/cluster';
const CLUSTER_VOLUME = 'cluster';
const ETCD_MEMBERS = ['etcd-1', 'etcd-2', 'etcd-3'];
const NODE_AGENTS = ['node-1', 'node-2'];
const CORRAL_SERVICES = ['pki', 'apiserver', 'controllers', ...NODE_AGENTS];

function ok(result: CommandResult, what: string): string {
  assert.equal(result.code, 0, `${what} failed (exit ${result.code}):\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

function get(model: ComposeModel, name: string): Service {
  const service = model.services.get(name);
  assert.ok(service, `no service ${name}; services: ${[...model.services.keys()].join(', ')}`);
  return service;
}

/** The command's flag value, which must be there. */
function flag(service: Service, name: string): string {
  const value = flagValue(service.command, name);
  assert.ok(value !== undefined, `${service.name} runs without ${name}: ${service.command.join(' ')}`);
  return value;
}

function mountAt(service: Service, target: string): Service['mounts'][number] {
  const found = service.mounts.find((m) => m.target === target);
  assert.ok(found, `${service.name} mounts nothing at ${target}: ${JSON.stringify(service.mounts)}`);
  return found;
}

/** The mount that holds `path` inside the service's container (the longest matching target). */
function mountHolding(service: Service, path: string): Service['mounts'][number] | undefined {
  return service.mounts
    .filter((m) => path === m.target || path.startsWith(`${m.target}/`))
    .sort((a, b) => b.target.length - a.target.length)
    .at(0);
}

function assertWaitsFor(service: Service, dependency: string, condition: string): void {
  assert.equal(service.dependsOn[dependency], condition, `${service.name} must wait for ${dependency} (${condition}): ${JSON.stringify(service.dependsOn)}`);
}

/** The topology assertions, on a model of what Compose itself made of the file. */
function describeTopology(load: () => Promise<ComposeModel>): void {
  let model: ComposeModel;
  before(async () => {
    model = await load();
  });

  it('has exactly the services of the topology', () => {
    assert.deepEqual([...model.services.keys()].sort(), [...ETCD_MEMBERS, 'pki', 'apiserver', 'lb', 'controllers', ...NODE_AGENTS, 'prometheus'].sort());
    assert.deepEqual(model.volumes.sort(), [CLUSTER_VOLUME, ...ETCD_MEMBERS, ...NODE_AGENTS].sort());
  });

  it('runs every corral process from the one image built from the Dockerfile', () => {
    const images = new Set(CORRAL_SERVICES.map((name) => get(model, name).image));
    assert.equal(images.size, 1, `corral services use several images: ${[...images].join(', ')}`);
    for (const name of CORRAL_SERVICES) assert.equal(get(model, name).buildContext, repoRoot, `${name} is not built from the repository's Dockerfile`);
    assert.deepEqual(
      CORRAL_SERVICES.map((name) => get(model, name).command[0]),
      ['pki', 'apiserver', 'controllers', 'nodeagent', 'nodeagent'],
    );
  });

  it('forms one etcd cluster of three members from the official image, each on its own volume', () => {
    for (const name of ETCD_MEMBERS) {
      const member = get(model, name);
      assert.match(member.image ?? '', /^gcr\.io\/etcd-development\/etcd:v3\.\d+\.\d+$/);
      assert.equal(flag(member, '--name'), name);
      assert.equal(flag(member, '--advertise-client-urls'), `http://${name}:2379`);
      assert.equal(flag(member, '--initial-advertise-peer-urls'), `http://${name}:2380`);
      const initialCluster = (member.environment['ETCD_INITIAL_CLUSTER'] ?? '').split(',').sort();
      assert.deepEqual(
        initialCluster,
        ETCD_MEMBERS.map((m) => `${m}=http://${m}:2380`),
      );
      const data = mountAt(member, member.environment['ETCD_DATA_DIR'] ?? '');
      assert.deepEqual([data.type, data.source], ['volume', name]);
      assert.ok(member.healthcheck, `${name} has no health check: the API servers wait for it`);
    }
  });

  it('makes the PKI once, into the shared volume, before anything reads it', () => {
    const pki = get(model, 'pki');
    assert.equal(pki.restart, 'no', 'the pki job is one-shot');
    assert.equal(flag(pki, '--dir'), CLUSTER_DIR);
    assert.equal(flag(pki, '--server'), 'https://lb:6443', 'kubeconfigs must name the load balancer');
    const cluster = mountAt(pki, CLUSTER_DIR);
    assert.deepEqual([cluster.type, cluster.source, cluster.readOnly], ['volume', CLUSTER_VOLUME, false]);
    for (const service of model.services.values()) {
      if (service.name === 'pki' || !service.mounts.some((m) => m.type === 'volume' && m.source === CLUSTER_VOLUME)) continue;
      assertWaitsFor(service, 'pki', 'service_completed_successfully');
    }
  });

  it('runs replicated API servers on every etcd member, scalable with --scale', () => {
    const apiserver = get(model, 'apiserver');
    assert.ok(apiserver.replicas >= 2, `${apiserver.replicas} API server replica(s)`);
    // A fixed container name or published port would make a second replica fail to start.
    assert.equal(apiserver.containerName, undefined);
    assert.deepEqual(apiserver.ports, []);
    assert.deepEqual(
      flag(apiserver, '--etcd-servers').split(',').sort(),
      ETCD_MEMBERS.map((m) => `http://${m}:2379`),
    );
    assert.equal(flag(apiserver, '--data-dir'), CLUSTER_DIR);
    assert.equal(flag(apiserver, '--token-auth-file'), `${CLUSTER_DIR}/tokens.csv`);
    assert.ok(apiserver.command.includes('--enable-bootstrap-token-auth'), 'node agents join with a bootstrap token');
    // An API server takes the PKI lock and writes <data-dir>/admin.kubeconfig.
    const cluster = mountAt(apiserver, CLUSTER_DIR);
    assert.deepEqual([cluster.source, cluster.readOnly], [CLUSTER_VOLUME, false]);
    for (const member of ETCD_MEMBERS) assertWaitsFor(apiserver, member, 'service_healthy');
    assert.ok(
      apiserver.healthcheck?.some((arg) => arg.includes('/readyz')),
      'the health check reads /readyz',
    );
    // The serving certificate must carry the host name every replica has (pki-setup adds it to the wanted names).
    assert.ok(apiserver.hostname, 'replicas need one fixed host name');
    assert.ok(flag(get(model, 'pki'), '--tls-sans').split(',').includes(apiserver.hostname), `the pki job's --tls-sans lacks ${apiserver.hostname}`);
  });

  it('puts haproxy in front, published on the loopback address', () => {
    const lb = get(model, 'lb');
    assert.match(lb.image ?? '', /^haproxy:/);
    const config = mountAt(lb, '/usr/local/etc/haproxy/haproxy.cfg');
    assert.deepEqual([config.type, config.source, config.readOnly], ['bind', join(deployDir, 'haproxy.cfg'), true]);
    assert.deepEqual(lb.ports, ['127.0.0.1:6443:6443']);
  });

  it('runs two controller managers through the load balancer with the cluster CA as signer', () => {
    const controllers = get(model, 'controllers');
    assert.ok(controllers.replicas >= 2, `${controllers.replicas} controller manager replica(s)`);
    assert.equal(flag(controllers, '--kubeconfig'), `${CLUSTER_DIR}/kubeconfigs/controller-manager.kubeconfig`);
    assert.equal(flag(controllers, '--cluster-signing-cert-file'), `${CLUSTER_DIR}/pki/ca.crt`);
    assert.equal(flag(controllers, '--cluster-signing-key-file'), `${CLUSTER_DIR}/pki/ca.key`);
    assert.ok(controllers.command.includes('--use-service-account-credentials'));
    assert.equal(mountAt(controllers, CLUSTER_DIR).readOnly, true);
    assertWaitsFor(controllers, 'apiserver', 'service_healthy');
  });

  it('runs two node agents that bootstrap from the token, each keeping its identity on a volume of its own', () => {
    const own = new Set<string>();
    for (const name of NODE_AGENTS) {
      const agent = get(model, name);
      assert.equal(flag(agent, '--bootstrap-kubeconfig'), `${CLUSTER_DIR}/kubeconfigs/bootstrap.kubeconfig`);
      assert.equal(flag(agent, '--hostname-override'), name);
      for (const path of [flag(agent, '--kubeconfig'), flag(agent, '--cert-dir'), flag(agent, '--root-dir')]) {
        const holder = mountHolding(agent, path);
        assert.ok(
          holder?.type === 'volume' && holder.source !== CLUSTER_VOLUME && !holder.readOnly,
          `${name} keeps ${path} outside a writable volume of its own`,
        );
        own.add(holder.source);
      }
      const config = mountAt(agent, flag(agent, '--config'));
      assert.deepEqual([config.type, config.source, config.readOnly], ['bind', join(deployDir, 'kubelet.yaml'), true]);
      assertWaitsFor(agent, 'apiserver', 'service_healthy');
    }
    assert.equal(own.size, NODE_AGENTS.length, `node agents share a volume: ${[...own].join(', ')}`);
    for (const volume of own) {
      const users = [...model.services.values()].filter((s) => s.mounts.some((m) => m.type === 'volume' && m.source === volume));
      assert.equal(users.length, 1, `volume ${volume} is mounted by ${users.map((s) => s.name).join(', ')}`);
    }
  });

  it('runs Prometheus with its configuration and the shared credentials, published on the loopback address', () => {
    const prometheus = get(model, 'prometheus');
    assert.match(prometheus.image ?? '', /^prom\/prometheus:/);
    const config = mountAt(prometheus, '/etc/prometheus/prometheus.yml');
    assert.deepEqual([config.type, config.source, config.readOnly], ['bind', join(deployDir, 'prometheus.yml'), true]);
    assert.equal(mountAt(prometheus, CLUSTER_DIR).readOnly, true);
    assert.deepEqual(prometheus.ports, ['127.0.0.1:9090:9090']);
  });
}

/** The list under `key` of a parsed YAML mapping; empty when there is none. */
function listAt(value: unknown, key: string): unknown[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const found: unknown = Object.getOwnPropertyDescriptor(value, key)?.value;
  return Array.isArray(found) ? found : [];
}

async function composeConfig(command: string, args: readonly string[]): Promise<ComposeModel> {
  const what = [command, ...args, 'config'].join(' ');
  ok(await run(command, [...args, '-f', composeFile, 'config', '-q'], { timeoutMs: 60_000 }), `${what} -q`);
  return composeModel(parseYaml(ok(await run(command, [...args, '-f', composeFile, 'config'], { timeoutMs: 60_000 }), what)), repoRoot);
}

/** Why `docker compose` (the v2 plugin) cannot run here, or false when it can. */
async function skipUnlessComposePlugin(): Promise<string | false> {
  const version = await run('sh', ['-c', 'docker compose version'], { timeoutMs: 30_000 });
  if (version.code === 0) return false;
  return `the docker compose plugin does not work here: \`docker compose version\` exited ${version.code}: ${(version.stderr || version.stdout).trim().split('\n')[0] ?? ''}`;
}

describe('docker-compose.yml as docker-compose (Debian, 1.x) reads it', { skip: skipUnlessTool(dockerCompose) }, () => {
  describeTopology(() => composeConfig('docker-compose', []));
});

describe('docker-compose.yml as docker compose (the v2 plugin) reads it', { skip: await skipUnlessComposePlugin() }, () => {
  describeTopology(() => composeConfig('docker', ['compose']));
});

describe("docker-compose.yml's corral commands and the files they share", () => {
  // The file itself, read as Compose reads it (merge keys resolved), so that this runs without docker-compose.
  const model = composeModel(parseYaml(readFileSync(composeFile, 'utf8'), { merge: true }), repoRoot);
  const dir = mkdtempSync(join(tmpdir(), 'corral-compose-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** A path inside the containers' cluster volume, in the temporary directory standing for it. */
  const onVolume = (path: string): string => (path === CLUSTER_DIR || path.startsWith(`${CLUSTER_DIR}/`) ? join(dir, path.slice(CLUSTER_DIR.length)) : path);
  const args = (name: string): string[] => get(model, name).command.slice(1);

  // The pki job's command, run for real into `dir`: its files are what every service reads.
  let pkiRun: CommandResult;
  before(async () => {
    pkiRun = await run(process.execPath, ['--import', 'tsx', 'cli.ts', 'pki', ...args('pki').map(onVolume)], { timeoutMs: 60_000 });
  });

  it('passes every command through the flag parser of its process', () => {
    assert.doesNotThrow(() => parseFlagTable(args('pki'), pkiFlags), 'pki');
    assert.doesNotThrow(() => apiServerConfig(parseApiServerFlags(args('apiserver'))), 'apiserver');
    assert.doesNotThrow(() => controllerManagerConfig(parseFlagTable(args('controllers'), controllerManagerFlags)), 'controllers');
    for (const name of NODE_AGENTS) {
      const agent = get(model, name);
      // --config names the container's path; the agent loads the file bind-mounted there.
      const configPath = flag(agent, '--config');
      const hostConfig = mountAt(agent, configPath).source;
      const argv = args(name).map((arg) => (arg === configPath ? hostConfig : arg));
      const loaded = loadNodeAgentConfig(argv);
      assert.deepEqual(loaded.warnings, [], `${name}: ${loaded.warnings.join('\n')}`);
      assert.equal(loaded.config.authentication.x509.clientCAFile, `${CLUSTER_DIR}/pki/ca.crt`, 'Prometheus scrapes the agents with a client certificate');
    }
  });

  it("the pki job's command writes every file the services read from the cluster volume", () => {
    ok(pkiRun, 'corral pki');
    const referenced = new Set<string>();
    const collect = (text: string): void => {
      for (const match of text.matchAll(/\/cluster\/[\w./-]+/g)) referenced.add(match[0]);
    };
    for (const name of CORRAL_SERVICES) collect(get(model, name).command.join(' '));
    collect(readFileSync(join(deployDir, 'kubelet.yaml'), 'utf8'));
    collect(readFileSync(join(deployDir, 'prometheus.yml'), 'utf8'));
    assert.ok(referenced.size >= 8, `only ${[...referenced].join(', ')}`);
    const missing = [...referenced].filter((path) => !existsSync(onVolume(path)));
    assert.deepEqual(missing, [], 'files read from the cluster volume that the pki job does not write');
  });

  it('gives the API servers a serving certificate with every name they want, so that none re-issues it', async () => {
    ok(pkiRun, 'corral pki');
    const apiserver = get(model, 'apiserver');
    assert.ok(apiserver.hostname, 'replicas need one fixed host name');
    const servingCert = pkiPaths(dir).servingCert;
    const issued = readFileSync(servingCert, 'utf8');
    // What a replica does first at start (apiserver/app.ts), with its flags and host name.
    await ensurePki(dir, { tlsSans: flag(apiserver, '--tls-sans').split(','), hostname: apiserver.hostname });
    assert.equal(readFileSync(servingCert, 'utf8'), issued, 'the API server re-issued the serving certificate');
  });

  it('has Prometheus scrape every component by its service name', () => {
    const config: unknown = parseYaml(readFileSync(join(deployDir, 'prometheus.yml'), 'utf8'));
    const scraped = new Set<string>();
    for (const job of listAt(config, 'scrape_configs')) {
      for (const sd of listAt(job, 'dns_sd_configs')) for (const name of listAt(sd, 'names')) scraped.add(String(name));
      for (const group of listAt(job, 'static_configs')) for (const target of listAt(group, 'targets')) scraped.add(String(target).split(':')[0] ?? '');
    }
    scraped.delete('localhost');
    assert.deepEqual([...scraped].sort(), [...model.services.keys()].filter((name) => name !== 'pki' && name !== 'prometheus').sort());
  });

  it('haproxy accepts deploy/haproxy.cfg', { skip: skipUnlessTool(haproxy) }, async () => {
    ok(await run('haproxy', ['-c', '-f', join(deployDir, 'haproxy.cfg')]), 'haproxy -c');
  });

  it('promtool accepts deploy/prometheus.yml', { skip: skipUnlessTool(promtool) }, async () => {
    // --syntax-only: the credential files it names exist only on the cluster volume.
    ok(await run('promtool', ['check', 'config', '--syntax-only', join(deployDir, 'prometheus.yml')]), 'promtool check config');
  });
});
