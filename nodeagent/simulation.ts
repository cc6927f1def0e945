/**
 * `--simulate N`: N node agents in one process, for scale tests. Each is a whole agent as far as
 * the API server can tell (its own bootstrap token request and client certificate, its own Node,
 * status, Lease and CSINode) but serves no endpoint and runs no pods: those are per-host things
 * that N agents on one host could not truthfully share. They share the host's facts (read once
 * a second at most) and the clock.
 *
 * Agents start at most `startConcurrency` at a time (bootstrap is a CSR each, signed by the
 * controller manager). They join in waves, as the controller manager signs their CSRs in batches,
 * so each renews its lease at a phase of the renew interval drawn at random, as hosts started
 * independently would: renewals arrive evenly over the interval, not in the waves they joined in.
 */
import type { Logger } from 'pino';
import { realClock, type Clock } from '../shared/client/clock.ts';
import { NodeAgent, type AgentPaths } from './agent.ts';
import type { NodeAgentConfig } from './config/load.ts';
import type { Host } from './node/host.ts';

export interface SimulationOptions {
  count: number;
  paths: (index: number) => AgentPaths;
  host: Host;
  logger: Logger;
  containerRuntimeVersion: string;
  clock?: Clock;
  /** Agents starting at once. */
  startConcurrency?: number;
  leaseRenewed?: (latencyMs: number) => void;
  /** Draws each agent's lease phase, in [0, 1) (tests); Math.random by default. */
  random?: () => number;
}

export class Simulation {
  readonly agents: NodeAgent[] = [];

  constructor(
    private readonly config: NodeAgentConfig,
    private readonly options: SimulationOptions,
  ) {
    if (config.flags.bootstrapKubeconfig === undefined) {
      throw new Error('--simulate needs --bootstrap-kubeconfig: every simulated node gets its own identity through TLS bootstrap');
    }
  }

  /** Starts every agent; resolves once all are registered. Rejects with the first agent that cannot start. */
  async start(): Promise<void> {
    const { count, logger } = this.options;
    const concurrency = this.options.startConcurrency ?? 32;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) {
        const index = next++;
        const paths = this.options.paths(index);
        const agent = new NodeAgent(this.config, paths, {
          host: this.options.host,
          simulated: true,
          clock: this.options.clock ?? realClock,
          logger: logger.child({ node: paths.nodeName }),
          containerRuntimeVersion: this.options.containerRuntimeVersion,
          ...(this.options.leaseRenewed ? { leaseRenewed: this.options.leaseRenewed } : {}),
          leasePhase: (this.options.random ?? Math.random)(),
        });
        this.agents.push(agent);
        await agent.start();
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
    logger.info({ agents: count }, 'simulated node agents running');
  }

  async stop(): Promise<void> {
    await Promise.all(this.agents.map((a) => a.stop()));
  }
}
