/**
 * Asking the cluster for a certificate, as client-go's certificate/csr package and the kubelet's
 * bootstrap do: a PKCS#10 request for a subject and usages, posted as a CertificateSigningRequest
 * to a signer, then waited on until it is issued, denied or failed.
 *
 * The node's first request is named after a digest of its public key, subject and usages
 * (`node-csr-…`, upstream's digestedName), so that an agent restarted mid-bootstrap finds its own
 * request again instead of piling up new ones; later requests (rotation) take a generated name.
 * A request found under that name must match what is asked (ensureCompatible), or it is refused.
 */
// @peculiar/x509 needs the Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { isStatusError } from '../../shared/api/errors.ts';
import { isObject, type KubeObject } from '../../shared/api/types.ts';
import type { ApiClient } from '../../shared/client/api-client.ts';
import { sleep, type Clock } from '../../shared/client/clock.ts';

export const csrPath = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

export const kubeletClientSigner = 'kubernetes.io/kube-apiserver-client-kubelet';
export const kubeletServingSigner = 'kubernetes.io/kubelet-serving';

export interface Subject {
  commonName: string;
  organizations: string[];
}

export interface SubjectAltNames {
  dnsNames: string[];
  ipAddresses: string[];
}

/** A new ECDSA P-256 key as SEC1 PEM (`EC PRIVATE KEY`), as keyutil.MakeEllipticPrivateKeyPEM writes it. */
export function generatePrivateKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ type: 'sec1', format: 'pem' }).toString();
}

/** The PKCS#10 request (PEM) for `subject` and `altNames`, signed with the key. */
export async function makeCertificateRequest(keyPem: string, subject: Subject, altNames: SubjectAltNames = { dnsNames: [], ipAddresses: [] }): Promise<string> {
  const privateKeyObject = createPrivateKey(keyPem);
  const pkcs8 = privateKeyObject.export({ type: 'pkcs8', format: 'der' });
  const spki = createPublicKey(privateKeyObject).export({ type: 'spki', format: 'der' });
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const keys = {
    privateKey: await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, true, ['sign']),
    publicKey: await webcrypto.subtle.importKey('spki', spki, algorithm, true, ['verify']),
  };
  const names = [
    ...altNames.dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...altNames.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
  ];
  const request = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      // pkix.Name's order: one RDN per attribute type, organizations before the common name.
      name: [...(subject.organizations.length > 0 ? [{ O: subject.organizations }] : []), { CN: [subject.commonName] }],
      keys,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      extensions: names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : [],
    },
    webcrypto,
  );
  return request.toString('pem');
}

/**
 * upstream's digestedName: `node-csr-` and the unpadded base64url SHA-512/256 of the public key,
 * the subject's common name and organizations and the usages, each base64url-encoded and followed
 * by `|` (a character outside that alphabet, so no two inputs make the same stream).
 */
export function digestedName(keyPem: string, subject: Subject, usages: readonly string[]): string {
  const spki = createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
  const hash = createHash('sha512-256');
  for (const part of [spki, Buffer.from(subject.commonName), ...subject.organizations.map((o) => Buffer.from(o)), ...usages.map((u) => Buffer.from(u))]) {
    hash.update(part.toString('base64url'));
    hash.update('|');
  }
  return `node-csr-${hash.digest('base64url')}`;
}

export interface CertificateRequest {
  /** Empty: a generated name (`csr-…`). */
  name: string;
  requestPem: string;
  signerName: string;
  usages: readonly string[];
}

/** Posts the request; an existing one of the same name is reused when it asks for the same. Resolves to its name and uid. */
export async function requestCertificate(api: ApiClient, request: CertificateRequest): Promise<{ name: string; uid: string }> {
  const csr: KubeObject = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: request.name ? { name: request.name } : { generateName: 'csr-' },
    spec: { request: Buffer.from(request.requestPem).toString('base64'), signerName: request.signerName, usages: [...request.usages] },
  };
  try {
    const created = await api.create(csrPath, csr);
    return { name: created.metadata.name ?? '', uid: created.metadata.uid ?? '' };
  } catch (err) {
    if (!request.name || !isStatusError(err, 'AlreadyExists')) throw err;
  }
  const existing = await api.get(`${csrPath}/${request.name}`);
  const problem = incompatibility(existing, request);
  if (problem) throw new Error(`retrieved csr is not compatible: ${problem}`);
  return { name: request.name, uid: existing.metadata.uid ?? '' };
}

/** upstream's ensureCompatible: the same subject and public key, signer and usages. */
function incompatibility(existing: KubeObject, wanted: CertificateRequest): string | null {
  const spec = isObject(existing['spec']) ? existing['spec'] : {};
  const request = typeof spec['request'] === 'string' ? Buffer.from(spec['request'], 'base64').toString('utf8') : '';
  let theirs: x509.Pkcs10CertificateRequest;
  try {
    theirs = new x509.Pkcs10CertificateRequest(request);
  } catch {
    return 'unable to parse existing request';
  }
  const ours = new x509.Pkcs10CertificateRequest(wanted.requestPem);
  if (theirs.subject !== ours.subject) return `csr subjects differ: new: ${ours.subject}, orig: ${theirs.subject}`;
  if (!Buffer.from(theirs.publicKey.rawData).equals(Buffer.from(ours.publicKey.rawData))) return 'csr public keys differ';
  if (spec['signerName'] !== wanted.signerName) return `csr signerNames differ: new ${wanted.signerName}, orig: ${String(spec['signerName'])}`;
  const usages = Array.isArray(spec['usages']) ? spec['usages'].map(String) : [];
  if (usages.length !== wanted.usages.length || usages.some((u) => !wanted.usages.includes(u))) return 'csr usages differ';
  return null;
}

export interface WaitOptions {
  clock: Clock;
  signal: AbortSignal;
  /** Upstream waits an hour for an approval. */
  timeoutMs?: number;
  /** Between looks at the request; it grows to `maxPollMs`. */
  pollMs?: number;
  maxPollMs?: number;
}

/**
 * Waits until the request `name` (with `uid`) is issued and returns the certificate PEM; throws
 * with upstream's words when it is denied or failed, replaced, or the wait times out. Looks at it
 * after 250 ms, then less and less often (up to every 5 s): approval takes a person or the
 * controller manager's approver, and thousands of simulated nodes may be waiting at once.
 */
export async function waitForCertificate(api: ApiClient, name: string, uid: string, options: WaitOptions): Promise<string> {
  const { clock, signal, timeoutMs = 3600_000, maxPollMs = 5_000 } = options;
  const deadline = clock.now() + timeoutMs;
  let poll = options.pollMs ?? 250;
  for (;;) {
    if (signal.aborted) throw new Error('waiting for the certificate was cancelled');
    let csr: KubeObject | undefined;
    try {
      csr = await api.get(`${csrPath}/${name}`);
    } catch (err) {
      if (isStatusError(err, 'NotFound')) throw new Error(`csr ${JSON.stringify(name)} was deleted before it was issued`);
    }
    if (csr) {
      if (csr.metadata.uid !== uid) throw new Error(`csr "${name}" changed UIDs`);
      const issued = issuedCertificate(csr);
      if (issued) return issued;
    }
    if (clock.now() >= deadline) throw new Error('timed out waiting for the condition');
    await sleep(clock, poll, signal);
    poll = Math.min(maxPollMs, poll * 2);
  }
}

/** The certificate of an issued request; throws when it was denied or failed; undefined while pending. */
export function issuedCertificate(csr: KubeObject): string | undefined {
  const status = isObject(csr['status']) ? csr['status'] : {};
  const conditions = Array.isArray(status['conditions']) ? status['conditions'].filter(isObject) : [];
  let approved = false;
  for (const c of conditions) {
    const detail = `reason: ${String(c['reason'] ?? '')}, message: ${String(c['message'] ?? '')}`;
    if (c['type'] === 'Denied') throw new Error(`certificate signing request is denied, ${detail}`);
    if (c['type'] === 'Failed') throw new Error(`certificate signing request failed, ${detail}`);
    if (c['type'] === 'Approved') approved = true;
  }
  const certificate = status['certificate'];
  if (approved && typeof certificate === 'string' && certificate !== '') return Buffer.from(certificate, 'base64').toString('utf8');
  return undefined;
}
