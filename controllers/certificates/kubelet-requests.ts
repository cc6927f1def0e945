/**
 * What a kubelet's requests must be (upstream's pkg/apis/certificates helpers): a client
 * certificate for the node's identity (signer kube-apiserver-client-kubelet, which csrapproving
 * recognises and csrsigning enforces) and a serving certificate for its DNS names and IPs (signer
 * kubelet-serving). Each returns upstream's error text for the first rule broken, or null.
 */
import { nodesGroup, nodeUserPrefix } from '../../shared/api/node-identity.ts';
import type { CertificateRequest } from './request.ts';

const organizationNotSystemNodes = 'subject organization is not system:nodes';
const commonNameNotSystemNode = 'subject common name does not begin with system:node:';
const dnsOrIPSANRequired = 'DNS or IP subjectAltName is required';
const dnsSANNotAllowed = 'DNS subjectAltNames are not allowed';
const emailSANNotAllowed = 'Email subjectAltNames are not allowed';
const ipSANNotAllowed = 'IP subjectAltNames are not allowed';
const uriSANNotAllowed = 'URI subjectAltNames are not allowed';

/** The two usage sets each kind accepts: with key encipherment (RSA keys) and without. */
const kubeletServingUsages = ['digital signature', 'key encipherment', 'server auth'];
const kubeletServingUsagesNoRSA = ['digital signature', 'server auth'];
const kubeletClientUsages = ['digital signature', 'key encipherment', 'client auth'];
const kubeletClientUsagesNoRSA = ['digital signature', 'client auth'];

/** sets.String.Equal: the same members, duplicates aside. */
function sameSet(usages: readonly string[], expected: readonly string[]): boolean {
  const set = new Set(usages);
  return set.size === expected.length && expected.every((u) => set.has(u));
}

/** Go's %v of sets.String.List(): the sorted members in brackets, space separated. */
const listed = (values: readonly string[]): string => `[${[...values].sort().join(' ')}]`;

const isSystemNodes = (req: CertificateRequest): boolean => req.subject.organization.length === 1 && req.subject.organization[0] === nodesGroup;

/** ValidateKubeletServingCSR. */
export function kubeletServingError(req: CertificateRequest, usages: readonly string[]): string | null {
  if (!isSystemNodes(req)) return organizationNotSystemNodes;
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return dnsOrIPSANRequired;
  if (req.emailAddresses.length > 0) return emailSANNotAllowed;
  if (req.uris.length > 0) return uriSANNotAllowed;
  if (!sameSet(usages, kubeletServingUsages) && !sameSet(usages, kubeletServingUsagesNoRSA)) return `usages did not match ${listed(kubeletServingUsages)}`;
  if (!req.subject.commonName.startsWith(nodeUserPrefix)) return commonNameNotSystemNode;
  return null;
}

/** ValidateKubeletClientCSR. */
export function kubeletClientError(req: CertificateRequest, usages: readonly string[]): string | null {
  if (!isSystemNodes(req)) return organizationNotSystemNodes;
  if (req.dnsNames.length > 0) return dnsSANNotAllowed;
  if (req.emailAddresses.length > 0) return emailSANNotAllowed;
  if (req.ipAddresses.length > 0) return ipSANNotAllowed;
  if (req.uris.length > 0) return uriSANNotAllowed;
  if (!req.subject.commonName.startsWith(nodeUserPrefix)) return commonNameNotSystemNode;
  if (!sameSet(usages, kubeletClientUsages) && !sameSet(usages, kubeletClientUsagesNoRSA)) return `usages did not match ${listed(kubeletClientUsages)}`;
  return null;
}
