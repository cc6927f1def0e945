/**
 * Parses a request path into what the rest of the pipeline works with (upstream's RequestInfo):
 * the verb, and for API paths the group, version, namespace, resource, name and subresource.
 */
import { queryBool, tryParseBool } from '../../shared/go/parse-bool.ts';
import { parseFieldSelector, requiresExactFieldMatch, type FieldRequirement } from '../../shared/selectors/fields.ts';
import { isValidPathSegmentName } from '../../shared/validation/names.ts';

export interface RequestInfo {
  path: string;
  /** True for /api/... and /apis/... paths deep enough to name a resource. */
  isResourceRequest: boolean;
  /** Resource verbs (get, list, watch, create, ...) or the lower-case HTTP method otherwise. */
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments from the resource on. */
  parts: string[];
  /**
   * A list, watch or deletecollection whose field selector requires `metadata.name=<name>`: that
   * name, which authorization sees as the request's name (upstream's RequestInfo.Name) so that a
   * node may watch its own Node. Routing still treats the request as one on the collection.
   */
  selectedName: string;
  /**
   * The requirements of a list's, watch's or deletecollection's field selector, when it parses
   * (upstream's Attributes.GetFieldSelector): the Node authorizer lets a node list its own pods.
   */
  fieldSelector?: readonly FieldRequirement[];
}

/** Segments after `namespaces/<ns>/` that are subresources of the namespace itself. */
const namespaceSubresources = new Set(['status', 'finalize']);

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    path,
    isResourceRequest: false,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    selectedName: '',
  };
  let segments = path.split('/').filter((s) => s !== '');
  const prefix = segments[0];
  if (prefix !== 'api' && prefix !== 'apis') return info;
  info.apiPrefix = prefix;
  segments = segments.slice(1);
  if (prefix === 'apis') {
    if (segments.length < 3) return info;
    info.apiGroup = segments[0] ?? '';
    segments = segments.slice(1);
  } else if (segments.length < 2) {
    return info;
  }
  info.apiVersion = segments[0] ?? '';
  segments = segments.slice(1);
  info.isResourceRequest = true;

  if (segments[0] === 'namespaces' && segments.length > 1) {
    info.namespace = segments[1] ?? '';
    if (segments.length > 2 && !namespaceSubresources.has(segments[2] ?? '')) segments = segments.slice(2);
  }
  info.parts = segments;
  if (segments.length >= 3) info.subresource = segments[2] ?? '';
  if (segments.length >= 2) info.name = segments[1] ?? '';
  info.resource = segments[0] ?? '';

  switch (method) {
    case 'POST':
      info.verb = 'create';
      break;
    case 'GET':
    case 'HEAD':
      // ListOptions.watch, read as upstream's parameter conversion reads it (`watch=yes` watches too).
      info.verb = info.name ? 'get' : queryBool(query.get('watch')) ? 'watch' : 'list';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = info.name ? 'delete' : 'deletecollection';
      break;
  }
  if (!info.name && (info.verb === 'list' || info.verb === 'watch' || info.verb === 'deletecollection')) {
    info.selectedName = selectedName(query);
    const requirements = fieldRequirements(query);
    if (requirements) info.fieldSelector = requirements;
  }
  return info;
}

/** The name a field selector requires exactly, when it is a valid path segment (upstream ignores a selector that does not parse). */
function selectedName(query: URLSearchParams): string {
  const text = query.get('fieldSelector');
  if (!text) return '';
  try {
    const name = requiresExactFieldMatch(parseFieldSelector(text), 'metadata.name');
    return name !== undefined && isValidPathSegmentName(name).length === 0 ? name : '';
  } catch {
    return '';
  }
}

function fieldRequirements(query: URLSearchParams): readonly FieldRequirement[] | undefined {
  const text = query.get('fieldSelector');
  if (!text) return undefined;
  try {
    return parseFieldSelector(text).requirements;
  } catch {
    return undefined;
  }
}

/** What authorization asks about: the request, named by its field selector when it names one object. */
export function authorizationAttributes(info: RequestInfo): RequestInfo {
  return info.selectedName ? { ...info, name: info.selectedName } : info;
}

/**
 * Whether a query parameter read with strconv.ParseBool is true (`?pretty`; an invalid value is
 * false, as upstream ignores ParseBool's error there). Options of meta/v1 (`watch`,
 * `allowWatchBookmarks`, `sendInitialEvents`, `force`) are read differently: see queryBool.
 */
export function isTrue(value: string | null): boolean {
  return value !== null && tryParseBool(value) === true;
}
