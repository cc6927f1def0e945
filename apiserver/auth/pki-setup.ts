/**
 * First-start PKI of the API server: under `<dataDir>/pki/` a cluster CA, the serving certificate and
 * the admin client certificate, created once and reused on every later start.
 *
 * Several API server processes may start at once on one data directory, so generation is serialized by
 * a lock file created with O_EXCL. The holder writes every file to a temporary name and renames it into
 * place, then writes the `.ready` marker last; the others poll until the marker is there (or the lock
 * is free) and read the same files. A lock whose holder died (not refreshed for `staleLockMs` and no
 * marker written) is broken by one waiter and generation starts over.
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync, unlinkSync } from 'node:fs';
import { mkdir, open, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  certifyClientKey,
  certifyServingKey,
  createCA,
  exportPrivateKeyPem,
  generateKeyPair,
  loadCA,
  publicKeyOfPrivateKeyPem,
  splitSubjectAltNames,
  subjectAltNames,
  type CertificateAuthority,
  type SubjectAltNames,
} from '../../shared/pki/certificates.ts';
import { renderKubeconfig } from '../../shared/pki/kubeconfig.ts';

export const ADMIN_USER = 'kubernetes-admin';
export const ADMIN_GROUP = 'system:masters';
/** The controller manager's own identity, which the bootstrap RBAC policy binds (never system:masters). */
export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';

/** Names under which pods reach the API server through the `kubernetes` service. */
export const IN_CLUSTER_DNS_NAMES = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];

/** A leaf certificate closer than this to its expiry is re-issued at start. */
const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;
const POLL_INTERVAL_MS = 50;

export interface PkiPaths {
  dir: string;
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  controllerManagerCert: string;
  controllerManagerKey: string;
}

export interface EnsurePkiOptions {
  /** Extra subjectAltNames of the serving certificate; entries that parse as IPs become IP SANs. */
  tlsSans: string[];
  /** Defaults to the machine's host name. */
  hostname?: string;
  /** How long to wait for another process's generation before failing. Default 30 s. */
  lockTimeoutMs?: number;
  /** A lock not refreshed for this long, without the marker, belongs to a dead process. Default 30 s. */
  staleLockMs?: number;
}

export function pkiPaths(dataDir: string): PkiPaths {
  const dir = join(dataDir, 'pki');
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
    adminCert: join(dir, 'admin.crt'),
    adminKey: join(dir, 'admin.key'),
    controllerManagerCert: join(dir, 'controller-manager.crt'),
    controllerManagerKey: join(dir, 'controller-manager.key'),
  };
}

/** Creates or resumes the PKI under `<dataDir>/pki/`; see the module comment for the concurrency contract. */
export async function ensurePki(dataDir: string, opts: EnsurePkiOptions): Promise<PkiPaths> {
  const paths = pkiPaths(dataDir);
  const lockTimeoutMs = opts.lockTimeoutMs ?? 30_000;
  const staleLockMs = opts.staleLockMs ?? 30_000;
  const wanted = servingNames(opts);
  const lockPath = join(paths.dir, '.lock');
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });

  const deadline = Date.now() + lockTimeoutMs;
  for (;;) {
    if (await isReady(paths, wanted)) return paths;
    const lock = await tryLock(lockPath, staleLockMs);
    if (lock) {
      try {
        await generate(paths, wanted);
      } finally {
        await lock.release();
      }
      return paths;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${lockTimeoutMs}ms waiting for another process to create the PKI in ${paths.dir} (lock ${lockPath})`);
    }
    await sleep(POLL_INTERVAL_MS);
  }
}

/** Writes `<dataDir>/admin.kubeconfig` (atomically, mode 0600) for the admin certificate; returns its path. */
export function writeAdminKubeconfig(dataDir: string, server: string, paths: PkiPaths): string {
  return writeClientKubeconfig(join(dataDir, 'admin.kubeconfig'), server, paths, paths.adminCert, paths.adminKey, 'admin');
}

/**
 * Writes `<dataDir>/controller-manager.kubeconfig` (atomically, mode 0600): the controller manager
 * of `npm start`, or one started by hand on this data dir, acts as system:kube-controller-manager.
 */
export function writeControllerManagerKubeconfig(dataDir: string, server: string, paths: PkiPaths): string {
  return writeClientKubeconfig(
    join(dataDir, 'controller-manager.kubeconfig'),
    server,
    paths,
    paths.controllerManagerCert,
    paths.controllerManagerKey,
    CONTROLLER_MANAGER_USER,
  );
}

function writeClientKubeconfig(target: string, server: string, paths: PkiPaths, certPath: string, keyPath: string, userName: string): string {
  const content = renderKubeconfig({
    server,
    caPem: readFileSync(paths.caCert, 'utf8'),
    clientCertPem: readFileSync(certPath, 'utf8'),
    clientKeyPem: readFileSync(keyPath, 'utf8'),
    userName,
  });
  const tmp = temporaryName(target);
  try {
    writeFileSync(tmp, content, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, target);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already renamed or never written */
    }
    throw err;
  }
  return target;
}

/** The serving certificate's required names: loopback, the host, in-cluster names and the given SANs. */
function servingNames(opts: EnsurePkiOptions): SubjectAltNames {
  const extra = splitSubjectAltNames(opts.tlsSans);
  return {
    dnsNames: unique(['localhost', opts.hostname ?? osHostname(), ...IN_CLUSTER_DNS_NAMES, ...extra.dnsNames]),
    ipAddresses: unique(['127.0.0.1', '::1', ...extra.ipAddresses]),
  };
}

function readyMarker(paths: PkiPaths): string {
  return join(paths.dir, '.ready');
}

/** True when generation finished, no leaf needs renewal, and the serving certificate carries every wanted name. */
async function isReady(paths: PkiPaths, wanted: SubjectAltNames): Promise<boolean> {
  try {
    await stat(readyMarker(paths));
    await stat(paths.caCert);
    await stat(paths.caKey);
    await stat(paths.servingKey);
    await stat(paths.adminKey);
    await stat(paths.controllerManagerKey);
    const servingPem = await readFile(paths.servingCert, 'utf8');
    const clientPems = await Promise.all([readFile(paths.adminCert, 'utf8'), readFile(paths.controllerManagerCert, 'utf8')]);
    return missingNames(subjectAltNames(servingPem), wanted) === null && !expiresSoon(servingPem) && !clientPems.some(expiresSoon);
  } catch {
    return false;
  }
}

/** Runs with the lock held: creates what is missing, re-issues what is invalid, then writes the marker. */
async function generate(paths: PkiPaths, wanted: SubjectAltNames): Promise<void> {
  const marker = readyMarker(paths);
  const hadMarker = await exists(marker);
  const ca = await loadOrCreateCA(paths, hadMarker);
  await ensureServingCertificate(paths, ca, wanted);
  await ensureClientCertificate(paths.adminCert, paths.adminKey, ca, ADMIN_USER, [ADMIN_GROUP]);
  // Data dirs made before the controller manager existed get its certificate on their next start.
  await ensureClientCertificate(paths.controllerManagerCert, paths.controllerManagerKey, ca, CONTROLLER_MANAGER_USER, []);
  await writeFileAtomic(marker, `${new Date().toISOString()}\n`, 0o644);
}

async function loadOrCreateCA(paths: PkiPaths, hadMarker: boolean): Promise<CertificateAuthority> {
  const certPem = await readIfExists(paths.caCert);
  const keyPem = await readIfExists(paths.caKey);
  if (certPem !== null && keyPem !== null) return loadCA(certPem, keyPem);
  if (hadMarker || (certPem !== null && keyPem === null)) {
    // Never replace a CA that clients may already trust; a lone CA certificate is an operator's.
    const missing = certPem === null ? paths.caCert : paths.caKey;
    throw new Error(`PKI in ${paths.dir} is incomplete: ${missing} is missing`);
  }
  // No CA, or a key left behind by a generator that died before writing the certificate.
  const ca = await createCA();
  await writeFileAtomic(paths.caKey, ca.keyPem, 0o600);
  await writeFileAtomic(paths.caCert, ca.certPem, 0o644);
  return ca;
}

async function ensureServingCertificate(paths: PkiPaths, ca: CertificateAuthority, wanted: SubjectAltNames): Promise<void> {
  await ensureLeaf(
    paths.servingCert,
    paths.servingKey,
    ca,
    (certPem) => missingNames(subjectAltNames(certPem), wanted) === null,
    (publicKey, oldCertPem) => {
      // Re-issuing keeps the names of the previous certificate: replicas started with other SANs still match.
      const old = oldCertPem !== null ? subjectAltNames(oldCertPem) : { dnsNames: [], ipAddresses: [] };
      return certifyServingKey(ca, publicKey, {
        dnsNames: unique([...old.dnsNames, ...wanted.dnsNames]),
        ipAddresses: unique([...old.ipAddresses, ...wanted.ipAddresses]),
      });
    },
  );
}

async function ensureClientCertificate(certPath: string, keyPath: string, ca: CertificateAuthority, user: string, groups: string[]): Promise<void> {
  await ensureLeaf(
    certPath,
    keyPath,
    ca,
    () => true,
    (publicKey) => certifyClientKey(ca, publicKey, { commonName: user, organizations: groups }),
  );
}

/**
 * Keeps a valid key and only replaces the certificate, so that a reader never pairs a new certificate
 * with an old key; a key is generated only when none parses. The certificate is re-issued when it was
 * not signed by this CA for this key, expires soon, or fails `isCurrent`. `certify` gets the previous
 * certificate when it came from this CA.
 */
async function ensureLeaf(
  certPath: string,
  keyPath: string,
  ca: CertificateAuthority,
  isCurrent: (certPem: string) => boolean,
  certify: (publicKey: Uint8Array, previousCertPem: string | null) => Promise<string>,
): Promise<void> {
  let keyPem = await readIfExists(keyPath);
  let publicKey = keyPem !== null ? tryPublicKey(keyPem) : null;
  if (publicKey === null) {
    const keys = await generateKeyPair();
    keyPem = await exportPrivateKeyPem(keys.privateKey);
    publicKey = publicKeyOfPrivateKeyPem(keyPem);
    await writeFileAtomic(keyPath, keyPem, 0o600);
  }
  const certPem = await readIfExists(certPath);
  const previous = certPem !== null && isIssuedBy(certPem, ca) ? certPem : null;
  if (previous !== null && certifiesKey(previous, publicKey) && !expiresSoon(previous) && isCurrent(previous)) return;
  await writeFileAtomic(certPath, await certify(publicKey, previous), 0o644);
}

function tryPublicKey(keyPem: string): Buffer | null {
  try {
    return publicKeyOfPrivateKeyPem(keyPem);
  } catch {
    return null;
  }
}

/** The certificate parses and carries a valid signature of this CA. */
function isIssuedBy(certPem: string, ca: CertificateAuthority): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const caCert = new X509Certificate(ca.certPem);
    return cert.checkIssued(caCert) && cert.verify(caCert.publicKey);
  } catch {
    return false;
  }
}

function certifiesKey(certPem: string, publicKey: Uint8Array): boolean {
  return new X509Certificate(certPem).publicKey.export({ format: 'der', type: 'spki' }).equals(publicKey);
}

function expiresSoon(certPem: string): boolean {
  return new Date(new X509Certificate(certPem).validTo).getTime() - Date.now() < RENEW_BEFORE_MS;
}

/** The wanted names the certificate lacks, or null when it has them all. */
function missingNames(have: SubjectAltNames, wanted: SubjectAltNames): string[] | null {
  const dns = new Set(have.dnsNames.map((n) => n.toLowerCase()));
  const ips = new Set(have.ipAddresses);
  const missing = [...wanted.dnsNames.filter((n) => !dns.has(n.toLowerCase())), ...wanted.ipAddresses.filter((ip) => !ips.has(ip))];
  return missing.length ? missing : null;
}

interface HeldLock {
  release(): Promise<void>;
}

/**
 * Creates the lock file with O_EXCL. While held, its mtime is refreshed so that a slow generation is
 * not mistaken for a dead one. When the lock is taken, breaks it if stale and returns null.
 */
async function tryLock(lockPath: string, staleLockMs: number): Promise<HeldLock | null> {
  try {
    const handle = await open(lockPath, 'wx', 0o600);
    try {
      await handle.writeFile(`${process.pid}@${osHostname()}\n`);
    } finally {
      await handle.close();
    }
  } catch (err) {
    if (errorCode(err) !== 'EEXIST') throw err;
    await breakStaleLock(lockPath, staleLockMs);
    return null;
  }
  const heartbeat = setInterval(
    () => {
      const now = new Date();
      utimes(lockPath, now, now).catch(() => undefined);
    },
    Math.max(10, Math.floor(staleLockMs / 3)),
  );
  heartbeat.unref();
  return {
    async release() {
      clearInterval(heartbeat);
      await unlink(lockPath).catch(() => undefined);
    },
  };
}

/**
 * Removes the lock if it has not been refreshed for `staleLockMs`. Waiters serialize the removal through
 * a second O_EXCL file, and the remover checks it still sees the same stale file, so a fresh lock taken
 * meanwhile by another process is not removed.
 */
async function breakStaleLock(lockPath: string, staleLockMs: number): Promise<void> {
  const seen = await statIfExists(lockPath);
  if (!seen || Date.now() - seen.mtimeMs < staleLockMs) return;
  const breakerPath = `${lockPath}.break`;
  try {
    await (await open(breakerPath, 'wx', 0o600)).close();
  } catch (err) {
    if (errorCode(err) !== 'EEXIST') throw err;
    // A breaker that died while holding this file leaves it behind; clear it after the same delay.
    const breaker = await statIfExists(breakerPath);
    if (breaker && Date.now() - breaker.mtimeMs >= staleLockMs) await unlink(breakerPath).catch(() => undefined);
    return;
  }
  try {
    const current = await statIfExists(lockPath);
    if (current && current.ino === seen.ino && current.mtimeMs === seen.mtimeMs) await unlink(lockPath).catch(() => undefined);
  } finally {
    await unlink(breakerPath).catch(() => undefined);
  }
}

/** Writes to a temporary file in the same directory, flushes it, and renames it over `path`. */
export async function writeFileAtomic(path: string, content: string, mode: number): Promise<void> {
  const tmp = temporaryName(path);
  try {
    const handle = await open(tmp, 'wx', mode);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

function temporaryName(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
}

async function statIfExists(path: string): Promise<{ ino: number; mtimeMs: number } | null> {
  try {
    return await stat(path);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
}

async function exists(path: string): Promise<boolean> {
  return (await statIfExists(path)) !== null;
}

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
