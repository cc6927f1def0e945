/**
 * `corral pki --dir DIR --server URL [--tls-sans a,b] [--bootstrap-token id.secret]`: writes a
 * cluster's shared files (cluster/pki.ts) once, before its processes start, and prints what each
 * process takes. Safe to run again: it keeps the CA, the keys and the token.
 *
 * Run as a program (`node --import tsx cluster/pki-main.ts`) it reads process.argv; `corral pki`
 * (cli.ts) imports it and calls runPki instead.
 */
import type { FlagTable } from '../shared/process/flags.ts';
import { flagsOrUsage, FlagReader } from '../shared/process/flags.ts';
import { isProgram, runCommand } from '../shared/process/program.ts';
import { writeClusterFiles } from './pki.ts';

export const flags: FlagTable = {
  dir: { type: 'string', help: 'The directory every process of the cluster shares (required).' },
  server: { type: 'string', help: "The API servers' address as clients reach it, an https URL: the load balancer (required)." },
  'tls-sans': { type: 'string', default: '', help: "Comma separated extra DNS names and IPs of the serving certificate: the load balancer's." },
  'bootstrap-token': { type: 'string', help: 'The bootstrap token, <6 [a-z0-9]>.<16 [a-z0-9]>; by default the one kept in DIR/bootstrap-token, or a new one.' },
  help: { type: 'boolean', help: 'Print this help.' },
};

async function main(argv: string[], command: string): Promise<void> {
  const values = flagsOrUsage(argv, command, flags);
  if (!values) return;
  const reader = new FlagReader(values);
  const dir = reader.string('dir');
  const server = reader.string('server');
  reader.require(dir !== undefined, 'required flag "dir" not set');
  reader.require(server !== undefined, 'required flag "server" not set');
  reader.finish();
  if (dir === undefined || server === undefined) return;
  const token = reader.string('bootstrap-token');
  const files = await writeClusterFiles({ dir, server, sans: reader.list('tls-sans'), ...(token !== undefined ? { bootstrapToken: token } : {}) });
  process.stdout.write(
    [
      `cluster files in ${files.dir}:`,
      `  API servers:          --data-dir ${files.dir} --token-auth-file ${files.tokenFile} --enable-bootstrap-token-auth`,
      `  controller managers:  --kubeconfig ${files.controllerManagerKubeconfig} --cluster-signing-cert-file ${files.pki.caCert} --cluster-signing-key-file ${files.pki.caKey}`,
      `  node agents:          --bootstrap-kubeconfig ${files.bootstrapKubeconfig}`,
      `  kubectl:              export KUBECONFIG=${files.adminKubeconfig}`,
      '',
    ].join('\n'),
  );
}

/** Writes the cluster files for `argv`; exits 1 with the problem when it cannot. */
export function runPki(argv: string[], command: string): void {
  runCommand(() => main(argv, command));
}

if (isProgram(import.meta.url)) runPki(process.argv.slice(2), 'node --import tsx cluster/pki-main.ts');
