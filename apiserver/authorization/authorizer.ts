/**
 * Authorization, its own pipeline stage: an Authorizer decides whether a user may do what a request
 * asks (upstream's authorizer.Authorizer). Decisions:
 *
 * - `allow` and `deny` are final: the union of authorizers (union.ts) stops at the first of them.
 * - `no-opinion` passes the question on; when nobody allows, the request is forbidden.
 *
 * `reason` is shown to the client after upstream's 403 message (RBAC's missing roles, the Node
 * authorizer's explanation), so it never names anything the asker may not know about.
 */
import { forbidden } from '../../shared/api/errors.ts';
import type { FieldRequirement } from '../../shared/selectors/fields.ts';
import type { UserInfo } from '../registry/definition.ts';

export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why, for the client and the audit log; empty when there is nothing to say. */
  reason: string;
}

/**
 * What is being asked, as upstream's authorizer.Attributes: a request's RequestInfo has these
 * fields, and access reviews build them from their spec.
 */
export interface AuthorizationAttributes {
  /** Resource verbs (get, list, watch, create, update, patch, delete, deletecollection, or
   * special ones like impersonate, bind, escalate, approve); lower-case HTTP method otherwise. */
  verb: string;
  isResourceRequest: boolean;
  /** The URL path of a non-resource request. */
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  /** The parsed field selector of a list, watch or deletecollection, when it has one (upstream's GetFieldSelector). */
  fieldSelector?: readonly FieldRequirement[];
}

export interface Authorizer {
  authorize(user: UserInfo, attributes: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult>;
}

/**
 * The attributes of a resource request that code asks about rather than a URL (escalation checks,
 * impersonation, signers, access reviews): everything not given is empty.
 */
export function resourceAttributes(verb: string, apiGroup: string, resource: string, more: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return { verb, isResourceRequest: true, path: '', namespace: '', apiGroup, apiVersion: '', resource, subresource: '', name: '', ...more };
}

export const allow: AuthorizationResult = Object.freeze({ decision: 'allow', reason: '' });
export const noOpinion: AuthorizationResult = Object.freeze({ decision: 'no-opinion', reason: '' });

/** Upstream's wording: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default". */
export function forbiddenMessage(user: UserInfo, attributes: AuthorizationAttributes): string {
  const who = `User "${user.username}"`;
  if (!attributes.isResourceRequest) return `${who} cannot ${attributes.verb} path "${attributes.path}"`;
  const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  const scope = attributes.namespace ? ` in the namespace "${attributes.namespace}"` : ' at the cluster scope';
  return `${who} cannot ${attributes.verb} resource "${resource}" in API group "${attributes.apiGroup}"${scope}`;
}

/** Throws upstream's 403 unless the result allows. */
export function requireAllowed(result: AuthorizationResult, user: UserInfo, attributes: AuthorizationAttributes): void {
  if (result.decision === 'allow') return;
  const detail = forbiddenMessage(user, attributes) + (result.reason ? `: ${result.reason}` : '');
  throw forbidden({ group: attributes.apiGroup, resource: attributes.resource }, attributes.name, detail);
}
