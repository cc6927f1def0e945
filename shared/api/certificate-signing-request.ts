/**
 * The CertificateSigningRequest object (certificates.k8s.io/v1): its TypeScript shape and its
 * schema, shared by the API server's kind (apiserver/registry/certificates/csr/, which adds
 * validation, strategy and subresources) and by clients that encode it (the node agent's TLS
 * bootstrap, in protobuf). Field numbers are upstream's generated.proto; `[]byte` fields are
 * base64 in JSON.
 */
import { array, atomicArray, bytes, describe, int32, keyedArray, kindSchema, map, named, object, pb, string, time, type Schema } from './schema.ts';
import type { KubeObject } from './types.ts';

export interface CertificateSigningRequestCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CertificateSigningRequestSpec {
  /** Base64 of a PEM `CERTIFICATE REQUEST` block. */
  request?: string;
  signerName?: string;
  expirationSeconds?: number;
  usages?: string[];
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface CertificateSigningRequestStatus {
  conditions?: CertificateSigningRequestCondition[];
  /** Base64 of PEM `CERTIFICATE` blocks. */
  certificate?: string;
}

export interface CertificateSigningRequest extends KubeObject {
  spec?: CertificateSigningRequestSpec;
  status?: CertificateSigningRequestStatus;
}

const atomicBytes = (): Schema => ({ ...bytes(), 'x-kubernetes-list-type': 'atomic' });

export const csrSpec = (): Schema =>
  named(
    'io.k8s.api.certificates.v1.CertificateSigningRequestSpec',
    'The certificate asked for: the request itself, the signer to issue it, and who asked, as the server recorded it.',
    object(
      {
        request: pb(1, describe(atomicBytes(), 'The PEM-encoded PKCS#10 certificate request (base64 in JSON). Required; cannot change.')),
        signerName: pb(
          7,
          string('Signer asked to issue the certificate, a qualified name such as kubernetes.io/kube-apiserver-client. Required; cannot change.'),
          'keepZero',
        ),
        expirationSeconds: pb(
          8,
          int32('Validity the requester asks for, in seconds (at least 600); the signer may issue a shorter or longer one.'),
          'optional',
        ),
        usages: pb(
          5,
          describe(
            atomicArray(string()),
            'Key usages asked for, such as digital signature, key encipherment or client auth; the signer decides what to grant.',
          ),
        ),
        username: pb(2, string('Name of the user who created the request; set by the server.')),
        uid: pb(3, string('UID of the user who created the request; set by the server.')),
        groups: pb(4, describe(atomicArray(string()), 'Groups of the user who created the request; set by the server.')),
        // Each value is an ExtraValue message in protobuf: the list under its field 1 (`items`).
        extra: pb(6, map(array(string()), 'Extra attributes of the user who created the request, by key; set by the server.')),
      },
      ['request', 'signerName'],
    ),
  );

const csrCondition = (): Schema =>
  named(
    'io.k8s.api.certificates.v1.CertificateSigningRequestCondition',
    'A decision on, or an outcome of, a certificate signing request.',
    object(
      {
        type: pb(1, string('Approved or Denied (written through approval), or Failed (written by the signer).'), 'keepZero'),
        status: pb(6, string('True, False or Unknown; Approved, Denied and Failed must be True.'), 'keepZero'),
        reason: pb(2, string('Machine-readable reason, in CamelCase.')),
        message: pb(3, string('Human-readable details.')),
        lastUpdateTime: pb(4, time('When the condition was last written.')),
        lastTransitionTime: pb(5, time('When status last changed; the server sets it when the writer does not.')),
      },
      ['type', 'status'],
    ),
  );

export const csrStatus = (): Schema =>
  named(
    'io.k8s.api.certificates.v1.CertificateSigningRequestStatus',
    'Where a request stands: approved or denied, and the certificate once issued.',
    object({
      conditions: pb(1, describe(keyedArray(csrCondition(), ['type']), 'Approval, denial and failure of the request, at most one per type.')),
      certificate: pb(
        2,
        describe(atomicBytes(), 'The issued certificate chain as PEM blocks (base64 in JSON), set by the signer after approval; cannot change once set.'),
      ),
    }),
  );

/** The CertificateSigningRequest kind's schema. */
export const csrSchema = (): Schema =>
  describe(
    kindSchema(
      {
        spec: pb(2, describe(csrSpec(), 'The certificate request and who made it; cannot change after creation.')),
        status: pb(3, describe(csrStatus(), 'Approval and the issued certificate; written through approval and status.')),
      },
      ['spec'],
    ),
    'A request for a signed X.509 certificate, approved or denied by a person or controller and issued by the named signer.',
  );
