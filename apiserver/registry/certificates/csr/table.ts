/** CertificateSigningRequest's Table (kubectl get csr), as upstream's printers: columns, their descriptions and cells. */
import { humanDuration } from '../../../../shared/go/human-duration.ts';
import type { TableDefinition } from '../../definition.ts';
import { age, ageColumn, nameColumn } from '../../table.ts';
import type { CertificateSigningRequest } from '../../../../shared/api/certificate-signing-request.ts';

/** The Condition cell: Denied, Approved or Pending (in that precedence), then Failed and Issued when so. */
function csrConditionText(csr: CertificateSigningRequest): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let text = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) text += ',Failed';
  if (csr.status?.certificate) text += ',Issued';
  return text;
}

/** The RequestedDuration cell: spec.expirationSeconds as a human duration, `<none>` when unset. */
function requestedDuration(csr: CertificateSigningRequest): string {
  const seconds = csr.spec?.expirationSeconds;
  return typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>';
}

/** Upstream describes these columns with certificates.k8s.io/v1beta1's docs, Requestor with the request's. */
export const csrTable: TableDefinition<CertificateSigningRequest> = {
  columns: [
    nameColumn,
    ageColumn,
    {
      name: 'SignerName',
      type: 'string',
      description:
        'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it\'s a kubelet client certificate, it is assigned\n    "kubernetes.io/kube-apiserver-client-kubelet".\n 2. If it\'s a kubelet serving certificate, it is assigned\n    "kubernetes.io/kubelet-serving".\n 3. Otherwise, it is assigned "kubernetes.io/legacy-unknown".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.',
    },
    { name: 'Requestor', type: 'string', description: 'Base64-encoded PKCS#10 CSR data' },
    {
      name: 'RequestedDuration',
      type: 'string',
      description:
        'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.',
    },
    { name: 'Condition', type: 'string', description: 'Conditions applied to the request, such as approval or denial.' },
  ],
  cells: (csr, now) => [
    csr.metadata.name,
    age(csr, now),
    csr.spec?.signerName || '<none>',
    csr.spec?.username ?? '',
    requestedDuration(csr),
    csrConditionText(csr),
  ],
};
