/**
 * Test fixtures of the certificate controllers: real CAs written to files, real PKCS#10 requests
 * made with @peculiar/x509 (RSA or ECDSA P-256 keys), CertificateSigningRequest objects as the
 * API server would store them, and a controller manager configuration pointing at the CA files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webcrypto } from 'node:crypto';
import { x509 } from '../../shared/go/x509.ts';
import { createCA, type CertificateAuthority, type CreateCAOptions } from '../../shared/pki/certificates.ts';
import { configFromFlags, type ControllerManagerConfig } from '../config.ts';
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from './csr.ts';

export interface CAFiles {
  ca: CertificateAuthority;
  certFile: string;
  keyFile: string;
  dir: string;
  /** Removes the files. */
  remove(): void;
}

/** A new CA (ECDSA P-256) in a temporary directory. */
export async function caFiles(opts: CreateCAOptions = {}): Promise<CAFiles> {
  const ca = await createCA(opts);
  const dir = mkdtempSync(join(tmpdir(), 'corral-csr-ca-'));
  const certFile = join(dir, 'ca.crt');
  const keyFile = join(dir, 'ca.key');
  writeFileSync(certFile, ca.certPem);
  writeFileSync(keyFile, ca.keyPem);
  return { ca, certFile, keyFile, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The manager's configuration with `flags` (flag name to value) on top of the defaults. */
export function managerConfig(flags: Record<string, string> = {}): ControllerManagerConfig {
  return configFromFlags({ kubeconfig: '/dev/null', 'leader-elect': 'false', ...flags });
}

/** --cluster-signing-cert-file and -key-file naming `files`. */
export const clusterSigningFlags = (files: CAFiles): Record<string, string> => ({
  'cluster-signing-cert-file': files.certFile,
  'cluster-signing-key-file': files.keyFile,
});

export interface RequestOptions {
  /** RFC 4514 subject, e.g. `O=system:nodes,CN=system:node:a`; ignored when `name` is given. */
  subject?: string;
  /** The subject as JSON RDNs, for attributes RFC 4514 text would mangle. */
  name?: x509.JsonName;
  key?: 'ecdsa' | 'rsa';
  dnsNames?: string[];
  ipAddresses?: string[];
  emailAddresses?: string[];
  uris?: string[];
  /** Further extensions in the extension request (e.g. basicConstraints CA:TRUE). */
  extensions?: x509.Extension[];
}

const rsaParams = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
const ecdsaParams = { name: 'ECDSA', namedCurve: 'P-256' };

/** A signed PKCS#10 request as `spec.request` carries it: base64 of the PEM. */
export async function certificateRequest(opts: RequestOptions = {}): Promise<string> {
  const algorithm = opts.key === 'rsa' ? rsaParams : ecdsaParams;
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const names: x509.JsonGeneralName[] = [
    ...(opts.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(opts.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(opts.emailAddresses ?? []).map((value) => ({ type: 'email' as const, value })),
    ...(opts.uris ?? []).map((value) => ({ type: 'url' as const, value })),
  ];
  const extensions = [...(opts.extensions ?? [])];
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const request = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name: opts.name ?? opts.subject ?? 'CN=user',
      keys,
      signingAlgorithm: opts.key === 'rsa' ? rsaParams : { ...ecdsaParams, hash: 'SHA-256' },
      extensions,
    },
    webcrypto,
  );
  return Buffer.from(request.toString('pem')).toString('base64');
}

export interface CSROptions {
  request: string;
  signerName?: string;
  usages?: string[];
  username?: string;
  groups?: string[];
  expirationSeconds?: number;
  conditions?: CertificateSigningRequestCondition[];
  /** PEM; stored base64. */
  certificate?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
}

/** A CertificateSigningRequest as the API serves it. */
export function csrObject(name: string, opts: CSROptions): CertificateSigningRequest {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: opts.resourceVersion ?? '10',
      creationTimestamp: opts.creationTimestamp ?? '2026-01-01T00:00:00Z',
    },
    spec: {
      request: opts.request,
      signerName: opts.signerName ?? 'kubernetes.io/kube-apiserver-client',
      usages: opts.usages ?? ['client auth'],
      username: opts.username ?? 'alice',
      ...(opts.groups ? { groups: opts.groups } : {}),
      ...(opts.expirationSeconds !== undefined ? { expirationSeconds: opts.expirationSeconds } : {}),
    },
    status: {
      ...(opts.conditions ? { conditions: opts.conditions } : {}),
      ...(opts.certificate ? { certificate: Buffer.from(opts.certificate).toString('base64') } : {}),
    },
  };
}

/** The Approved condition `kubectl certificate approve` writes, stamped by the server. */
export const approvedCondition = (at = '2026-01-01T00:00:00Z'): CertificateSigningRequestCondition => ({
  type: 'Approved',
  status: 'True',
  reason: 'KubectlApprove',
  message: 'This CSR was approved by kubectl certificate approve.',
  lastUpdateTime: at,
  lastTransitionTime: at,
});
