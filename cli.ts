#!/usr/bin/env node
/**
 * `corral`: the one command users run, with one subcommand per process (package.json `bin`, built
 * to dist/cli.js). Each subcommand runs in this same node process, so that a supervisor (systemd, a
 * container runtime) signals the process that does the work:
 *
 *   corral start [flags]       the single-node control plane of `npm start` (start.ts)
 *   corral apiserver [flags]   one API server replica on an existing etcd (apiserver/main.ts)
 *   corral controllers [flags] the controller manager (controllers/main.ts)
 *   corral nodeagent [flags]   a node agent, corral's kubelet (nodeagent/main.ts)
 *   corral migrate [flags]     copies a store's keys between the embedded store and etcd (apiserver/storage/migrate/main.ts)
 *   corral pki [flags]         writes the PKI, kubeconfigs and token file a cluster of processes shares (cluster/pki-main.ts)
 *
 * `corral --help` (or `-h`, `help`) lists the subcommands and exits 0; `corral <subcommand> --help`
 * lists its flags. No subcommand, or an unknown one, prints the list to stderr and exits 2, as a
 * bad flag does.
 */
import { runApiServer } from './apiserver/main.ts';
import { runStart } from './start.ts';
import { runControllerManager } from './controllers/main.ts';
import { runMigrate } from './apiserver/storage/migrate/main.ts';
import { runNodeAgent } from './nodeagent/main.ts';
import { runPki } from './cluster/pki-main.ts';

interface Subcommand {
  summary: string;
  /** Runs the subcommand with its flags; `command` names it in usage messages. */
  run(argv: string[], command: string): void;
}

const subcommands: Record<string, Subcommand> = {
  start: { summary: 'a single-node control plane: an API server on the embedded store and the controller manager', run: runStart },
  apiserver: { summary: 'one API server replica on an existing etcd (--etcd-servers)', run: runApiServer },
  controllers: { summary: 'the controller manager: certificates, tokens, garbage collection, namespaces, node health', run: runControllerManager },
  nodeagent: { summary: "a node agent (corral's kubelet): TLS bootstrap, the Node, its status and lease, static pods", run: runNodeAgent },
  migrate: { summary: "copies a data dir's embedded store into an etcd, or an etcd into a data dir", run: runMigrate },
  pki: { summary: 'writes the PKI, kubeconfigs and bootstrap token file that the processes of a cluster share (--dir)', run: runPki },
};

function usage(): string {
  const width = Math.max(...Object.keys(subcommands).map((name) => name.length)) + 2;
  const lines = Object.entries(subcommands).map(([name, sub]) => `  ${name.padEnd(width)}${sub.summary}`);
  return `Usage: corral <command> [flags]\n\nCommands:\n${lines.join('\n')}\n\nRun 'corral <command> --help' for the flags of a command.\n`;
}

const [name, ...argv] = process.argv.slice(2);
if (name === '--help' || name === '-h' || name === 'help') {
  process.stdout.write(usage());
} else if (name === undefined) {
  process.stderr.write(`Error: no command given\n\n${usage()}`);
  process.exit(2);
} else {
  const sub = Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
  if (sub === undefined) {
    process.stderr.write(`Error: unknown command ${JSON.stringify(name)} for "corral"\n\n${usage()}`);
    process.exit(2);
  }
  sub.run(argv, `corral ${name}`);
}
