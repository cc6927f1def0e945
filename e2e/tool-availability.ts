/**
 * Whether an external program a packaging test runs (docker-compose, haproxy, promtool) is installed:
 * the same contract as shared/etcd/availability.ts for etcd. Without the program the test skips and
 * says why, so that `npm test` passes on a machine with Node.js alone; its `require` variable set
 * to `1` (`.ci/run` sets CORRAL_REQUIRE_COMPOSE and CORRAL_REQUIRE_HAPROXY after installing them)
 * turns the skip into a failure, so that CI can never pass with those checks skipped.
 */
import { findExecutable } from '../shared/etcd/availability.ts';

export interface Tool {
  /** The command looked up on PATH. */
  command: string;
  /** What it is needed for, in the skip message. */
  purpose: string;
  /** How to install it, in the skip message. */
  install: string;
  /** The environment variable that, set to `1`, makes a missing tool a failure; none: always a skip. */
  requireVariable?: string;
}

export const dockerCompose: Tool = {
  command: 'docker-compose',
  purpose: 'to validate docker-compose.yml',
  install: 'apt-get install --no-install-recommends docker-compose',
  requireVariable: 'CORRAL_REQUIRE_COMPOSE',
};

export const haproxy: Tool = {
  command: 'haproxy',
  purpose: 'to check deploy/haproxy.cfg',
  install: 'apt-get install haproxy',
  requireVariable: 'CORRAL_REQUIRE_HAPROXY',
};

/** Prometheus's configuration checker, in Debian's prometheus package (which CI installs for e2e/operations-prometheus.test.ts). */
export const promtool: Tool = {
  command: 'promtool',
  purpose: 'to check deploy/prometheus.yml',
  install: 'apt-get install prometheus',
};

/**
 * Why a test that runs `tool` cannot run here, or false when it can: the value of node:test's
 * `skip` option. Throws instead of skipping when the tool's require variable is `1`.
 */
export function skipUnlessTool(tool: Tool, env: NodeJS.ProcessEnv = process.env): string | false {
  if (findExecutable(tool.command, env.PATH ?? '')) return false;
  const reason = `${tool.command} is not installed: no ${tool.command} on PATH (${tool.install}, ${tool.purpose})`;
  if (tool.requireVariable !== undefined && env[tool.requireVariable] === '1') throw new Error(`${tool.requireVariable}=1, but ${reason}`);
  return reason;
}
