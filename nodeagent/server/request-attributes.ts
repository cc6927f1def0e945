/**
 * What a request to the node agent's server asks for, in authorization terms, as upstream's
 * nodeAuthorizerAttributesGetter (pkg/kubelet/server/auth.go) derives it: the resource `nodes`
 * named after this node, core group, version v1, the verb from the HTTP method, and a subresource
 * from the path.
 *
 * A request yields one or two attribute sets that differ only in subresource. `/stats`, `/metrics`,
 * `/logs` and `/checkpoint` have their own subresource; anything else is `proxy`. With the
 * KubeletFineGrainedAuthz gate (alpha and off in 1.32, beta and on from 1.33), `/pods`,
 * `/runningpods/`, `/healthz` and `/configz` are first tried as `pods`, `healthz` or `configz`
 * and then, failing that, as `proxy`, so that the broad `nodes/proxy` permission keeps working.
 * Upstream's `/statusz` (1.33) is left out: corral serves no such page.
 */
import type { UserInfo } from '../../shared/delegated-auth/user.ts';

export interface NodeRequestAttributes {
  user: UserInfo;
  verb: string;
  namespace: '';
  apiGroup: '';
  apiVersion: 'v1';
  resource: 'nodes';
  subresource: string;
  name: string;
  path: string;
}

/** The API verb of an HTTP method; methods upstream does not map give the empty verb. */
export function apiVerb(method: string | undefined): string {
  switch (method) {
    case 'POST':
      return 'create';
    case 'GET':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return '';
  }
}

/** Whether `subpath` is `path` or lies under it (a trailing slash on `path` is ignored). */
export function isSubpath(subpath: string, path: string): boolean {
  const base = path.endsWith('/') ? path.slice(0, -1) : path;
  return subpath === base || (subpath.startsWith(base) && subpath[base.length] === '/');
}

/** The subresources tried for `path`, in order. */
export function nodeSubresources(path: string, fineGrainedAuthz: boolean): string[] {
  const subresources: string[] = [];
  if (fineGrainedAuthz) {
    if (isSubpath(path, '/pods')) subresources.push('pods');
    else if (isSubpath(path, '/healthz')) subresources.push('healthz');
    else if (isSubpath(path, '/configz')) subresources.push('configz');
    else if (isSubpath(path, '/runningpods/')) subresources.push('pods');
  }
  if (isSubpath(path, '/stats/')) subresources.push('stats');
  else if (isSubpath(path, '/metrics')) subresources.push('metrics');
  else if (isSubpath(path, '/logs/')) subresources.push('log');
  else if (isSubpath(path, '/checkpoint/')) subresources.push('checkpoint');
  else subresources.push('proxy');
  return subresources;
}

/** The attribute sets to authorize a request with, first to last; the first one allowed admits the request. */
export function nodeRequestAttributes(
  user: UserInfo,
  method: string | undefined,
  path: string,
  nodeName: string,
  fineGrainedAuthz: boolean,
): NodeRequestAttributes[] {
  const verb = apiVerb(method);
  return nodeSubresources(path, fineGrainedAuthz).map((subresource) => ({
    user,
    verb,
    namespace: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'nodes',
    subresource,
    name: nodeName,
    path,
  }));
}
