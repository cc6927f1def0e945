/**
 * What the certificate controllers share about a CertificateSigningRequest: where it lives on the
 * API, the built-in signer names, and how upstream's controllers read its status (the helpers of
 * pkg/controller/certificates). The object's shape is the API server's own type.
 */
import type { CertificateSigningRequest } from '../../shared/api/certificate-signing-request.ts';
import { resourcePath, type ResourceRef } from '../../shared/client/api-client.ts';

export type { CertificateSigningRequest, CertificateSigningRequestCondition } from '../../shared/api/certificate-signing-request.ts';

export const csrResource: ResourceRef = { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', namespaced: false };

/** The path of one request, or of its `approval` or `status` subresource. */
export const csrPath = (name: string, subresource?: 'approval' | 'status'): string => resourcePath(csrResource, undefined, name, subresource);

export const kubeAPIServerClientSignerName = 'kubernetes.io/kube-apiserver-client';
export const kubeAPIServerClientKubeletSignerName = 'kubernetes.io/kube-apiserver-client-kubelet';
export const kubeletServingSignerName = 'kubernetes.io/kubelet-serving';
export const legacyUnknownSignerName = 'kubernetes.io/legacy-unknown';

/** The signers kube-controller-manager's csrsigning serves, in upstream's start order. */
export const builtInSignerNames = [
  kubeletServingSignerName,
  kubeAPIServerClientKubeletSignerName,
  kubeAPIServerClientSignerName,
  legacyUnknownSignerName,
] as const;

/** The service account all three certificate controllers act as (system:controller:certificate-controller). */
export const certificateControllerServiceAccount = 'certificate-controller';

/** GetCertApprovalCondition: whether an Approved and whether a Denied condition is present, whatever its status. */
export function approvalState(csr: CertificateSigningRequest): { approved: boolean; denied: boolean } {
  const types = (csr.status?.conditions ?? []).map((c) => c.type);
  return { approved: types.includes('Approved'), denied: types.includes('Denied') };
}

/** IsCertificateRequestApproved: approved and not denied. */
export function isApproved(csr: CertificateSigningRequest): boolean {
  const { approved, denied } = approvalState(csr);
  return approved && !denied;
}

/** HasTrueCondition: a condition of `type` whose status is True. */
export function hasTrueCondition(csr: CertificateSigningRequest, type: string): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** Whether the signer has written a certificate (kubectl's "Issued"). */
export function isIssued(csr: CertificateSigningRequest): boolean {
  return (csr.status?.certificate ?? '') !== '';
}
