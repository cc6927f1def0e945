/**
 * Whether etcd can run on this machine: the one place the test suites that need etcd itself (etcd
 * faults, replicas on etcd, the etcd half of the storage conformance suite, the etcd store's own
 * tests) ask. Everything else runs on the embedded store, so that `npm test` passes on a machine
 * with Node.js alone; those suites then skip and say why.
 *
 * - `CORRAL_REQUIRE_ETCD=1` turns the skip into a failure (`.ci/run` sets it after installing
 *   etcd), so that CI can never pass with the etcd suites skipped.
 * - `CORRAL_ETCD_BINARY` names the etcd to run instead of `etcd` on PATH: a path, or a name looked
 *   up on PATH. startEtcd runs the same binary, so what is checked here is what runs.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const requireEtcdVariable = 'CORRAL_REQUIRE_ETCD';
export const etcdBinaryVariable = 'CORRAL_ETCD_BINARY';

/** The etcd binary to run: `CORRAL_ETCD_BINARY`, else `etcd` (looked up on PATH). */
export function etcdBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env[etcdBinaryVariable] || 'etcd';
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The file `command` runs, as a shell finds it: itself when it has a slash, else the first executable on `path`. */
export function findExecutable(command: string, path = process.env.PATH ?? ''): string | undefined {
  if (command.includes('/')) return isExecutableFile(command) ? command : undefined;
  for (const dir of path.split(delimiter)) {
    const file = join(dir || '.', command);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

/**
 * Why a suite that needs etcd cannot run here, or false when it can: the value of node:test's
 * `skip` option (`describe('…', { skip: skipUnlessEtcd() }, …)`). Throws instead of skipping when
 * `CORRAL_REQUIRE_ETCD=1`, which fails the test file with the reason.
 */
export function skipUnlessEtcd(env: NodeJS.ProcessEnv = process.env): string | false {
  const binary = etcdBinary(env);
  if (findExecutable(binary, env.PATH ?? '')) return false;
  const where = binary.includes('/') ? `${binary} is not an executable file` : `no ${binary} on PATH`;
  const reason = `etcd is not installed: ${where} (install etcd ≥ 3.4, e.g. apt-get install etcd-server, or set ${etcdBinaryVariable}, to run this suite)`;
  if (env[requireEtcdVariable] === '1') throw new Error(`${requireEtcdVariable}=1, but ${reason}`);
  return reason;
}
