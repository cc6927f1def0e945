/** The shapes and schemas authentication.k8s.io/v1's reviews share (field numbers from upstream's generated.proto). */
import { array, atomicArray, describe, map, named, object, pb, string, type Schema } from '../../../shared/api/schema.ts';
import type { UserInfo as RequestUser } from '../definition.ts';

export const authenticationGroup = 'authentication.k8s.io';

/** authentication/v1 UserInfo: every field omitted when empty. */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export const userInfo = (): Schema =>
  named(
    'io.k8s.api.authentication.v1.UserInfo',
    'Who a user is, as authentication found them.',
    object({
      username: pb(1, string('Name of the user, unique among the users at any one time.')),
      uid: pb(2, string('Identifier of the user, unique over time: a user deleted and created again gets a new one.')),
      groups: pb(3, describe(atomicArray(string()), 'Groups the user is in.')),
      // Each value is an ExtraValue message in protobuf: the list under its field 1 (`items`).
      extra: pb(4, map(array(string()), 'Further attributes the authenticator reported.')),
    }),
  );

/** A request's user in the wire form, with upstream's omissions of empty fields. */
export function userInfoOf(user: RequestUser): UserInfo {
  return {
    ...(user.username ? { username: user.username } : {}),
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length ? { groups: [...user.groups] } : {}),
    ...(user.extra && Object.keys(user.extra).length ? { extra: structuredClone(user.extra) } : {}),
  };
}
