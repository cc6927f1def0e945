/**
 * The files a cluster of separate processes shares, in one directory `DIR` that every process
 * mounts or reads (`corral pki`, the process topology of `npm run cluster`, docker-compose.yml):
 *
 *   DIR/pki/*                                the cluster CA, the API servers' serving certificate and the
 *                                            client certificates, as ensurePki makes them; API servers
 *                                            given `--data-dir DIR` use these and never make others
 *   DIR/kubeconfigs/admin.kubeconfig         system:masters, server = the load balancer
 *   DIR/kubeconfigs/controller-manager.kubeconfig  system:kube-controller-manager, same server
 *   DIR/kubeconfigs/bootstrap.kubeconfig     the bootstrap token, for node agents' TLS bootstrap
 *   DIR/bootstrap-token                      that token, `<6 [a-z0-9]>.<16 [a-z0-9]>`, kept so reruns reuse it
 *   DIR/monitoring-token                     a bearer token of user `prometheus` in `system:monitoring`
 *   DIR/tokens.csv                           both tokens as static tokens (`--token-auth-file`)
 *
 * The kubeconfigs live in DIR/kubeconfigs/ rather than DIR itself because an API server writes
 * `<data-dir>/admin.kubeconfig` naming its own address at every start; the cluster's must name the
 * load balancer and survive that.
 *
 * The bootstrap token is upstream's classic TLS-bootstrap token file entry: user `kubelet-bootstrap`
 * in group `system:bootstrappers`. Nothing has to be created through the API before the first node
 * joins: the node-join bindings (system:bootstrappers may create CSRs and have `nodeclient` requests
 * auto-approved) exist when the API servers run with `--enable-bootstrap-token-auth`.
 *
 * The monitoring token lets Prometheus scrape every component with one credential: the API servers
 * authenticate it from tokens.csv, the controller managers by a TokenReview at the API servers, and
 * the default policy lets `system:monitoring` read `/metrics` on both.
 *
 * Idempotent: a second run keeps the CA, keys, certificates (adding missing SANs) and the token, and
 * rewrites the kubeconfigs for the server given. Every file is written to a temporary name and
 * renamed into place, so a process reading them never sees half a file.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePki, writeAdminKubeconfig, writeControllerManagerKubeconfig, writeFileAtomic, type PkiPaths } from '../apiserver/auth/pki-setup.ts';
import { renderKubeconfig } from '../shared/pki/kubeconfig.ts';

/** The static token file's identity of the bootstrap token (upstream's TLS bootstrapping docs). */
export const BOOTSTRAP_USER = 'kubelet-bootstrap';
export const BOOTSTRAP_UID = 'kubelet-bootstrap';
export const BOOTSTRAP_GROUP = 'system:bootstrappers';
/** The static token file's identity of the monitoring token. */
export const MONITORING_USER = 'prometheus';
export const MONITORING_GROUP = 'system:monitoring';

/** A bootstrap token as kubeadm writes them: `<token-id>.<token-secret>`. */
const TOKEN_PATTERN = /^[a-z0-9]{6}\.[a-z0-9]{16}$/;
const TOKEN_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const MONITORING_TOKEN_PATTERN = /^[0-9a-f]{32}$/;

export interface ClusterFilesOptions {
  /** The shared directory. */
  dir: string;
  /** The URL every kubeconfig names: the load balancer in front of the API servers. */
  server: string;
  /** Extra names and addresses of the serving certificate (the load balancer's); IPs become IP SANs. */
  sans: string[];
  /** Use this token (`[a-z0-9]{6}.[a-z0-9]{16}`) instead of the kept or a generated one. */
  bootstrapToken?: string;
}

export interface ClusterFiles {
  dir: string;
  pki: PkiPaths;
  adminKubeconfig: string;
  controllerManagerKubeconfig: string;
  bootstrapKubeconfig: string;
  /** The static token file for the API servers' --token-auth-file. */
  tokenFile: string;
  /** The bootstrap token itself. */
  bootstrapToken: string;
  /** The file holding Prometheus' bearer token (for `credentials_file`). */
  monitoringTokenFile: string;
}

/** The paths of a cluster's files under `dir`, without creating anything. */
export function clusterFilePaths(dir: string): Omit<ClusterFiles, 'pki' | 'bootstrapToken'> & { kubeconfigDir: string; bootstrapTokenFile: string } {
  const kubeconfigDir = join(dir, 'kubeconfigs');
  return {
    dir,
    kubeconfigDir,
    adminKubeconfig: join(kubeconfigDir, 'admin.kubeconfig'),
    controllerManagerKubeconfig: join(kubeconfigDir, 'controller-manager.kubeconfig'),
    bootstrapKubeconfig: join(kubeconfigDir, 'bootstrap.kubeconfig'),
    tokenFile: join(dir, 'tokens.csv'),
    bootstrapTokenFile: join(dir, 'bootstrap-token'),
    monitoringTokenFile: join(dir, 'monitoring-token'),
  };
}

/** Creates or updates the cluster's files under `opts.dir`; see the module comment. */
export async function writeClusterFiles(opts: ClusterFilesOptions): Promise<ClusterFiles> {
  const server = checkServer(opts.server);
  if (opts.bootstrapToken !== undefined && !TOKEN_PATTERN.test(opts.bootstrapToken)) {
    throw new Error(`bootstrap token ${JSON.stringify(opts.bootstrapToken)} does not match ${TOKEN_PATTERN.source}`);
  }
  const paths = clusterFilePaths(opts.dir);
  await mkdir(paths.kubeconfigDir, { recursive: true, mode: 0o700 });
  const pki = await ensurePki(opts.dir, { tlsSans: opts.sans });

  const token = opts.bootstrapToken ?? (await keptToken(paths.bootstrapTokenFile, TOKEN_PATTERN)) ?? generateBootstrapToken();
  const monitoringToken = (await keptToken(paths.monitoringTokenFile, MONITORING_TOKEN_PATTERN)) ?? randomBytes(16).toString('hex');
  await writeSecretAtomic(paths.bootstrapTokenFile, `${token}\n`);
  await writeSecretAtomic(paths.monitoringTokenFile, `${monitoringToken}\n`);
  await writeSecretAtomic(
    paths.tokenFile,
    [
      `${token},${BOOTSTRAP_USER},${BOOTSTRAP_UID},"${BOOTSTRAP_GROUP}"`,
      `${monitoringToken},${MONITORING_USER},${MONITORING_USER},"${MONITORING_GROUP}"`,
      '',
    ].join('\n'),
  );

  // writeAdminKubeconfig and its sibling write `<their dir>/<name>.kubeconfig`: given the kubeconfig dir, exactly our paths.
  writeAdminKubeconfig(paths.kubeconfigDir, server, pki);
  writeControllerManagerKubeconfig(paths.kubeconfigDir, server, pki);
  const caPem = await readFile(pki.caCert, 'utf8');
  await writeSecretAtomic(paths.bootstrapKubeconfig, renderKubeconfig({ server, caPem, token, userName: BOOTSTRAP_USER }));

  return {
    dir: opts.dir,
    pki,
    adminKubeconfig: paths.adminKubeconfig,
    controllerManagerKubeconfig: paths.controllerManagerKubeconfig,
    bootstrapKubeconfig: paths.bootstrapKubeconfig,
    tokenFile: paths.tokenFile,
    bootstrapToken: token,
    monitoringTokenFile: paths.monitoringTokenFile,
  };
}

/** A new random bootstrap token, `[a-z0-9]{6}.[a-z0-9]{16}`. */
export function generateBootstrapToken(): string {
  const pick = (n: number): string => Array.from({ length: n }, () => TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)]).join('');
  return `${pick(6)}.${pick(16)}`;
}

function checkServer(server: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new Error(`server ${JSON.stringify(server)} is not a URL`);
  }
  if (url.protocol !== 'https:') throw new Error(`server ${JSON.stringify(server)} must be an https URL: the API servers serve TLS only`);
  return server;
}

/** The token a previous run kept, or undefined when there is none (or it is not a token: then a new one replaces it). */
async function keptToken(file: string, pattern: RegExp): Promise<string | undefined> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    return pattern.test(text) ? text : undefined;
  } catch (err) {
    if (typeof err === 'object' && err !== null && 'code' in err && err.code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Secrets all: mode 0600, written to a temporary name, flushed and renamed over `path`. */
function writeSecretAtomic(path: string, content: string): Promise<void> {
  return writeFileAtomic(path, content, 0o600);
}
