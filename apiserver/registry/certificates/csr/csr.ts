/**
 * CertificateSigningRequest (certificates.k8s.io/v1): a PKCS#10 request, approved or denied through
 * the `approval` subresource and answered through the `status` subresource. The requester's
 * identity in the spec comes from the request's user, never from the client. The main resource
 * changes neither spec nor status; `approval` changes only the conditions, `status` only status,
 * and each subresource's validation grants what it alone may set.
 */
import { csrSchema, type CertificateSigningRequest } from '../../../../shared/api/certificate-signing-request.ts';
import { nameIsPathSegment } from '../../../../shared/validation/names.ts';
import { allVerbs, defineResource } from '../../definition.ts';
import { keepSpec, keepStatus, statusSubresource } from '../../status-subresource.ts';
import { prepareApproval, prepareStatusConditions } from './conditions.ts';
import { csrTable } from './table.ts';
import { validateCSR, validateCSRUpdate, validationOptions } from './validation.ts';

export const csrDefinition = defineResource<CertificateSigningRequest>({
  group: 'certificates.k8s.io',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  singular: 'certificatesigningrequest',
  shortNames: ['csr'],
  namespaced: false,
  verbs: allVerbs,
  nameRule: nameIsPathSegment,
  fieldSelectors: { 'spec.signerName': (obj) => obj.spec?.signerName ?? '' },
  schema: csrSchema(),
  strategy: {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate(obj, ctx) {
      const spec = (obj.spec ??= {});
      delete spec.username;
      delete spec.uid;
      delete spec.groups;
      delete spec.extra;
      const user = ctx.user;
      if (user.username) spec.username = user.username;
      if (user.uid) spec.uid = user.uid;
      if (user.groups.length) spec.groups = [...user.groups];
      if (user.extra && Object.keys(user.extra).length) spec.extra = structuredClone(user.extra);
      // Clients cannot create pre-approved or pre-signed requests.
      obj.status = {};
    },
    validate(obj) {
      return validateCSR(obj, validationOptions(obj, undefined));
    },
    prepareForUpdate(obj, old) {
      keepSpec(obj, old);
      keepStatus(obj, old);
    },
    validateUpdate(obj, old) {
      return validateCSRUpdate(obj, old, validationOptions(obj, old));
    },
  },
  subresources: {
    approval: {
      verbs: ['get', 'patch', 'update'],
      prepareForUpdate: prepareApproval,
      validateUpdate(obj, old) {
        return validateCSRUpdate(obj, old, { ...validationOptions(obj, old), allowSettingApprovalConditions: true });
      },
    },
    status: statusSubresource({
      prepareForUpdate: prepareStatusConditions,
      validateUpdate(obj, old) {
        return validateCSRUpdate(obj, old, { ...validationOptions(obj, old), allowSettingCertificate: true });
      },
    }),
  },
  table: csrTable,
});
