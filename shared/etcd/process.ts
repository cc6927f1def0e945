/**
 * Runs an etcd member as a child process on loopback ports: the e2e harness, the tests that need
 * etcd and the benchmarks use it. The binary comes from PATH (Debian's etcd-server package), or
 * CORRAL_ETCD_BINARY (availability.ts). Ports chosen for a data dir are remembered there, so that a
 * restart on the same data dir finds the same member at the same address. `startEtcdCluster` runs a multi-member
 * cluster (fault tests: kill the leader, restart a member).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { etcdBinary } from './availability.ts';
import { freePort, freePorts } from '../net/free-ports.ts';
import { reclaimDataDir, recordOwnership, tiedToParent } from './ownership.ts';

export interface EtcdMemberSpec {
  name: string;
  clientPort: number;
  peerPort: number;
}

export interface EtcdProcessOptions {
  dataDir: string;
  /** Name of this member (default `default`). */
  name?: string;
  /** The whole initial cluster, for multi-member clusters; a single member by default. */
  cluster?: EtcdMemberSpec[];
  clientPort?: number;
  peerPort?: number;
  /** Where etcd's own log goes; `<dataDir>/etcd.log` by default. */
  logFile?: string;
  etcdBinary?: string;
}

export interface EtcdProcess {
  endpoints: string[];
  clientPort: number;
  peerPort: number;
  child: ChildProcess;
  /** Stops etcd with SIGTERM (SIGKILL after a grace period) and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills etcd at once, as a crash would. */
  kill(): Promise<void>;
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

interface RememberedPorts {
  clientPort: number;
  peerPort: number;
}

async function choosePorts(dataDir: string, opts: EtcdProcessOptions): Promise<RememberedPorts> {
  if (opts.clientPort && opts.peerPort) return { clientPort: opts.clientPort, peerPort: opts.peerPort };
  const file = join(dataDir, 'ports.json');
  if (existsSync(file)) {
    const remembered = JSON.parse(readFileSync(file, 'utf8')) as RememberedPorts;
    if ((await portIsFree(remembered.clientPort)) && (await portIsFree(remembered.peerPort))) return remembered;
  }
  const ports = { clientPort: opts.clientPort ?? (await freePort()), peerPort: opts.peerPort ?? (await freePort()) };
  writeFileSync(file, JSON.stringify(ports));
  return ports;
}

const missingEtcd = 'cannot run etcd (is the etcd-server package installed?)';

async function waitHealthy(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // 127: setpriv (see tiedToParent) found no etcd to run.
    if (child.exitCode === 127) throw new Error(missingEtcd);
    if (child.exitCode !== null) throw new Error(`etcd exited with code ${child.exitCode} during start`);
    try {
      const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: string };
      if (body.health === 'true') return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`etcd at ${endpoint} did not become healthy within ${timeoutMs} ms`);
}

export async function startEtcd(opts: EtcdProcessOptions): Promise<EtcdProcess> {
  const name = opts.name ?? 'default';
  mkdirSync(opts.dataDir, { recursive: true });
  const etcdDataDir = join(opts.dataDir, 'data');
  await reclaimDataDir(opts.dataDir, etcdDataDir);
  const { clientPort, peerPort } = await choosePorts(opts.dataDir, opts);
  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const cluster = opts.cluster ?? [{ name, clientPort, peerPort }];
  const args = [
    `--name=${name}`,
    `--data-dir=${etcdDataDir}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=${cluster.map((m) => `${m.name}=http://127.0.0.1:${m.peerPort}`).join(',')}`,
    '--initial-cluster-state=new',
    '--initial-cluster-token=corral',
    // History for watches and continue tokens is managed by the API server's compactor.
    '--auto-compaction-retention=0',
    '--quota-backend-bytes=8589934592',
  ];
  const log = createWriteStream(opts.logFile ?? join(opts.dataDir, 'etcd.log'), { flags: 'a' });
  const launch = tiedToParent(opts.etcdBinary ?? etcdBinary(), args);
  // A process group of its own: a signal to the parent's group (Ctrl-C, systemd's default
  // KillMode, a container runtime) reaches the parent alone, which stops etcd after its graceful
  // shutdown; etcd still dies with its parent (see tiedToParent and ownership.ts).
  const child = spawn(launch.command, launch.args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  recordOwnership(opts.dataDir, child);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spawnError = new Promise<never>((_, reject) => child.once('error', (err) => reject(new Error(`${missingEtcd}: ${err.message}`))));
  // A multi-member cluster becomes healthy only once a quorum runs, so callers wait for that themselves.
  if (cluster.length === 1) {
    try {
      await Promise.race([waitHealthy(clientUrl, child, 30_000), spawnError]);
    } catch (err) {
      // Not ours to hand on, so not left running: a live child would hold the caller's process open.
      child.kill('SIGKILL');
      throw err;
    }
  }
  const stopWith = async (signal: NodeJS.Signals, graceMs: number): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    log.end();
  };
  return {
    endpoints: [clientUrl],
    clientPort,
    peerPort,
    child,
    stop: () => stopWith('SIGTERM', 10_000),
    kill: () => stopWith('SIGKILL', 0),
  };
}

/** A multi-member cluster on loopback ports, each member in `<dataDir>/<name>`. */
export interface EtcdCluster {
  /** The initial cluster, in member order. */
  specs: EtcdMemberSpec[];
  /** Every member's client URL, in member order. */
  endpoints: string[];
  /** The running process of each member; undefined while a member is down. */
  members: (EtcdProcess | undefined)[];
  /** The index of the member that leads now (asks the running members). */
  leader(): Promise<number>;
  /** Hands leadership to member `index` (a running one) and waits until it leads. */
  moveLeader(index: number): Promise<void>;
  /** Kills member `index` at once, as a crash would. */
  kill(index: number): Promise<void>;
  /** Starts member `index` again on its data dir and waits until it is healthy. */
  restart(index: number): Promise<void>;
  /** Stops every running member. */
  stop(): Promise<void>;
}

export interface EtcdClusterOptions {
  dataDir: string;
  /** Number of members (default 3). */
  size?: number;
  etcdBinary?: string;
  /** How long the cluster may take to elect a leader (default 60 s). */
  timeoutMs?: number;
}

interface MemberStatus {
  header?: { member_id?: string };
  leader?: string;
}

/** A member's view of the cluster through etcd's JSON gateway; undefined when it does not answer. */
async function memberStatus(endpoint: string): Promise<MemberStatus | undefined> {
  try {
    const res = await fetch(`${endpoint}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) });
    return res.ok ? ((await res.json()) as MemberStatus) : undefined;
  } catch {
    return undefined;
  }
}

export async function startEtcdCluster(opts: EtcdClusterOptions): Promise<EtcdCluster> {
  const size = opts.size ?? 3;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  mkdirSync(opts.dataDir, { recursive: true });
  const specFile = join(opts.dataDir, 'cluster.json');
  let specs: EtcdMemberSpec[];
  if (existsSync(specFile)) {
    specs = JSON.parse(readFileSync(specFile, 'utf8')) as EtcdMemberSpec[];
  } else {
    specs = [];
    const ports = await freePorts(2 * size);
    for (let i = 0; i < size; i++) specs.push({ name: `member-${i}`, clientPort: ports[2 * i] ?? 0, peerPort: ports[2 * i + 1] ?? 0 });
    writeFileSync(specFile, JSON.stringify(specs));
  }
  const endpoints = specs.map((m) => `http://127.0.0.1:${m.clientPort}`);
  const members: (EtcdProcess | undefined)[] = specs.map(() => undefined);
  const spec = (index: number): EtcdMemberSpec => {
    const member = specs[index];
    if (!member) throw new Error(`no etcd member ${index}`);
    return member;
  };
  const launch = async (index: number): Promise<EtcdProcess> => {
    const member = spec(index);
    const proc = await startEtcd({
      dataDir: join(opts.dataDir, member.name),
      name: member.name,
      cluster: specs,
      clientPort: member.clientPort,
      peerPort: member.peerPort,
      ...(opts.etcdBinary ? { etcdBinary: opts.etcdBinary } : {}),
    });
    members[index] = proc;
    return proc;
  };
  const stop = async (): Promise<void> => {
    await Promise.all(members.filter((m) => m !== undefined).map((m) => m.stop()));
    members.fill(undefined);
  };
  const leader = async (): Promise<number> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (let i = 0; i < specs.length; i++) {
        if (!members[i]) continue;
        const status = await memberStatus(endpoints[i] ?? '');
        if (status?.leader && status.leader !== '0' && status.leader === status.header?.member_id) return i;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no etcd member led within ${timeoutMs} ms`);
  };
  try {
    // Members wait for each other (a quorum) before any becomes healthy, so they start together.
    const started = await Promise.all(specs.map((_, i) => launch(i)));
    await Promise.all(started.map((proc, i) => waitHealthy(endpoints[i] ?? '', proc.child, timeoutMs)));
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    specs,
    endpoints,
    members,
    leader,
    async moveLeader(index) {
      const target = (await memberStatus(endpoints[index] ?? ''))?.header?.member_id;
      if (!target) throw new Error(`etcd member ${index} does not answer`);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const current = await leader();
        if (current === index) return;
        if (Date.now() > deadline) throw new Error(`etcd member ${index} did not take the lead within ${timeoutMs} ms`);
        // Only the leader transfers leadership; a failed attempt (an election under way) is retried.
        await fetch(`${endpoints[current]}/v3/maintenance/transfer-leadership`, {
          method: 'POST',
          body: JSON.stringify({ targetID: target }),
          signal: AbortSignal.timeout(10_000),
        }).catch(() => undefined);
      }
    },
    async kill(index) {
      await members[index]?.kill();
      members[index] = undefined;
    },
    async restart(index) {
      if (members[index]) throw new Error(`etcd member ${index} is running`);
      const proc = await launch(index);
      await waitHealthy(endpoints[index] ?? '', proc.child, timeoutMs);
    },
    stop,
  };
}
