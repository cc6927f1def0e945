/**
 * TLS bootstrap (the kubelet's LoadClientCert): an agent that holds only a bootstrap kubeconfig (a
 * bootstrap token, `system:bootstrap:<id>` in `system:bootstrappers`) gets its own client
 * certificate and then runs as the node.
 *
 * 1. When `--kubeconfig` exists and its client certificate has not expired, nothing is done: a
 *    restart reuses what an earlier run obtained.
 * 2. Otherwise a key is taken from the store's current pair, or from `kubelet-client.key.tmp` (kept
 *    until the request succeeds, so a restart mid-bootstrap asks with the same key and finds its own
 *    request by name), or made anew (ECDSA P-256).
 * 3. The agent waits up to a minute for the API server's /healthz, posts a request for
 *    `system:node:<name>` in `system:nodes` to kubernetes.io/kube-apiserver-client-kubelet, and
 *    waits (up to an hour) for the controller manager to approve and sign it.
 * 4. The certificate and key go to `<cert-dir>/kubelet-client-<time>.pem` (current symlink), and
 *    `--kubeconfig` is written naming that file, with the bootstrap kubeconfig's server and CA.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { HttpApiClient, type ApiClient, type ContentType } from '../../shared/client/api-client.ts';
import { sleep, type Clock } from '../../shared/client/clock.ts';
import { renderKubeconfig } from '../../shared/pki/kubeconfig.ts';
import { nodeCertificateSubject } from '../../shared/api/node-identity.ts';
import { digestedName, generatePrivateKeyPem, kubeletClientSigner, makeCertificateRequest, requestCertificate, waitForCertificate } from './request.ts';
import { CertificateStore, parsePair } from './store.ts';

const tmpPrivateKeyFile = 'kubelet-client.key.tmp';

/** The usages of the bootstrap request, as upstream's bootstrap sends them whatever the key type. */
export const bootstrapClientUsages = ['digital signature', 'key encipherment', 'client auth'];

export interface BootstrapOptions {
  kubeconfigPath: string;
  /** Undefined: no bootstrap; the kubeconfig must be usable as it is. */
  bootstrapKubeconfigPath: string | undefined;
  certDir: string;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
  /** Makes the API client for the bootstrap kubeconfig (tests and the simulation share connections). */
  client?: (kubeconfig: KubeConfig) => ApiClient;
  /**
   * The bootstrap client's content type: the kubelet's (upstream sets it on the certificate
   * client too, without its QPS). Default JSON.
   */
  contentType?: ContentType;
}

/** The store of the node's client certificates in `certDir`. */
export function clientCertificateStore(certDir: string): CertificateStore {
  return new CertificateStore(certDir, 'kubelet-client');
}

/** Ensures `--kubeconfig` holds a valid client certificate, bootstrapping one when needed (see the module header). */
export async function loadClientCertificate(options: BootstrapOptions): Promise<void> {
  const { kubeconfigPath, bootstrapKubeconfigPath, logger } = options;
  if (bootstrapKubeconfigPath === undefined) return;
  if (clientConfigStillValid(kubeconfigPath, options.clock.now(), logger)) {
    logger.debug({ path: kubeconfigPath }, 'Kubeconfig exists and is valid, skipping bootstrap');
    return;
  }
  logger.info('Using bootstrap kubeconfig to generate TLS client cert, key and kubeconfig file');
  const bootstrap = loadKubeconfig(bootstrapKubeconfigPath, 'bootstrap kubeconfig');
  // The bootstrap identity's connection is closed once the node has its own.
  const own = options.client
    ? undefined
    : new HttpApiClient(bootstrap, { userAgent: 'corral-nodeagent/bootstrap', ...(options.contentType ? { contentType: options.contentType } : {}) });
  const api = options.client?.(bootstrap) ?? own;
  if (!api) throw new Error('no API client for the bootstrap kubeconfig');
  try {
    await bootstrapWith(api, bootstrap, options);
  } finally {
    own?.close();
  }
}

async function bootstrapWith(api: ApiClient, bootstrap: KubeConfig, options: BootstrapOptions): Promise<void> {
  const { kubeconfigPath, certDir, nodeName, logger } = options;
  const store = clientCertificateStore(certDir);

  const keyPath = join(certDir, tmpPrivateKeyFile);
  let keyPem = store.current()?.keyPem;
  if (!keyPem) {
    logger.info('No valid private key and/or certificate found, reusing existing private key or creating a new one');
    keyPem = loadOrGenerateKey(keyPath);
  }

  await waitForServer(api, options);
  const subject = nodeCertificateSubject(nodeName);
  const requestPem = await makeCertificateRequest(keyPem, subject);
  const { name, uid } = await requestCertificate(api, {
    name: digestedName(keyPem, subject, bootstrapClientUsages),
    requestPem,
    signerName: kubeletClientSigner,
    usages: bootstrapClientUsages,
  });
  logger.info({ csr: name }, 'Waiting for client certificate to be issued');
  const certPem = await waitForCertificate(api, name, uid, { clock: options.clock, signal: options.signal });
  store.update(certPem, keyPem, new Date(options.clock.now()));
  rmSync(keyPath, { force: true });
  writeNodeKubeconfig(bootstrap, kubeconfigPath, store.currentPath);
  logger.info({ kubeconfig: kubeconfigPath, certificate: store.currentPath }, 'client certificate issued; running as the node');
}

/** The kubeconfig at `path`; throws naming what it is when it cannot be read. */
export function loadKubeconfig(path: string, what: string): KubeConfig {
  const kubeconfig = new KubeConfig();
  try {
    kubeconfig.loadFromFile(path);
  } catch (err) {
    throw new Error(`unable to load ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!kubeconfig.getCurrentCluster()) throw new Error(`unable to load ${what}: ${path} has no current context with a cluster`);
  return kubeconfig;
}

/** upstream's isClientConfigStillValid: the file exists and its client certificates are not expired. */
export function clientConfigStillValid(path: string, now: number, logger: Logger): boolean {
  if (!existsSync(path)) return false;
  try {
    const kubeconfig = loadKubeconfig(path, 'existing kubeconfig');
    const user = kubeconfig.getCurrentUser();
    const certText = user?.certData ? Buffer.from(user.certData, 'base64').toString('utf8') : user?.certFile ? readFileSync(user.certFile, 'utf8') : '';
    const keyText = user?.keyData ? Buffer.from(user.keyData, 'base64').toString('utf8') : user?.keyFile ? readFileSync(user.keyFile, 'utf8') : '';
    const pair = parsePair(certText, keyText);
    if (now > pair.notAfter) {
      logger.warn({ path, notAfter: new Date(pair.notAfter).toISOString() }, 'part of the existing bootstrap client certificate is expired');
      return false;
    }
    return true;
  } catch (err) {
    logger.warn({ path, err: err instanceof Error ? err.message : String(err) }, 'unable to read existing bootstrap client config');
    return false;
  }
}

function loadOrGenerateKey(path: string): string {
  if (existsSync(path)) {
    const text = readFileSync(path, 'utf8');
    if (/PRIVATE KEY/.test(text)) return text;
  }
  const keyPem = generatePrivateKeyPem();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, keyPem, { mode: 0o600 });
  return keyPem;
}

/** upstream's waitForServer: /healthz every 2 s for up to a minute; going on regardless, as upstream does. */
async function waitForServer(api: ApiClient, options: BootstrapOptions): Promise<void> {
  const deadline = options.clock.now() + 60_000;
  while (options.clock.now() < deadline && !options.signal.aborted) {
    try {
      await api.get('/healthz');
      return;
    } catch (err) {
      options.logger.info({ err: err instanceof Error ? err.message : String(err) }, 'Failed to connect to apiserver');
    }
    await sleep(options.clock, 2_000, options.signal);
  }
}

/** The node's kubeconfig: the bootstrap kubeconfig's cluster, authenticating with the pair at `pemPath`. */
function writeNodeKubeconfig(bootstrap: KubeConfig, path: string, pemPath: string): void {
  const cluster = bootstrap.getCurrentCluster();
  if (!cluster) throw new Error('the bootstrap kubeconfig has no current cluster');
  const text = renderKubeconfig({
    server: cluster.server,
    ...(cluster.caFile ? { caFile: cluster.caFile } : cluster.caData ? { caPem: Buffer.from(cluster.caData, 'base64').toString('utf8') } : {}),
    clientCertFile: pemPath,
    clientKeyFile: pemPath,
    clusterName: 'default-cluster',
    userName: 'default-auth',
    contextName: 'default-context',
    namespace: 'default',
  });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode: 0o600 });
}
