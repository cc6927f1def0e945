/**
 * Where the agent keeps a certificate and its key, as client-go's certificate FileStore lays them
 * out in the cert dir, so that tools and people used to the kubelet find them:
 * `<prefix>-<YYYY-MM-DD-HH-MM-SS>.pem` holds each certificate issued, followed by its key
 * (mode 0600), and `<prefix>-current.pem` is a symlink to the newest, swapped atomically (a new
 * symlink renamed over the old). Without it, a `<prefix>.crt` and `<prefix>.key` pair is used if
 * present (certificates provisioned by hand).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

export interface StoredPair {
  certPem: string;
  keyPem: string;
  /** The leaf's validity, milliseconds since the epoch. */
  notBefore: number;
  notAfter: number;
}

export class CertificateStore {
  constructor(
    readonly directory: string,
    /** `kubelet-client`, `kubelet-server`. */
    readonly prefix: string,
  ) {}

  /** The path a kubeconfig names for both certificate and key. */
  get currentPath(): string {
    return join(this.directory, `${this.prefix}-current.pem`);
  }

  /** The current pair, or null when there is none or it cannot be read. */
  current(): StoredPair | null {
    for (const [certFile, keyFile] of [
      [this.currentPath, this.currentPath],
      [join(this.directory, `${this.prefix}.crt`), join(this.directory, `${this.prefix}.key`)],
    ] as const) {
      if (!existsSync(certFile) || !existsSync(keyFile)) continue;
      try {
        return parsePair(readFileSync(certFile, 'utf8'), readFileSync(keyFile, 'utf8'));
      } catch {
        continue;
      }
    }
    return null;
  }

  /** Stores a newly issued pair and makes it current. */
  update(certPem: string, keyPem: string, now = new Date()): StoredPair {
    const pair = parsePair(certPem, keyPem);
    mkdirSync(this.directory, { recursive: true, mode: 0o755 });
    const file = join(this.directory, `${this.prefix}-${goTimestamp(now)}.pem`);
    writeFileSync(file, `${certPem.trimEnd()}\n${keyPem.trimEnd()}\n`, { mode: 0o600 });
    const updated = join(this.directory, `${this.prefix}-updated.pem`);
    rmSync(updated, { force: true });
    symlinkSync(basename(file), updated);
    renameSync(updated, this.currentPath);
    return pair;
  }
}

/**
 * The pair in PEM text; the key may share the certificate's file. Throws when either is missing or
 * the key is not the leaf's (tls.X509KeyPair's "private key does not match public key"). notAfter
 * is the earliest of every certificate in the text (an expired intermediate expires the pair).
 */
export function parsePair(certText: string, keyText: string): StoredPair {
  const certPem = pemBlocksOf(certText, /CERTIFICATE/);
  const keyPem = pemBlocksOf(keyText, /PRIVATE KEY/);
  if (!certPem || !keyPem) throw new Error('no certificate and key in the files');
  const certificates = (certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).map((pem) => new X509Certificate(pem));
  const [leaf] = certificates;
  if (!leaf) throw new Error('no certificate in the files');
  const spki = (key: KeyObject): Buffer => key.export({ type: 'spki', format: 'der' });
  if (!spki(leaf.publicKey).equals(spki(createPublicKey(keyPem)))) throw new Error('tls: private key does not match public key');
  const notAfter = Math.min(...certificates.map((c) => Date.parse(c.validTo)));
  return { certPem, keyPem, notBefore: Date.parse(leaf.validFrom), notAfter };
}

function pemBlocksOf(text: string, type: RegExp): string {
  const blocks = text.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
  return blocks
    .filter((b) => type.test(/-----BEGIN ([A-Z0-9 ]+)-----/.exec(b)?.[1] ?? ''))
    .map((b) => `${b}\n`)
    .join('');
}

/** Go's "2006-01-02-15-04-05" layout, in UTC. */
function goTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace(/[T:]/g, '-');
}
