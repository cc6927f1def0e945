/**
 * Where the node agent's serving certificate comes from, as the kubelet decides it:
 *
 * - `tlsCertFile` and `tlsPrivateKeyFile`: those files, re-read when they change (upstream's
 *   dynamic serving content, on by default since ReloadKubeletServerCertificateFile went beta in
 *   1.31), so that an operator can rotate them without restarting the agent;
 * - neither set and no serverTLSBootstrap: a self-signed pair in the cert dir, `kubelet.crt` and
 *   `kubelet.key`, made once and reused on every start while both files can be read (InitializeTLS);
 * - serverTLSBootstrap: a certificate obtained from the cluster and rotated at run time, handed in
 *   by its manager through the same interface.
 *
 * The server listens to `onChange` and swaps its secure context, so a new certificate serves the
 * next handshake without dropping any connection.
 */
import { access, constants, mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { realClock, type Clock } from '../../shared/client/clock.ts';
import { x509KeyPairError } from '../../shared/go/tls.ts';
import { createCA, issueServingCertificate, splitSubjectAltNames, type CertificateAndKey } from '../../shared/pki/certificates.ts';

export interface ServingCertificateSource {
  /** The pair to serve with, or null while there is none yet (handshakes fail until one arrives). */
  current(): CertificateAndKey | null;
  /** Calls `listener` after every change of the pair; the returned function stops the calls. */
  onChange(listener: () => void): () => void;
  /** Stops whatever the source runs (file polling); a no-op for sources that run nothing. */
  stop(): void;
}

/** Upstream checks the files about once a minute (besides watching them). */
export const defaultCertificateReloadIntervalMs = 60_000;

export interface FileServingCertificateOptions {
  clock?: Clock;
  reloadIntervalMs?: number;
  logger?: Logger;
}

/** A pair of PEM files, re-read on an interval; a change that does not load is logged and the last good pair kept. */
export class FileServingCertificate implements ServingCertificateSource {
  private pair: CertificateAndKey;
  private readonly listeners = new Set<() => void>();
  private cancelTimer: (() => void) | undefined;
  private stopped = false;
  /** The reload the timer started last. */
  private reloading: Promise<void> = Promise.resolve();

  private constructor(
    readonly certFile: string,
    readonly keyFile: string,
    pair: CertificateAndKey,
    private readonly options: FileServingCertificateOptions,
  ) {
    this.pair = pair;
  }

  /** Loads the files (throwing when they do not form a pair) and starts watching them. */
  static async load(certFile: string, keyFile: string, options: FileServingCertificateOptions = {}): Promise<FileServingCertificate> {
    const source = new FileServingCertificate(certFile, keyFile, await readPair(certFile, keyFile), options);
    source.schedule();
    return source;
  }

  current(): CertificateAndKey {
    return this.pair;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Re-reads the files now; true when the pair changed. Throws when they no longer form a pair. */
  async reload(): Promise<boolean> {
    const pair = await readPair(this.certFile, this.keyFile);
    if (pair.certPem === this.pair.certPem && pair.keyPem === this.pair.keyPem) return false;
    this.pair = pair;
    for (const listener of this.listeners) listener();
    return true;
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
  }

  /** Resolves once the reload the timer started last has finished (tests step the clock, then wait). */
  idle(): Promise<void> {
    return this.reloading;
  }

  private schedule(): void {
    if (this.stopped) return;
    const clock = this.options.clock ?? realClock;
    this.cancelTimer = clock.after(this.options.reloadIntervalMs ?? defaultCertificateReloadIntervalMs, () => {
      this.reloading = this.reload()
        .then((changed) => {
          if (changed) this.options.logger?.info({ certFile: this.certFile }, 'Loaded a new serving certificate');
        })
        .catch((err: unknown) =>
          this.options.logger?.error({ err, certFile: this.certFile }, 'Failed to reload the serving certificate; keeping the previous one'),
        )
        .then(() => this.schedule());
    });
  }
}

/** The certificate and key files, checked as tls.LoadX509KeyPair checks them (Go's error texts). */
async function readPair(certFile: string, keyFile: string): Promise<CertificateAndKey> {
  const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  const error = x509KeyPairError(Buffer.from(certPem), Buffer.from(keyPem));
  if (error !== null) throw new Error(`invalid serving certificate ${certFile} and key ${keyFile}: ${error}`);
  return { certPem, keyPem };
}

/** The kubelet's file names for its self-signed pair, in the cert dir. */
export const selfSignedCertName = 'kubelet.crt';
export const selfSignedKeyName = 'kubelet.key';

export interface SelfSignedOptions {
  certDir: string;
  /** The host the certificate is for: upstream's hostname (override or the machine's, lower case). */
  hostname?: string;
  /** More subjectAltNames: the node name, the node's addresses. */
  alternateNames?: string[];
  now?: Date;
}

/**
 * The self-signed pair in the cert dir: reused when both files can be read, made otherwise
 * (certutil.GenerateSelfSignedCertKey: a CA `<host>-ca@<unix time>` issuing `<host>@<unix time>`,
 * the certificate file holding both, one year). One file without the other is an error, as
 * certutil.CanReadCertAndKey makes it: the two must be supplied as a pair.
 */
export async function ensureSelfSignedCertificate(options: SelfSignedOptions): Promise<{ certFile: string; keyFile: string; created: boolean }> {
  const certFile = join(options.certDir, selfSignedCertName);
  const keyFile = join(options.certDir, selfSignedKeyName);
  const [certReadable, keyReadable] = await Promise.all([readable(certFile), readable(keyFile)]);
  if (certReadable && keyReadable) return { certFile, keyFile, created: false };
  if (certReadable || keyReadable) {
    throw new Error(`error reading ${certReadable ? keyFile : certFile}, certificate and key must be supplied as a pair`);
  }
  const host = options.hostname ?? osHostname().toLowerCase();
  const now = options.now ?? new Date();
  const stamp = Math.floor(now.getTime() / 1000);
  const validityMs = 365 * 24 * 60 * 60 * 1000;
  const ca = await createCA({ commonName: `${host}-ca@${stamp}`, now, validityMs });
  const names = splitSubjectAltNames([...new Set([host, ...(options.alternateNames ?? [])].filter((name) => name !== ''))]);
  const leaf = await issueServingCertificate(ca, { commonName: `${host}@${stamp}`, ...names, now, validityMs });
  await mkdir(options.certDir, { recursive: true, mode: 0o755 });
  await writeFile(certFile, `${leaf.certPem.trimEnd()}\n${ca.certPem.trimEnd()}\n`, { mode: 0o644 });
  await writeFile(keyFile, leaf.keyPem, { mode: 0o600 });
  return { certFile, keyFile, created: true };
}

async function readable(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
