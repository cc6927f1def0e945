/**
 * The controller manager process: flags → config → start. SIGTERM or SIGINT stops the
 * controllers, releases the leader lease and exits 0; a second signal exits at once with 1.
 *
 * Run as a program (`node dist/controllers/main.js`, or `node --import tsx controllers/main.ts`
 * from source) it reads process.argv; `corral controllers` (cli.ts) imports it and calls
 * runControllerManager instead.
 */
import { flagsOrUsage, parseList, type ParsedFlags } from '../shared/process/flags.ts';
import { keepRunningOnStrayErrors } from '../shared/process/stray-errors.ts';
import { isProgram, runCommand, stopOnSignals } from '../shared/process/program.ts';
import { createLogger } from '../apiserver/server/logging.ts';
import { configFromFlags, flags, type ControllerManagerConfig } from './config.ts';
import { startControllerManager } from './manager.ts';
import { unknownControllers } from './registry.ts';

/**
 * The configuration for parsed flags, with the --controllers names checked against the registry;
 * throws one Error listing every problem.
 */
export function controllerManagerConfig(values: ParsedFlags): ControllerManagerConfig {
  let config: ControllerManagerConfig | undefined;
  const problems: string[] = [];
  try {
    config = configFromFlags(values);
  } catch (err) {
    problems.push(err instanceof Error ? err.message : String(err));
  }
  const unknown = unknownControllers(parseList(typeof values['controllers'] === 'string' ? values['controllers'] : ''));
  if (unknown.length) problems.push(`validation failed for '--controllers': [${unknown.join(', ')}]`);
  if (problems.length || !config) throw new Error(problems.join('\n'));
  return config;
}

async function main(argv: string[], command: string): Promise<void> {
  const values = flagsOrUsage(argv, command, flags);
  if (!values) return;
  const config = controllerManagerConfig(values);
  const logger = createLogger(config.logLevel, 'controller-manager');
  keepRunningOnStrayErrors(logger);
  const manager = await startControllerManager(config, logger);
  stopOnSignals(
    () => manager.stop(),
    (err) => logger.error({ err }, 'shutdown failed'),
  );
}

/** Starts the controller manager for `argv` and keeps the process running until a signal stops it. */
export function runControllerManager(argv: string[], command: string): void {
  runCommand(() => main(argv, command));
}

if (isProgram(import.meta.url)) runControllerManager(process.argv.slice(2), 'npm run controllers --');
