/**
 * What each built-in signer accepts (upstream's csrsigning, signer.go): a request it refuses gets
 * a Failed condition with the returned text as its message. Only the signer's own requests are
 * checked, so a rule never sees another signer's request.
 */
import { kubeletClientError, kubeletServingError } from './kubelet-requests.ts';
import { kubeAPIServerClientKubeletSignerName, kubeAPIServerClientSignerName, kubeletServingSignerName, legacyUnknownSignerName } from './csr.ts';
import type { CertificateRequest } from './request.ts';

/** The reason of every Failed condition the signer writes. */
export const signerValidationFailure = 'SignerValidationFailure';

export type SignerRule = (req: CertificateRequest, usages: readonly string[]) => string | null;

/** validAPIServerClientUsages: client auth required, digital signature and key encipherment allowed, nothing else. */
function kubeAPIServerClientError(_req: CertificateRequest, usages: readonly string[]): string | null {
  let hasClientAuth = false;
  for (const usage of usages) {
    if (usage === 'digital signature' || usage === 'key encipherment') continue;
    if (usage === 'client auth') hasClientAuth = true;
    else return `invalid usage for client certificate: ${usage}`;
  }
  return hasClientAuth ? null : 'missing required usage for client certificate: client auth';
}

/** The rule of each built-in signer; legacy-unknown keeps v1beta1's lack of restrictions. */
export const signerRules: Readonly<Record<string, SignerRule>> = {
  [kubeletServingSignerName]: kubeletServingError,
  [kubeAPIServerClientKubeletSignerName]: kubeletClientError,
  [kubeAPIServerClientSignerName]: kubeAPIServerClientError,
  [legacyUnknownSignerName]: () => null,
};
