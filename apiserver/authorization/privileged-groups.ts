/**
 * Members of a privileged group may do anything, whatever the configured modes say (upstream puts
 * this authorizer first in every union: `system:masters` is the cluster's superuser group).
 */
import type { UserInfo } from '../registry/definition.ts';
import { allow, noOpinion, type Authorizer } from './authorizer.ts';

export const systemPrivilegedGroup = 'system:masters';

export function privilegedGroups(groups: readonly string[] = [systemPrivilegedGroup]): Authorizer {
  return {
    authorize: (user: UserInfo) => (user.groups.some((g) => groups.includes(g)) ? allow : noOpinion),
  };
}
