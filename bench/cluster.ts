/**
 * The cluster a benchmark runs against (its own etcd and one API server child process in a temp
 * dir), the CPU time its processes spend, and its CPU profile report.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type EtcdProcess } from '../shared/etcd/process.ts';
import {
  formatProfileSummary,
  machineBusyMs,
  mainThreadProfile,
  ownCpuMs,
  readProcess,
  startApiServerProcess,
  summarizeCpuProfile,
  type ApiServerProcess,
  type Cleanup,
} from './lib.ts';

export interface ClusterOptions {
  /** Keep the temp dir (etcd data, API server log). */
  keep: boolean;
  /** Profile the API server into this directory (see `reportProfile`). */
  cpuProfileDir: string | undefined;
}

export interface Pids {
  apiserver: number;
  etcd: number;
}

export interface Cluster {
  dir: string;
  etcd: EtcdProcess;
  api: ApiServerProcess;
  pids: Pids;
}

/**
 * Starts etcd and an API server in a new temp dir `/tmp/<prefix>*`, logging where to stderr;
 * `cleanup` stops both and removes the dir (unless `keep`).
 */
export async function startCluster(opts: ClusterOptions, cleanup: Cleanup, prefix: string, server: { gcProbe?: boolean } = {}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (!opts.keep) cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  process.stderr.write(`temp dir ${dir}\n`);

  const etcd = await startEtcd({ dataDir: join(dir, 'etcd') });
  cleanup.push(() => etcd.stop());
  if (opts.cpuProfileDir) mkdirSync(opts.cpuProfileDir, { recursive: true });
  const api = await startApiServerProcess({
    etcdEndpoints: etcd.endpoints,
    dataDir: join(dir, 'apiserver'),
    logFile: join(dir, 'apiserver.log'),
    ...(server.gcProbe ? { gcProbe: true } : {}),
    ...(opts.cpuProfileDir ? { cpuProfileDir: opts.cpuProfileDir } : {}),
  });
  cleanup.push(() => api.stop());
  process.stderr.write(`etcd ${etcd.endpoints.join(',')}, API server ${api.url} (pid ${api.pid})\n`);
  return { dir, etcd, api, pids: { apiserver: api.pid, etcd: etcd.child.pid! } };
}

/** CPU time in milliseconds: of the API server, of etcd, of this process, and of the whole machine. */
export interface ClusterCpu {
  apiserver: number;
  etcd: number;
  bench: number;
  /** Every process on the machine, these three included. */
  machine: number;
}

/** The CPU time spent so far. */
export function clusterCpu(pids: Pids): ClusterCpu {
  return { apiserver: readProcess(pids.apiserver).cpuMs, etcd: readProcess(pids.etcd).cpuMs, bench: ownCpuMs(), machine: machineBusyMs() };
}

/** The CPU time spent since `before` was read. */
export function clusterCpuSince(pids: Pids, before: ClusterCpu): ClusterCpu {
  const now = clusterCpu(pids);
  return { apiserver: now.apiserver - before.apiserver, etcd: now.etcd - before.etcd, bench: now.bench - before.bench, machine: now.machine - before.machine };
}

/**
 * With `cpuProfileDir`, stops the API server (which writes its profile at exit) and prints the
 * profile's summary; `life` says what the process did while profiled.
 */
export async function reportProfile(api: ApiServerProcess, cpuProfileDir: string | undefined, life: string): Promise<void> {
  if (!cpuProfileDir) return;
  await api.stop();
  const profile = mainThreadProfile(cpuProfileDir, api.pid);
  if (!profile) throw new Error(`the API server wrote no main-thread CPU profile into ${cpuProfileDir}`);
  process.stdout.write(`\nAPI server CPU profile ${profile} (whole process life: ${life})\n\n`);
  process.stdout.write(formatProfileSummary(summarizeCpuProfile(profile, api.sourceMapsFile)) + '\n');
}
