/**
 * Impersonation (upstream's WithImpersonation filter, `kubectl --as`): a request carrying
 * `Impersonate-User`, `Impersonate-Group` (repeatable), `Impersonate-Uid` or
 * `Impersonate-Extra-<key>` acts as that user, once the requester is authorized to `impersonate`
 * each part:
 *
 *   user                  users (core group), or serviceaccounts in their namespace for
 *                         `system:serviceaccount:<namespace>:<name>`
 *   each group            groups (core group)
 *   each extra value      userextras/<key> (authentication.k8s.io)
 *   uid                   uids (authentication.k8s.io)
 *
 * The first part refused answers upstream's 403 (`users "bob" is forbidden: User "alice" cannot
 * impersonate resource "users" in API group "" at the cluster scope`). Groups, extra or uid without
 * a user is a client error: 400 (upstream answers 500 there; corral never answers 500 for a
 * client's mistake).
 *
 * The impersonated user is in `system:authenticated` unless the groups asked name
 * `system:authenticated` or `system:unauthenticated`; `system:anonymous` gets
 * `system:unauthenticated` instead. A service account without asked groups gets its fixed ones.
 */
import { badRequest } from '../../shared/api/errors.ts';
import { requireAllowed, resourceAttributes, type AuthorizationAttributes, type Authorizer } from '../authorization/authorizer.ts';
import type { UserInfo } from '../registry/definition.ts';
import { ALL_AUTHENTICATED_GROUP, ALL_UNAUTHENTICATED_GROUP, ANONYMOUS_USER, serviceAccountOf } from './authenticate.ts';

const userHeader = 'impersonate-user';
const groupHeader = 'impersonate-group';
const uidHeader = 'impersonate-uid';
const extraPrefix = 'impersonate-extra-';
const authenticationGroup = 'authentication.k8s.io';

interface Requested {
  username?: string;
  groups: string[];
  uid?: string;
  extra: Record<string, string[]>;
}

/** The impersonation headers of a request, from its raw header list (repeated headers stay apart), or undefined without any. */
export function requestedImpersonation(rawHeaders: readonly string[]): Requested | undefined {
  const out: Requested = { groups: [], extra: {} };
  let any = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    const value = rawHeaders[i + 1] ?? '';
    if (name === userHeader) out.username = value;
    else if (name === groupHeader) out.groups.push(value);
    else if (name === uidHeader) out.uid = value;
    else if (name.startsWith(extraPrefix)) {
      const key = unescapeExtraKey(name.slice(extraPrefix.length));
      (out.extra[key] ??= []).push(value);
    } else continue;
    any = true;
  }
  return any ? out : undefined;
}

/** Upstream's unescapeExtraKey: keys are percent-encoded in header names; an invalid escape keeps the key as sent. */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

function attributes(resource: string, name: string, more: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return resourceAttributes('impersonate', '', resource, { name, ...more });
}

/** What must be authorized for each requested part, in upstream's order: user, groups, extra, uid. */
function checks(requested: Requested & { username: string }): AuthorizationAttributes[] {
  const out: AuthorizationAttributes[] = [];
  const sa = serviceAccountOf(requested.username);
  out.push(sa ? attributes('serviceaccounts', sa.name, { namespace: sa.namespace }) : attributes('users', requested.username));
  for (const group of requested.groups) out.push(attributes('groups', group));
  for (const [key, values] of Object.entries(requested.extra)) {
    for (const value of values) out.push(attributes('userextras', value, { apiGroup: authenticationGroup, subresource: key }));
  }
  if (requested.uid !== undefined) out.push(attributes('uids', requested.uid, { apiGroup: authenticationGroup }));
  return out;
}

/**
 * The user a request acts as: `requester` without impersonation headers, the impersonated user once
 * every part is authorized. Throws upstream's 403, or 400 for a request that impersonates no user.
 */
export async function impersonate(rawHeaders: readonly string[], requester: UserInfo, authorizer: Authorizer): Promise<UserInfo> {
  const requested = requestedImpersonation(rawHeaders);
  if (!requested) return requester;
  const { username } = requested;
  if (username === undefined) {
    const parts = [
      ...requested.groups.map((g) => `group ${g}`),
      ...Object.keys(requested.extra).map((k) => `extra ${k}`),
      ...(requested.uid !== undefined ? ['uid'] : []),
    ];
    throw badRequest(`requested ${parts.join(', ')} without impersonating a user`);
  }
  for (const check of checks({ ...requested, username })) requireAllowed(await authorizer.authorize(requester, check), requester, check);

  let groups = [...requested.groups];
  const sa = serviceAccountOf(username);
  if (sa && groups.length === 0) groups = ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`];
  if (username === ANONYMOUS_USER) {
    if (!groups.includes(ALL_UNAUTHENTICATED_GROUP)) groups.push(ALL_UNAUTHENTICATED_GROUP);
  } else if (!groups.includes(ALL_AUTHENTICATED_GROUP) && !groups.includes(ALL_UNAUTHENTICATED_GROUP)) {
    groups.push(ALL_AUTHENTICATED_GROUP);
  }
  return {
    username,
    groups,
    ...(requested.uid !== undefined ? { uid: requested.uid } : {}),
    ...(Object.keys(requested.extra).length ? { extra: requested.extra } : {}),
  };
}
