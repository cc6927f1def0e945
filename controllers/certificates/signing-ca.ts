/**
 * One signer's CA, read from its --cluster-signing-*-cert-file and -key-file and read again when
 * either file changes (upstream reloads its signing CA dynamically too), so a CA rotated on disk
 * signs the next request without a restart. A change is noticed at most RECHECK_MS after it.
 *
 * A CA that cannot be loaded is an error of the sign attempt (retried with back-off), so fixing
 * the files resumes signing. A rotation to files that do not load keeps the previous CA, with a
 * warning, rather than stopping to sign.
 */
import { readFile, stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { loadCA, type CertificateAuthority } from '../../shared/pki/certificates.ts';
import type { SigningFiles } from '../config.ts';
import type { Clock } from '../../shared/client/clock.ts';

/** How long a loaded CA is used before the files are looked at again. */
export const RECHECK_MS = 1000;

const describe = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class SigningCA {
  private loaded: { ca: CertificateAuthority; stamp: string } | undefined;
  private checkedAt = 0;
  /** The refresh under way: concurrent sign attempts share one read of the files. */
  private refreshing: Promise<CertificateAuthority> | undefined;
  /** The stamp of files that failed to load, so one broken rotation is reported once. */
  private reportedStamp = '';

  constructor(
    readonly signerName: string,
    readonly files: SigningFiles,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The CA to sign with now; throws an Error saying which files could not be loaded and why. */
  current(): Promise<CertificateAuthority> {
    if (this.loaded && this.clock.now() - this.checkedAt < RECHECK_MS) return Promise.resolve(this.loaded.ca);
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refresh(): Promise<CertificateAuthority> {
    this.checkedAt = this.clock.now();
    let stamp: string;
    try {
      stamp = await this.stamp();
    } catch (err) {
      return this.keepOrThrow('', err);
    }
    if (this.loaded?.stamp === stamp) return this.loaded.ca;
    let ca: CertificateAuthority;
    try {
      const [certPem, keyPem] = await Promise.all([readFile(this.files.certFile, 'utf8'), readFile(this.files.keyFile, 'utf8')]);
      ca = await loadCA(certPem, keyPem);
    } catch (err) {
      return this.keepOrThrow(stamp, err);
    }
    const reloaded = this.loaded !== undefined;
    this.loaded = { ca, stamp };
    this.logger.info(
      { signerName: this.signerName, certFile: this.files.certFile, subject: ca.cert.subject, notAfter: ca.cert.notAfter.toISOString() },
      reloaded ? 'reloaded the signing CA' : 'loaded the signing CA',
    );
    return ca;
  }

  /** Files changed size, time or identity: compared to decide whether to read them again. */
  private async stamp(): Promise<string> {
    const [cert, key] = await Promise.all([stat(this.files.certFile), stat(this.files.keyFile)]);
    return [cert.ino, cert.size, cert.mtimeMs, key.ino, key.size, key.mtimeMs].join(':');
  }

  private keepOrThrow(stamp: string, err: unknown): CertificateAuthority {
    const message = `unable to load the CA of signer ${this.signerName} from ${this.files.certFile} and ${this.files.keyFile}: ${describe(err)}`;
    if (!this.loaded) throw new Error(message);
    if (stamp !== this.reportedStamp) {
      this.reportedStamp = stamp;
      this.logger.warn({ signerName: this.signerName }, `${message}; still signing with the CA loaded before`);
    }
    return this.loaded.ca;
  }
}
