/**
 * Authorization, its own pipeline stage: an Authorizer decides on (user, verb, resource). Until
 * RBAC lands the server runs AlwaysAllow; the stage, its attributes and upstream's 403 message
 * are already in place.
 */
import { forbidden } from '../../shared/api/errors.ts';
import type { UserInfo } from '../registry/definition.ts';
import type { RequestInfo } from './requestinfo.ts';

export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface Authorizer {
  authorize(user: UserInfo, info: RequestInfo): Promise<{ decision: Decision; reason?: string }>;
}

export const alwaysAllow: Authorizer = {
  authorize: async () => ({ decision: 'allow' }),
};

/** Upstream's wording: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default". */
export function forbiddenMessage(user: UserInfo, info: RequestInfo): string {
  if (!info.isResourceRequest) return `User "${user.username}" cannot ${info.verb} path "${info.path}"`;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  const scope = info.namespace ? ` in the namespace "${info.namespace}"` : ' at the cluster scope';
  return `User "${user.username}" cannot ${info.verb} resource "${resource}" in API group "${info.apiGroup}"${scope}`;
}

export async function authorize(authorizer: Authorizer, user: UserInfo, info: RequestInfo): Promise<void> {
  const { decision, reason } = await authorizer.authorize(user, info);
  if (decision === 'allow') return;
  const detail = forbiddenMessage(user, info) + (reason ? `: ${reason}` : '');
  throw forbidden({ group: info.apiGroup, resource: info.resource }, info.name, detail);
}
