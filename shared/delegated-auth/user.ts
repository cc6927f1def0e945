/**
 * Who made a request, as upstream's user.Info holds it, and the well-known names the endpoints
 * that delegate authentication to the API server (the node agent's, the controller manager's) hand out: `system:anonymous` in `system:unauthenticated` for requests without
 * credentials, and `system:authenticated` added to every other user (AuthenticatedGroupAdder).
 */

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const anonymousUserName = 'system:anonymous';
export const allUnauthenticated = 'system:unauthenticated';
export const allAuthenticated = 'system:authenticated';

export function anonymousUser(): UserInfo {
  return { username: anonymousUserName, groups: [allUnauthenticated] };
}

/**
 * `user` with `system:authenticated` appended, unless it is the anonymous user or already carries
 * `system:authenticated` or `system:unauthenticated` (group.AuthenticatedGroupAdder).
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === anonymousUserName) return user;
  if (user.groups.some((g) => g === allAuthenticated || g === allUnauthenticated)) return user;
  return { ...user, groups: [...user.groups, allAuthenticated] };
}
