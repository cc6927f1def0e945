/**
 * Whether a user may `approve` or `sign` for a signer (upstream's IsAuthorizedForSignerName): the
 * verb on `signers` of certificates.k8s.io named exactly the signer, or else named
 * `<domain>/*` for the signer's domain (spec 02, "Authorization rules for certificate requests").
 */
import { resourceAttributes, type Authorizer } from '../../authorization/authorizer.ts';
import type { UserInfo } from '../../registry/definition.ts';

async function allows(authorizer: Authorizer, user: UserInfo, verb: string, name: string): Promise<boolean> {
  const result = await authorizer.authorize(user, resourceAttributes(verb, 'certificates.k8s.io', 'signers', { apiVersion: '*', name }));
  return result.decision === 'allow';
}

export async function authorizedForSigner(authorizer: Authorizer, user: UserInfo, verb: 'approve' | 'sign', signerName: string): Promise<boolean> {
  if (await allows(authorizer, user, verb, signerName)) return true;
  const domain = signerName.split('/')[0] ?? '';
  return allows(authorizer, user, verb, `${domain}/*`);
}
