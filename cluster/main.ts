/**
 * `npm run cluster [-- --dir DIR --apiservers N --nodes N --port P]`: the process topology of
 * cluster/topology.ts on this machine (3 etcd members, 2 API servers (or --apiservers) behind haproxy, 2 controller managers, simulated
 * node agents, Prometheus when installed), printing how to reach it; Ctrl-C (SIGINT) or SIGTERM
 * stops every process, API servers draining first. Starting again on the same dir resumes the same
 * cluster, data and address.
 */
import { resolve } from 'node:path';
import type { FlagTable } from '../shared/process/flags.ts';
import { flagsOrUsage, FlagReader } from '../shared/process/flags.ts';
import { isProgram, runCommand, stopOnSignals } from '../shared/process/program.ts';
import { startTopology } from './topology.ts';

export const flags: FlagTable = {
  dir: { type: 'string', default: '.corral-cluster', help: 'Where the cluster keeps its files, data and logs.' },
  apiservers: { type: 'string', default: '2', help: 'API server replicas behind the load balancer (1 to 9).' },
  nodes: { type: 'string', default: '3', help: 'Simulated nodes in the node agent process (0: none).' },
  port: { type: 'string', help: "The load balancer's port on 127.0.0.1 (default: the one this dir used before, else a free one)." },
  help: { type: 'boolean', help: 'Print this help.' },
};

async function main(argv: string[], command: string): Promise<void> {
  const values = flagsOrUsage(argv, command, flags);
  if (!values) return;
  const reader = new FlagReader(values);
  const dir = resolve(reader.string('dir') ?? '.corral-cluster');
  const apiServers = reader.integer('apiservers', '2');
  const nodes = reader.integer('nodes', '3');
  const port = reader.string('port') !== undefined ? reader.integer('port', '0') : undefined;
  reader.require(apiServers >= 1 && apiServers <= 9, '--apiservers must be 1 to 9');
  reader.require(nodes >= 0, '--nodes must not be negative');
  reader.finish();
  const say = (message: string): void => void process.stderr.write(`${message}\n`);
  const topology = await startTopology({ dir, apiServers, nodes, ...(port !== undefined ? { port } : {}), log: say });
  stopOnSignals(
    async () => {
      say('stopping…');
      await topology.stop();
    },
    (err) => say(`stopping failed: ${err instanceof Error ? err.message : String(err)}`),
  );
  process.stdout.write(
    [
      '',
      `The cluster serves ${topology.url} (haproxy in front of ${topology.apiServers.map((a) => a.url).join(', ')}).`,
      '',
      `  export KUBECONFIG=${topology.files.adminKubeconfig}`,
      '  kubectl get nodes',
      '',
      `Logs: ${dir}/logs/. Prometheus: ${topology.prometheus?.url ?? `not running (${topology.prometheusSkipped ?? ''})`}.`,
      'Ctrl-C stops it; run again with the same --dir to resume.',
      '',
    ].join('\n'),
  );
}

/** Starts the topology for `argv` and keeps it running until a signal stops it. */
export function runCluster(argv: string[], command: string): void {
  runCommand(() => main(argv, command));
}

if (isProgram(import.meta.url)) runCluster(process.argv.slice(2), 'npm run cluster --');
