/**
 * The certificate admission plugins (upstream's CertificateApproval, CertificateSigning and
 * CertificateSubjectRestriction), validating, on certificatesigningrequests:
 *
 * - CertificateApproval: an update of `approval` needs `approve` for the request's signer;
 * - CertificateSigning: an update of `status` that changes the certificate or the conditions needs
 *   `sign` for the signer;
 * - CertificateSubjectRestriction: no request for kubernetes.io/kube-apiserver-client may ask for
 *   the `system:masters` group (organization).
 */
import { forbidden } from '../../../shared/api/errors.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { x509 } from '../../../shared/go/x509.ts';
import { pemBlocks } from '../../../shared/go/pem.ts';
import type { Authorizer } from '../../authorization/authorizer.ts';
import type { AdmissionAttributes, ValidatingPlugin } from '../admission.ts';
import { authorizedForSigner } from './signer-authorization.ts';
import { isDeepStrictEqual } from 'node:util';

const kubeApiserverClientSigner = 'kubernetes.io/kube-apiserver-client';

const isCsr = (a: AdmissionAttributes): boolean => a.definition.group === 'certificates.k8s.io' && a.definition.plural === 'certificatesigningrequests';
const refuse = (a: AdmissionAttributes, message: string) => forbidden({ group: a.definition.group, resource: a.definition.plural }, a.name, message);

function field(obj: KubeObject | undefined, part: 'spec' | 'status', key: string): unknown {
  const holder = obj?.[part];
  return typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>)[key] : undefined;
}
const signerOf = (obj: KubeObject | undefined): string => String(field(obj, 'spec', 'signerName') ?? '');

export function certificateApproval(authorizer: Authorizer): ValidatingPlugin {
  return {
    name: 'CertificateApproval',
    operations: ['UPDATE'],
    async validate(a) {
      if (!isCsr(a) || a.subresource !== 'approval') return;
      // The new object's signer: an approval may not sneak in another one.
      const signer = signerOf(a.object);
      if (!(await authorizedForSigner(authorizer, a.context.user, 'approve', signer))) {
        throw refuse(a, `user not permitted to approve requests with signerName "${signer}"`);
      }
    },
  };
}

export function certificateSigning(authorizer: Authorizer): ValidatingPlugin {
  return {
    name: 'CertificateSigning',
    operations: ['UPDATE'],
    async validate(a) {
      if (!isCsr(a) || a.subresource !== 'status') return;
      const same = (key: string): boolean => isDeepStrictEqual(field(a.object, 'status', key), field(a.oldObject, 'status', key));
      if (same('certificate') && same('conditions')) return;
      const signer = signerOf(a.oldObject);
      if (!(await authorizedForSigner(authorizer, a.context.user, 'sign', signer))) {
        throw refuse(a, `user not permitted to sign requests with signerName "${signer}"`);
      }
    },
  };
}

/** The organizations of the subject of a PEM PKCS#10 request (base64 in the object); throws when it does not parse. */
function requestOrganizations(request: string): string[] {
  const [block] = pemBlocks(Buffer.from(request, 'base64'));
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const parsed = new x509.Pkcs10CertificateRequest(block.bytes);
  return parsed.subjectName.getField('O');
}

export function certificateSubjectRestriction(): ValidatingPlugin {
  return {
    name: 'CertificateSubjectRestriction',
    operations: ['CREATE'],
    async validate(a) {
      if (!isCsr(a) || a.subresource !== '' || signerOf(a.object) !== kubeApiserverClientSigner) return;
      let organizations: string[];
      try {
        organizations = requestOrganizations(String(field(a.object, 'spec', 'request') ?? ''));
      } catch (err) {
        throw refuse(a, `failed to parse CSR: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (organizations.includes('system:masters')) throw refuse(a, `use of ${kubeApiserverClientSigner} signer with system:masters group is not allowed`);
    },
  };
}
