/**
 * The node agent process: command line and configuration file → one agent (or `--simulate N`
 * agents) → running until SIGTERM or SIGINT, which stops the loops and exits 0.
 *
 * A bad configuration stops the process before anything starts, listing every problem
 * (nodeagent/config/load.ts). The node is named by `--hostname-override`, else the host name,
 * lowercased as the kubelet does.
 *
 * Run as a program (`node dist/nodeagent/main.js`, `npm run nodeagent --`) it reads process.argv;
 * `corral nodeagent` (cli.ts) imports it and calls runNodeAgent instead.
 */
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createLogger } from '../apiserver/server/logging.ts';
import { realClock } from '../shared/client/clock.ts';
import { flagUsage } from '../shared/process/flags.ts';
import { isProgram, runCommand, stopOnSignals } from '../shared/process/program.ts';
import { keepRunningOnStrayErrors } from '../shared/process/stray-errors.ts';
import { NodeAgent, type AgentPaths } from './agent.ts';
import { loadNodeAgentConfig, type NodeAgentConfig } from './config/load.ts';
import { nodeAgentFlagTable } from './config/flags.ts';
import { OsHost } from './node/host.ts';
import { Simulation } from './simulation.ts';

/** What nodeInfo.containerRuntimeVersion says: there is no container runtime behind this agent. */
export const noRuntimeVersion = 'none://0.0.0';

/** The node's name: `--hostname-override`, else the host's name, trimmed and lowercased. */
export function nodeHostname(override: string | undefined): string {
  return (override?.trim() || osHostname()).toLowerCase();
}

async function main(argv: string[], command: string): Promise<void> {
  const loaded = loadNodeAgentConfig(argv);
  if (loaded.flags.help) {
    process.stdout.write(flagUsage(command, nodeAgentFlagTable));
    return;
  }
  if (loaded.flags.kubeconfig === undefined) {
    throw new Error('--kubeconfig is required: the node agent registers with an API server (running without one is not supported)');
  }
  const logger = createLogger(process.env['CORRAL_LOG_LEVEL'] ?? 'info', 'nodeagent');
  keepRunningOnStrayErrors(logger);
  for (const warning of loaded.warnings) logger.warn(warning);
  // The agent's timers do not hold the process open (the clock unrefs them); this does, until a signal.
  const keepAlive = setInterval(() => {}, 2 ** 30);
  const stop = loaded.flags.simulate > 0 ? await startSimulation(loaded, logger) : await startAgent(loaded, logger);
  stopOnSignals(
    async () => {
      await stop();
      clearInterval(keepAlive);
    },
    (err) => logger.error({ err }, 'shutdown failed'),
  );
}

async function startAgent(loaded: NodeAgentConfig, logger: Logger): Promise<() => Promise<void>> {
  const hostname = nodeHostname(loaded.flags.hostnameOverride);
  const paths: AgentPaths = { nodeName: hostname, hostname, kubeconfigPath: loaded.flags.kubeconfig ?? '', certDir: loaded.flags.certDir };
  const agent = new NodeAgent(loaded, paths, {
    host: new OsHost(loaded.flags.rootDir),
    clock: realClock,
    logger: logger.child({ node: hostname }),
    containerRuntimeVersion: noRuntimeVersion,
  });
  await agent.start();
  return () => agent.stop();
}

async function startSimulation(loaded: NodeAgentConfig, logger: Logger): Promise<() => Promise<void>> {
  const base = nodeHostname(loaded.flags.hostnameOverride);
  const simulation = new Simulation(loaded, {
    count: loaded.flags.simulate,
    paths: (i) => {
      const name = `${base}-${i}`;
      const certDir = join(loaded.flags.certDir, name);
      return { nodeName: name, hostname: name, certDir, kubeconfigPath: join(certDir, 'kubeconfig') };
    },
    host: new OsHost(loaded.flags.rootDir),
    logger,
    containerRuntimeVersion: noRuntimeVersion,
  });
  await simulation.start();
  return () => simulation.stop();
}

/** Starts the node agent for `argv` and keeps the process running until a signal stops it. */
export function runNodeAgent(argv: string[], command: string): void {
  runCommand(() => main(argv, command));
}

if (isProgram(import.meta.url)) runNodeAgent(process.argv.slice(2), 'npm run nodeagent --');
