/**
 * Operations (paths): every route kube-apiserver installs for a kind's verbs and subresources, and
 * the discovery routes, with upstream's operation ids, parameters, request bodies and responses.
 * What is built here is shared by both document versions; render.ts writes it out as each wants.
 */
import type { ResourceDefinition } from '../../registry/definition.ts';
import type { GroupVersion } from '../../registry/registry.ts';
import {
  apiPrefix,
  article,
  groupVersionTag,
  groupWord,
  gvkOf,
  identifier,
  names,
  operationGroupVersion,
  schemaName,
  title,
  type GroupVersionKind,
} from './naming.ts';

export interface Parameter {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'boolean' | 'integer';
  description: string;
}

const query = (name: string, type: Parameter['type'], description: string): Parameter => ({ name, in: 'query', type, description });
const pathParameter = (name: string, description: string): Parameter => ({ name, in: 'path', type: 'string', description });

const parameters = {
  pretty: query('pretty', 'string', "If 'true', the output is pretty printed."),
  dryRun: query('dryRun', 'string', 'When present (All), the request is processed in full but nothing is persisted.'),
  fieldManager: query('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields; at most 128 printable characters.'),
  fieldValidation: query('fieldValidation', 'string', 'How unknown or duplicate fields in the request body are handled: Ignore, Warn (default) or Strict.'),
  force: query('force', 'boolean', 'Apply requests only: take ownership of fields owned by other managers.'),
  labelSelector: query('labelSelector', 'string', 'Restricts the objects to those whose labels match this selector.'),
  fieldSelector: query('fieldSelector', 'string', 'Restricts the objects to those whose fields match this selector.'),
  limit: query('limit', 'integer', 'The most objects to return; the list metadata carries a continue token when more remain.'),
  continue: query('continue', 'string', 'The continue token of the previous page of this list.'),
  resourceVersion: query('resourceVersion', 'string', 'Which resource version the request may be served from.'),
  resourceVersionMatch: query('resourceVersionMatch', 'string', 'How resourceVersion applies to a list: Exact or NotOlderThan.'),
  timeoutSeconds: query('timeoutSeconds', 'integer', 'Ends the list or watch call after this many seconds.'),
  watch: query('watch', 'boolean', 'Streams changes to the selected objects instead of listing them.'),
  allowWatchBookmarks: query('allowWatchBookmarks', 'boolean', 'Asks for BOOKMARK events in a watch.'),
  sendInitialEvents: query('sendInitialEvents', 'boolean', 'Starts a watch with synthetic ADDED events for the current objects.'),
  gracePeriodSeconds: query('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; zero deletes at once.'),
  propagationPolicy: query('propagationPolicy', 'string', 'How dependents are garbage collected: Orphan, Background or Foreground.'),
  orphanDependents: query('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. Whether dependents are orphaned.'),
  ignoreStoreReadErrorWithClusterBreakingPotential: query(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'Deletes an object that cannot be read from storage; may break the cluster.',
  ),
  namespace: pathParameter('namespace', 'The namespace of the objects.'),
} satisfies Record<string, Parameter>;

const p = parameters;
const listParameters = [
  p.allowWatchBookmarks,
  p.continue,
  p.fieldSelector,
  p.labelSelector,
  p.limit,
  p.resourceVersion,
  p.resourceVersionMatch,
  p.sendInitialEvents,
  p.timeoutSeconds,
  p.watch,
];
const writeParameters = [p.dryRun, p.fieldManager, p.fieldValidation];
const patchParameters = [...writeParameters, p.force];
const deleteParameters = [p.dryRun, p.gracePeriodSeconds, p.ignoreStoreReadErrorWithClusterBreakingPotential, p.orphanDependents, p.propagationPolicy];
// DELETE of a collection takes ListOptions too, except watch and allowWatchBookmarks.
const deleteCollectionParameters = [...deleteParameters, ...listParameters.filter((param) => param !== p.watch && param !== p.allowWatchBookmarks)];

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type Action = 'get' | 'list' | 'put' | 'patch' | 'post' | 'delete' | 'deletecollection' | 'watch' | 'watchlist';

export interface Response {
  code: string;
  description: string;
  schema: string;
}

export interface Operation {
  method: Method;
  operationId: string;
  description: string;
  tag: string;
  action?: Action;
  gvk?: GroupVersionKind;
  parameters: Parameter[];
  body?: { schema: string; required: boolean; contentTypes: readonly string[] };
  responses: readonly Response[];
  produces: readonly string[];
}

/** What corral answers in: no protobuf, unlike kube-apiserver, so none is advertised. */
const objectMediaTypes = ['application/json', 'application/yaml'];
const streamMediaTypes = ['application/json', 'application/json;stream=watch', 'application/yaml'];
export const anyMediaType = ['*/*'];
const patchMediaTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

const ok = (schema: string): Response => ({ code: '200', description: 'OK', schema });
const created = (schema: string): Response => ({ code: '201', description: 'Created', schema });
const accepted = (schema: string): Response => ({ code: '202', description: 'Accepted', schema });

/** Paths of one document in build order; rendering sorts them. */
export class PathSet {
  readonly paths = new Map<string, Operation[]>();

  add(path: string, operation: Operation): void {
    const operations = this.paths.get(path) ?? [];
    operations.push(operation);
    this.paths.set(path, operations);
  }
}

interface Route {
  path: string;
  method: Method;
  /** The operation id after `<verb><Group><Version>`. */
  verb: string;
  subject: string;
  action: Action;
  description: string;
  parameters: readonly Parameter[];
  responses: readonly Response[];
  body?: Operation['body'];
  produces?: readonly string[];
}

/** Every route kube-apiserver installs for a kind's verbs and subresources, deprecated watch paths included. */
export function addResourceOperations(paths: PathSet, def: ResourceDefinition): void {
  const gv = { group: def.group, version: def.version };
  const prefix = apiPrefix(gv);
  const kind = def.kind;
  const kindSchema = schemaName(def.group, def.version, kind);
  const listSchema = schemaName(def.group, def.version, `${kind}List`);
  const can = (verb: (typeof def.verbs)[number]): boolean => def.verbs.includes(verb);
  // Routes under /namespaces/{namespace}/ say "Namespaced" in their operation ids; all-namespaces routes do not.
  const scope = def.namespaced ? 'Namespaced' : '';
  const namespacePath = def.namespaced ? 'namespaces/{namespace}/' : '';
  const collection = `${prefix}/${namespacePath}${def.plural}`;
  const watchCollection = `${prefix}/watch/${namespacePath}${def.plural}`;
  const scopeParameters = def.namespaced ? [p.namespace] : [];
  const itemParameters = [pathParameter('name', `name of the ${kind}`), ...scopeParameters];
  const writeBody = { schema: kindSchema, required: true, contentTypes: anyMediaType };
  const patchBody = { schema: names.patch, required: true, contentTypes: patchMediaTypes };
  const deleteBody = { schema: names.deleteOptions, required: false, contentTypes: anyMediaType };
  const deleted = def.deleteReturnsObject ? kindSchema : names.status;
  const add = (route: Route): void =>
    paths.add(route.path, {
      method: route.method,
      operationId: `${route.verb}${operationGroupVersion(gv)}${route.subject}`,
      description: route.description,
      tag: groupVersionTag(gv),
      action: route.action,
      gvk: gvkOf(def),
      parameters: [...route.parameters, p.pretty],
      responses: route.responses,
      produces: route.produces ?? objectMediaTypes,
      ...(route.body ? { body: route.body } : {}),
    });

  /** GET, PUT and PATCH of one object or of one of its subresources. */
  const objectRoutes = (path: string, subresource: string, verbs: readonly string[]): void => {
    const subject = `${scope}${kind}${title(subresource)}`;
    const what = `${subresource ? `${subresource} of ` : ''}the specified ${kind}`;
    if (verbs.includes('get')) {
      add({ path, method: 'get', verb: 'read', subject, action: 'get', description: `read ${what}`, parameters: itemParameters, responses: [ok(kindSchema)] });
    }
    if (verbs.includes('update')) {
      add({
        path,
        method: 'put',
        verb: 'replace',
        subject,
        action: 'put',
        description: `replace ${what}`,
        parameters: [...itemParameters, ...writeParameters],
        responses: [ok(kindSchema), created(kindSchema)],
        body: writeBody,
      });
    }
    if (verbs.includes('patch')) {
      add({
        path,
        method: 'patch',
        verb: 'patch',
        subject,
        action: 'patch',
        description: `partially update ${what}`,
        parameters: [...itemParameters, ...patchParameters],
        responses: [ok(kindSchema), created(kindSchema)],
        body: patchBody,
      });
    }
  };

  if (can('list')) {
    const list = {
      method: 'get',
      verb: 'list',
      action: 'list',
      description: can('watch') ? `list or watch objects of kind ${kind}` : `list objects of kind ${kind}`,
      responses: [ok(listSchema)],
      produces: streamMediaTypes,
    } as const;
    add({ ...list, path: collection, subject: `${scope}${kind}`, parameters: [...scopeParameters, ...listParameters] });
    if (def.namespaced) add({ ...list, path: `${prefix}/${def.plural}`, subject: `${kind}ForAllNamespaces`, parameters: listParameters });
  }
  if (can('create')) {
    add({
      path: collection,
      method: 'post',
      verb: 'create',
      subject: `${scope}${kind}`,
      action: 'post',
      description: `create${article(kind)}${kind}`,
      parameters: [...scopeParameters, ...writeParameters],
      responses: [ok(kindSchema), created(kindSchema), accepted(kindSchema)],
      body: writeBody,
    });
  }
  if (can('deletecollection')) {
    add({
      path: collection,
      method: 'delete',
      verb: 'delete',
      subject: `Collection${scope}${kind}`,
      action: 'deletecollection',
      description: `delete collection of ${kind}`,
      parameters: [...scopeParameters, ...deleteCollectionParameters],
      responses: [ok(names.status)],
      body: deleteBody,
    });
  }
  objectRoutes(`${collection}/{name}`, '', def.verbs);
  if (can('delete')) {
    add({
      path: `${collection}/{name}`,
      method: 'delete',
      verb: 'delete',
      subject: `${scope}${kind}`,
      action: 'delete',
      description: `delete${article(kind)}${kind}`,
      parameters: [...itemParameters, ...deleteParameters],
      responses: [ok(deleted), accepted(deleted)],
      body: deleteBody,
    });
  }
  for (const [name, subresource] of Object.entries(def.subresources ?? {})) {
    objectRoutes(`${collection}/{name}/${name}`, name, subresource.verbs);
  }
  if (can('watch')) {
    const deprecated = "deprecated: use the 'watch' parameter with a list operation instead";
    const watch = { method: 'get', verb: 'watch', responses: [ok(names.watchEvent)], produces: streamMediaTypes } as const;
    const watchList = { ...watch, action: 'watchlist', description: `watch individual changes to a list of ${kind}. ${deprecated}.` } as const;
    add({ ...watchList, path: watchCollection, subject: `${scope}${kind}List`, parameters: [...scopeParameters, ...listParameters] });
    add({
      ...watch,
      path: `${watchCollection}/{name}`,
      subject: `${scope}${kind}`,
      action: 'watch',
      description: `watch changes to an object of kind ${kind}. ${deprecated}, filtered to a single item with the 'fieldSelector' parameter.`,
      parameters: [...itemParameters, ...listParameters],
    });
    if (def.namespaced) add({ ...watchList, path: `${prefix}/watch/${def.plural}`, subject: `${kind}ListForAllNamespaces`, parameters: listParameters });
  }
}

/** A discovery route: GET, no parameters, no Kubernetes extensions. */
function discoveryOperation(operationId: string, description: string, tag: string, schema: string): Operation {
  return { method: 'get', operationId, description, tag, parameters: [], responses: [ok(schema)], produces: objectMediaTypes };
}

export function addGroupVersionDiscovery(paths: PathSet, gv: GroupVersion): void {
  paths.add(
    `${apiPrefix(gv)}/`,
    discoveryOperation(`get${operationGroupVersion(gv)}APIResources`, 'get available resources', groupVersionTag(gv), names.apiResourceList),
  );
}

export function addGroupDiscovery(paths: PathSet, group: string): void {
  const word = groupWord(group);
  paths.add(
    `/apis/${group}/`,
    discoveryOperation(`get${identifier(word, true)}APIGroup`, 'get information of a group', identifier(word, false), names.apiGroup),
  );
}

export const addCoreDiscovery = (paths: PathSet): void =>
  paths.add('/api/', discoveryOperation('getCoreAPIVersions', 'get available API versions', 'core', names.apiVersions));

export const addGroupsDiscovery = (paths: PathSet): void =>
  paths.add('/apis/', discoveryOperation('getAPIVersions', 'get available API versions', 'apis', names.apiGroupList));

export const addVersion = (paths: PathSet): void =>
  paths.add('/version/', discoveryOperation('getCodeVersion', 'get the code version', 'version', names.versionInfo));
