/**
 * OpenAPI documents derived from the registry, in the shape kube-apiserver serves them: the
 * /openapi/v3 index, one OpenAPI 3.0 document per index entry (kubectl explains fields and checks
 * for the fieldValidation parameter with them), and one Swagger 2.0 document for /openapi/v2, as JSON
 * and in gnostic's protobuf form (the only form client-go asks /openapi/v2 for).
 *
 * Names follow upstream: component schemas `io.k8s.api.<package>.<version>.<Kind>` (kinds and the
 * structs schema.ts `named()` marks), operation ids
 * `<verb><Group><Version>[Namespaced]<Kind>[<Subresource>]`, tags `<group>_<version>`, query parameter
 * names as in ListOptions, DeleteOptions, CreateOptions, UpdateOptions and PatchOptions.
 * A registry never changes while a server runs, so each document is built once, on first use.
 */
import { createHash } from 'node:crypto';
import { isObject } from '../../shared/api/types.ts';
import {
  array,
  atomicArray,
  boolean,
  deleteOptionsSchema,
  describe,
  listMeta,
  listSchema,
  named,
  neverOmitted,
  object,
  objectMeta,
  statusSchema,
  string,
  typeMeta,
  watchEventSchema,
  type Schema,
  type WellKnownType,
} from '../../shared/api/schema.ts';
import type { ResourceDefinition } from '../registry/definition.ts';
import type { GroupVersion, Registry } from '../registry/registry.ts';
import { notAcceptable as notAcceptableError } from '../../shared/api/errors.ts';

/** `info.version`: the release corral follows (app.ts kubernetesVersion) without its build suffix, as upstream trims it. */
const infoVersion = 'v1.32.0';

export type SpecVersion = 'v2' | 'v3';

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/**
 * A schema as both document versions share it. `$ref` holds a component name; rendering turns it into
 * `#/components/schemas/<name>` or `#/definitions/<name>`. `oneOf` exists only in v3 documents.
 */
interface DocSchema extends Omit<Schema, 'properties' | 'additionalProperties' | 'items'> {
  $ref?: string;
  properties?: Record<string, DocSchema>;
  additionalProperties?: DocSchema;
  items?: DocSchema;
  oneOf?: DocSchema[];
  'x-kubernetes-group-version-kind'?: GroupVersionKind[];
}

// ---------------------------------------------------------------------------------------------
// Names

const metaName = (kind: string): string => `io.k8s.apimachinery.pkg.apis.meta.v1.${kind}`;

const names = {
  fieldsV1: metaName('FieldsV1'),
  time: metaName('Time'),
  microTime: metaName('MicroTime'),
  status: metaName('Status'),
  deleteOptions: metaName('DeleteOptions'),
  patch: metaName('Patch'),
  watchEvent: metaName('WatchEvent'),
  apiResourceList: metaName('APIResourceList'),
  apiResource: metaName('APIResource'),
  apiGroupList: metaName('APIGroupList'),
  apiGroup: metaName('APIGroup'),
  apiVersions: metaName('APIVersions'),
  groupVersionForDiscovery: metaName('GroupVersionForDiscovery'),
  serverAddressByClientCIDR: metaName('ServerAddressByClientCIDR'),
  rawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
  quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
  intOrString: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  versionInfo: 'io.k8s.apimachinery.pkg.version.Info',
} as const;

/** Groups whose Go types live outside k8s.io/api, by the package prefix of their schema names. */
const packagePrefixes: Readonly<Record<string, string>> = {
  'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
  'apiregistration.k8s.io': 'io.k8s.kube-aggregator.pkg.apis.apiregistration',
  'internal.apiserver.k8s.io': 'io.k8s.api.apiserverinternal',
};

/** The component schema name of a kind, as upstream's OpenAPI names it (io.k8s.api.core.v1.ConfigMap). */
export function schemaName(group: string, version: string, kind: string): string {
  const prefix = packagePrefixes[group] ?? `io.k8s.api.${group === '' ? 'core' : (group.split('.')[0] ?? group)}`;
  return `${prefix}.${version}.${kind}`;
}

/**
 * Upstream's operation id word for a path segment: letters and `_` kept, digits kept unless first,
 * every other character dropped and the next kept letter upper-cased.
 */
function identifier(text: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  [...text].forEach((ch, i) => {
    if (/\p{L}/u.test(ch) || ch === '_' || (i > 0 && /\p{Nd}/u.test(ch))) {
      out += capitalize ? ch.toUpperCase() : ch;
      capitalize = false;
    } else {
      capitalize = true;
    }
  });
  return out;
}

/** The group's word in operation ids and tags: `core` for the legacy group, `.k8s.io` trimmed. */
const groupWord = (group: string): string => (group === '' ? 'core' : group.replace(/\.k8s\.io$/, ''));

const operationGroupVersion = (gv: GroupVersion): string => identifier(groupWord(gv.group), true) + identifier(gv.version, true);

const groupVersionTag = (gv: GroupVersion): string => `${identifier(groupWord(gv.group), false)}_${identifier(gv.version, false)}`;

const apiPrefix = (gv: GroupVersion): string => (gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`);

/** The /openapi/v3 key of a group version: `api/v1`, `apis/<group>/<version>`. */
const groupVersionKey = (gv: GroupVersion): string => apiPrefix(gv).slice(1);

/** "a"/"an" before a kind; none before a plural-looking kind (Endpoints), as upstream's docs read. */
function article(kind: string): string {
  if (!kind.endsWith('ss') && kind.endsWith('s')) return ' ';
  return /^[aeiouAEIOU]/.test(kind) ? ' an ' : ' a ';
}

const title = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

// ---------------------------------------------------------------------------------------------
// Component schemas

const gvkList = (kind: string, groupVersions: readonly GroupVersion[]): GroupVersionKind[] =>
  groupVersions.map((gv) => ({ group: gv.group, kind, version: gv.version }));

/** The component each well-known type refers to; Duration stays inline, a plain string. */
const wellKnownSchemas: Readonly<Record<WellKnownType, string | undefined>> = {
  Time: names.time,
  MicroTime: names.microTime,
  Quantity: names.quantity,
  IntOrString: names.intOrString,
  FieldsV1: names.fieldsV1,
  RawExtension: names.rawExtension,
  Duration: undefined,
};

/** What a schema holding a reference says about the field rather than the referenced type. */
const fieldKeys = ['description', 'default', 'x-kubernetes-patch-strategy', 'x-kubernetes-patch-merge-key'] as const;

const isFieldKey = (key: string): boolean => (fieldKeys as readonly string[]).includes(key);

function fieldPart(schema: DocSchema): DocSchema {
  const out: DocSchema = {};
  for (const key of fieldKeys) if (schema[key] !== undefined) Object.assign(out, { [key]: schema[key] });
  return out;
}

/** JSON text with object keys sorted, to compare schemas regardless of how they were assembled. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The component schemas of one document version, by name. Converting a definition's schema fills
 * it: every named struct (schema.ts `named()`) becomes a component and a reference to it. One name
 * claimed by two different schemas is an error, raised while the document is built.
 */
export class Components {
  readonly schemas = new Map<string, DocSchema>();
  private readonly texts = new Map<string, string>();

  constructor(readonly version: SpecVersion) {}

  /** Adds a component; throws when a different schema already holds the name. */
  define(name: string, schema: DocSchema): void {
    const text = canonicalJson(schema);
    const previous = this.texts.get(name);
    if (previous === undefined) {
      this.texts.set(name, text);
      this.schemas.set(name, schema);
    } else if (previous !== text) {
      throw new Error(`openapi: two different schemas are named ${name}:\n  ${previous}\n  ${text}`);
    }
  }

  /** Adds extensions (x-kubernetes-group-version-kind) to a defined component. */
  extend(name: string, extensions: Pick<DocSchema, 'x-kubernetes-group-version-kind'>): void {
    const schema = this.schemas.get(name);
    if (!schema) throw new Error(`openapi: no component schema ${name}`);
    this.schemas.set(name, { ...schema, ...extensions });
  }

  /**
   * A definition's schema as a document schema. Well-known types (x-corral-type) and named structs
   * (x-corral-struct) become references, keeping beside the reference what belongs to the field
   * holding them (fieldKeys, and a map type other than the type's own); the rest is the type's.
   */
  convert(schema: Schema): DocSchema {
    const {
      properties,
      additionalProperties,
      items,
      'x-corral-type': wellKnown,
      'x-corral-struct': struct,
      'x-corral-protobuf': _protobuf,
      'x-corral-keep-empty': _keepEmpty,
      ...served
    } = schema;
    const component = wellKnown && wellKnownSchemas[wellKnown];
    if (component) return { ...fieldPart(served), $ref: component };
    const out: DocSchema = { ...served };
    if (properties) out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, this.convert(v)]));
    if (additionalProperties) out.additionalProperties = this.convert(additionalProperties);
    if (items) out.items = this.convert(items);
    if (!struct) return out;
    const { 'x-kubernetes-map-type': mapType, ...rest } = out;
    const typeLevel = Object.fromEntries(Object.entries(rest).filter(([key]) => !isFieldKey(key)));
    this.define(struct.name, {
      description: struct.description,
      ...typeLevel,
      ...(struct.mapType ? { 'x-kubernetes-map-type': struct.mapType } : {}),
    });
    const override = mapType !== undefined && mapType !== struct.mapType ? { 'x-kubernetes-map-type': mapType } : {};
    return { ...fieldPart(rest), ...override, $ref: struct.name };
  }

  /** Defines the components `schema` holds, itself included when it is a named struct. */
  add(schema: Schema): void {
    this.convert(schema);
  }
}

/**
 * The apimachinery types every resource document may refer to. DeleteOptions and WatchEvent are
 * registered in every group version, as upstream lists them.
 */
function addMetaComponents(components: Components, groupVersions: readonly GroupVersion[]): void {
  const everyGroupVersion = [{ group: '', version: 'v1' }, ...groupVersions.filter((gv) => gv.group !== '')];
  for (const schema of [objectMeta(), listMeta(), statusSchema(), deleteOptionsSchema(), watchEventSchema()]) components.add(schema);
  const v3 = components.version === 'v3';
  const wellKnown: Record<string, DocSchema> = {
    [names.fieldsV1]: { description: 'A set of fields as a JSON trie, the form managedFields records ownership in.', type: 'object' },
    [names.time]: { description: 'A point in time as an RFC 3339 string in UTC, to the second.', type: 'string', format: 'date-time' },
    [names.microTime]: { description: 'A point in time as an RFC 3339 string in UTC, to the microsecond.', type: 'string', format: 'date-time' },
    [names.rawExtension]: { description: 'An embedded object of any kind, kept as the JSON it was sent as.', type: 'object' },
    [names.patch]: { description: 'The body of a PATCH request, in the patch format its Content-Type names.', type: 'object' },
    // Upstream's OpenAPIV3OneOfTypes: v3 documents say which JSON types are accepted, v2 only "string".
    [names.quantity]: {
      description: 'A fixed-point amount such as 250m, 1.5Gi or 2e3: a number with an optional decimal (m, k, M, ...) or binary (Ki, Mi, ...) suffix, or an exponent.',
      ...(v3 ? { oneOf: [{ type: 'string' }, { type: 'number' }] } : { type: 'string' }),
    },
    [names.intOrString]: {
      description: 'Either an integer or a string, such as a port number or a port name.',
      format: 'int-or-string',
      ...(v3 ? { oneOf: [{ type: 'integer' }, { type: 'string' }] } : { type: 'string' }),
    },
  };
  for (const [name, schema] of Object.entries(wellKnown)) components.define(name, schema);
  components.extend(names.status, { 'x-kubernetes-group-version-kind': gvkList('Status', [{ group: '', version: 'v1' }]) });
  components.extend(names.deleteOptions, { 'x-kubernetes-group-version-kind': gvkList('DeleteOptions', everyGroupVersion) });
  components.extend(names.watchEvent, { 'x-kubernetes-group-version-kind': gvkList('WatchEvent', everyGroupVersion) });
}

const serverAddresses = (): Schema =>
  describe(
    atomicArray(
      named(
        names.serverAddressByClientCIDR,
        'The address clients in one network should use to reach the server.',
        object(
          {
            clientCIDR: neverOmitted(string('Network of the clients, as a CIDR, this address is meant for.')),
            serverAddress: neverOmitted(string('Address (host or IP, with an optional port) those clients reach the server at.')),
          },
          ['clientCIDR', 'serverAddress'],
        ),
      ),
    ),
    'Addresses clients in given networks should use to reach the server; clients pick the one matching their network, the others any.',
  );

const groupVersionForDiscovery = (): Schema =>
  named(
    names.groupVersionForDiscovery,
    'One version a group serves.',
    object(
      {
        groupVersion: neverOmitted(string('The group and version as <group>/<version>, or just the version for the core group.')),
        version: neverOmitted(string('The version alone, such as v1.')),
      },
      ['groupVersion', 'version'],
    ),
  );

/** The discovery types (/api, /apis, /apis/<group>, /apis/<group>/<version>, /version). */
function addDiscoveryComponents(components: Components): void {
  const apiGroup = named(
    names.apiGroup,
    'An API group with the versions it serves and the one clients should prefer.',
    object(
      {
        ...typeMeta(),
        name: neverOmitted(string('Name of the group, such as storage.k8s.io.')),
        versions: describe(atomicArray(groupVersionForDiscovery()), 'Every version the group serves.'),
        preferredVersion: describe(groupVersionForDiscovery(), 'The version clients should use when they have no preference.'),
        serverAddressByClientCIDRs: serverAddresses(),
      },
      ['name', 'versions'],
    ),
  );
  const apiResource = named(
    names.apiResource,
    'One resource a group version serves: its names, scope, kind and verbs.',
    object(
      {
        name: neverOmitted(string('Plural name of the resource as it appears in URLs, with /<subresource> for subresources.')),
        singularName: neverOmitted(string('Singular name of the resource, which kubectl accepts as well.')),
        namespaced: neverOmitted(boolean('Whether objects of the resource live in namespaces.')),
        group: string('Group of the resource when it differs from the list\'s (some subresources).'),
        version: string('Version of the resource when it differs from the list\'s (some subresources).'),
        kind: neverOmitted(string('Kind of the objects the resource serves.')),
        verbs: describe(array(string()), 'Verbs the resource supports: get, list, watch, create, update, patch, delete, deletecollection.'),
        shortNames: describe(atomicArray(string()), 'Abbreviations kubectl accepts for the resource, such as cm.'),
        categories: describe(atomicArray(string()), 'Groups of resources this one belongs to, such as all.'),
        storageVersionHash: string('Hash of the version objects are stored at; changes when the storage version does. Opaque.'),
      },
      ['name', 'singularName', 'namespaced', 'kind', 'verbs'],
    ),
  );
  const schemas = [
    named(
      names.apiVersions,
      'The versions of the core API group (/api).',
      object(
        {
          ...typeMeta(),
          versions: describe(atomicArray(string()), 'Versions of the core group, such as v1.'),
          serverAddressByClientCIDRs: serverAddresses(),
        },
        ['versions', 'serverAddressByClientCIDRs'],
      ),
    ),
    named(
      names.apiGroupList,
      'The API groups the server serves (/apis).',
      object({ ...typeMeta(), groups: describe(atomicArray(apiGroup), 'Every group served.') }, ['groups']),
    ),
    apiGroup,
    named(
      names.apiResourceList,
      'The resources of one group version (/api/v1, /apis/<group>/<version>).',
      object(
        {
          ...typeMeta(),
          groupVersion: neverOmitted(string('The group version the resources belong to.')),
          resources: describe(atomicArray(apiResource), 'Every resource and subresource of the group version.'),
        },
        ['groupVersion', 'resources'],
      ),
    ),
    named(
      names.versionInfo,
      'The version of the server and how it was built (/version).',
      object(
        {
          major: neverOmitted(string('Major version of the Kubernetes API served.')),
          minor: neverOmitted(string('Minor version of the Kubernetes API served.')),
          gitVersion: neverOmitted(string('Release version, such as v1.32.0.')),
          gitCommit: neverOmitted(string('Source commit the server was built from.')),
          gitTreeState: neverOmitted(string('Whether the source tree was clean or dirty when built.')),
          buildDate: neverOmitted(string('When the server was built, RFC 3339.')),
          goVersion: neverOmitted(string('Compiler or runtime version the server was built with.')),
          compiler: neverOmitted(string('Compiler the server was built with.')),
          platform: neverOmitted(string('Operating system and architecture the server runs on, as <os>/<arch>.')),
        },
        ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'],
      ),
    ),
  ];
  for (const schema of schemas) components.add(schema);
  const core = (kind: string): Pick<DocSchema, 'x-kubernetes-group-version-kind'> => ({
    'x-kubernetes-group-version-kind': gvkList(kind, [{ group: '', version: 'v1' }]),
  });
  for (const kind of ['APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList'] as const) components.extend(metaName(kind), core(kind));
}

// ---------------------------------------------------------------------------------------------
// Kind schemas

function gvkOf(def: ResourceDefinition, kind = def.kind): GroupVersionKind {
  return { group: def.group, kind, version: def.version };
}

/** Defines the kind's schema and its list's, each under its component name. */
function addKindComponents(components: Components, def: ResourceDefinition): void {
  const listKind = `${def.kind}List`;
  const kindName = schemaName(def.group, def.version, def.kind);
  const listName = schemaName(def.group, def.version, listKind);
  const { description = '', ...kind } = def.schema;
  components.add(named(listName, `${listKind} is a list of ${def.kind} objects.`, listSchema(named(kindName, description, kind))));
  components.extend(kindName, { 'x-kubernetes-group-version-kind': [gvkOf(def)] });
  components.extend(listName, { 'x-kubernetes-group-version-kind': [gvkOf(def, listKind)] });
}

// ---------------------------------------------------------------------------------------------
// Operations

interface Parameter {
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
const deleteCollectionParameters = [
  ...deleteParameters,
  ...listParameters.filter((param) => param !== p.watch && param !== p.allowWatchBookmarks),
];

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type Action = 'get' | 'list' | 'put' | 'patch' | 'post' | 'delete' | 'deletecollection' | 'watch' | 'watchlist';

interface Response {
  code: string;
  description: string;
  schema: string;
}

interface Operation {
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
const anyMediaType = ['*/*'];
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
class PathSet {
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
function addResourceOperations(paths: PathSet, def: ResourceDefinition): void {
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

function addGroupVersionDiscovery(paths: PathSet, gv: GroupVersion): void {
  paths.add(`${apiPrefix(gv)}/`, discoveryOperation(`get${operationGroupVersion(gv)}APIResources`, 'get available resources', groupVersionTag(gv), names.apiResourceList));
}

function addGroupDiscovery(paths: PathSet, group: string): void {
  const word = groupWord(group);
  paths.add(`/apis/${group}/`, discoveryOperation(`get${identifier(word, true)}APIGroup`, 'get information of a group', identifier(word, false), names.apiGroup));
}

const addCoreDiscovery = (paths: PathSet): void =>
  paths.add('/api/', discoveryOperation('getCoreAPIVersions', 'get available API versions', 'core', names.apiVersions));

const addGroupsDiscovery = (paths: PathSet): void =>
  paths.add('/apis/', discoveryOperation('getAPIVersions', 'get available API versions', 'apis', names.apiGroupList));

const addVersion = (paths: PathSet): void =>
  paths.add('/version/', discoveryOperation('getCodeVersion', 'get the code version', 'version', names.versionInfo));

// ---------------------------------------------------------------------------------------------
// Rendering

type JsonObject = Record<string, unknown>;

const refPrefix = (version: SpecVersion): string => (version === 'v3' ? '#/components/schemas/' : '#/definitions/');

/**
 * A reference with siblings is wrapped in allOf in v3, where $ref must stand alone, as upstream does.
 * v2 documents carry no defaults: upstream prunes them from /openapi/v2.
 */
function renderSchema(schema: DocSchema, version: SpecVersion): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined || key === '$ref' || key.startsWith('x-corral-') || (key === 'default' && version === 'v2')) continue;
    if (key === 'properties' && schema.properties) {
      out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, renderSchema(v, version)]));
    } else if ((key === 'additionalProperties' || key === 'items') && isObject(value)) {
      out[key] = renderSchema(value, version);
    } else if (key === 'oneOf' && schema.oneOf) {
      out.oneOf = schema.oneOf.map((s) => renderSchema(s, version));
    } else {
      out[key] = value;
    }
  }
  if (schema.$ref === undefined) return out;
  const reference = { $ref: refPrefix(version) + schema.$ref };
  if (Object.keys(out).length === 0) return reference;
  return version === 'v3' ? { allOf: [reference], ...out } : { ...out, $ref: reference.$ref };
}

const parameterKey = (param: Parameter): string => `${param.in}:${param.name}`;

const byName = (a: Parameter, b: Parameter): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Parameters every operation of a path takes move to the path, as upstream's builders do. */
function commonParameters(operations: readonly Operation[]): Set<string> {
  const [first, ...others] = operations;
  const common = new Set((first?.parameters ?? []).map(parameterKey));
  for (const op of others) {
    const keys = new Set(op.parameters.map(parameterKey));
    for (const key of common) if (!keys.has(key)) common.delete(key);
  }
  return common;
}

function renderParameter(param: Parameter, version: SpecVersion): JsonObject {
  const required = param.in === 'path' ? { required: true } : {};
  if (version === 'v2') return { uniqueItems: true, type: param.type, description: param.description, name: param.name, in: param.in, ...required };
  return { name: param.name, in: param.in, description: param.description, ...required, schema: { type: param.type, uniqueItems: true } };
}

function extensions(op: Operation): JsonObject {
  return {
    ...(op.action ? { 'x-kubernetes-action': op.action } : {}),
    ...(op.gvk ? { 'x-kubernetes-group-version-kind': op.gvk } : {}),
  };
}

function renderOperation(op: Operation, common: Set<string>, version: SpecVersion): JsonObject {
  const own = op.parameters.filter((param) => !common.has(parameterKey(param))).sort(byName).map((param) => renderParameter(param, version));
  const schemaRef = (name: string): JsonObject => ({ $ref: refPrefix(version) + name });
  const body = op.body;
  const required = body?.required ? { required: true } : {};
  const responses: JsonObject = {};
  if (version === 'v3') {
    for (const r of op.responses) {
      responses[r.code] = { description: r.description, content: Object.fromEntries(op.produces.map((type) => [type, { schema: schemaRef(r.schema) }])) };
    }
    responses['401'] = { description: 'Unauthorized' };
    return {
      tags: [op.tag],
      description: op.description,
      operationId: op.operationId,
      ...(own.length ? { parameters: own } : {}),
      ...(body ? { requestBody: { content: Object.fromEntries(body.contentTypes.map((type) => [type, { schema: schemaRef(body.schema) }])), ...required } } : {}),
      responses,
      ...extensions(op),
    };
  }
  for (const r of op.responses) responses[r.code] = { description: r.description, schema: schemaRef(r.schema) };
  responses['401'] = { description: 'Unauthorized' };
  const all = [...(body ? [{ name: 'body', in: 'body', ...required, schema: schemaRef(body.schema) }] : []), ...own];
  return {
    description: op.description,
    consumes: [...(body?.contentTypes ?? anyMediaType)],
    produces: [...op.produces],
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
    ...(all.length ? { parameters: all } : {}),
    responses,
    ...extensions(op),
  };
}

function renderPaths(paths: PathSet, version: SpecVersion): JsonObject {
  const out: JsonObject = {};
  for (const path of [...paths.paths.keys()].sort()) {
    const operations = paths.paths.get(path) ?? [];
    const common = commonParameters(operations);
    const item: JsonObject = {};
    for (const op of operations) item[op.method] = renderOperation(op, common, version);
    const shared = (operations[0]?.parameters ?? []).filter((param) => common.has(parameterKey(param))).sort(byName);
    if (shared.length) item.parameters = shared.map((param) => renderParameter(param, version));
    out[path] = item;
  }
  return out;
}

/** Component names a schema refers to. */
function schemaRefs(schema: DocSchema, into: Set<string>): void {
  if (schema.$ref !== undefined) into.add(schema.$ref);
  for (const child of Object.values(schema.properties ?? {})) schemaRefs(child, into);
  if (schema.additionalProperties) schemaRefs(schema.additionalProperties, into);
  if (schema.items) schemaRefs(schema.items, into);
  for (const child of schema.oneOf ?? []) schemaRefs(child, into);
}

/** The components the paths refer to, directly or through other components, rendered and sorted by name. */
function renderComponents(paths: PathSet, components: Components): JsonObject {
  const wanted = new Set<string>();
  for (const operations of paths.paths.values()) {
    for (const op of operations) {
      for (const r of op.responses) wanted.add(r.schema);
      if (op.body) wanted.add(op.body.schema);
    }
  }
  const done = new Set<string>();
  const queue = [...wanted];
  while (queue.length) {
    const name = queue.pop() ?? '';
    if (done.has(name)) continue;
    const schema = components.schemas.get(name);
    if (!schema) throw new Error(`openapi: no component schema ${name}`);
    done.add(name);
    const refs = new Set<string>();
    schemaRefs(schema, refs);
    queue.push(...refs);
  }
  const out: JsonObject = {};
  for (const name of [...done].sort()) out[name] = renderSchema(components.schemas.get(name) ?? {}, components.version);
  return out;
}

const bearerToken = { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' };

function v3Document(paths: PathSet, components: Components): JsonObject {
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: infoVersion },
    paths: renderPaths(paths, 'v3'),
    components: { schemas: renderComponents(paths, components), securitySchemes: { BearerToken: bearerToken } },
  };
}

// ---------------------------------------------------------------------------------------------
// Documents

/** Groups in registration order with their served versions. */
function servedGroups(registry: Registry): Map<string, GroupVersion[]> {
  const out = new Map<string, GroupVersion[]>();
  for (const gv of registry.groupVersions()) {
    if (gv.group === '') continue;
    out.set(gv.group, [...(out.get(gv.group) ?? []), gv]);
  }
  return out;
}

/**
 * Every component the definitions' documents may refer to. Throws when two different schemas claim
 * one component name.
 */
export function resourceComponents(registry: Registry, definitions: readonly ResourceDefinition[], version: SpecVersion): Components {
  const components = new Components(version);
  addMetaComponents(components, registry.groupVersions());
  addDiscoveryComponents(components);
  for (const def of definitions) addKindComponents(components, def);
  return components;
}

function discoveryDocumentComponents(): Components {
  const components = new Components('v3');
  addDiscoveryComponents(components);
  return components;
}

function groupVersionDocument(registry: Registry, gv: GroupVersion): JsonObject {
  const definitions = registry.resourcesOf(gv).map((r) => r.definition);
  const paths = new PathSet();
  addGroupVersionDiscovery(paths, gv);
  for (const def of definitions) addResourceOperations(paths, def);
  return v3Document(paths, resourceComponents(registry, definitions, 'v3'));
}

/** Builds the document of a key that v3Keys lists. */
function buildV3Document(registry: Registry, key: string): JsonObject {
  const paths = new PathSet();
  const [root, group = '', version] = key.split('/');
  if (key === 'api') addCoreDiscovery(paths);
  else if (key === 'apis') addGroupsDiscovery(paths);
  else if (key === 'version') addVersion(paths);
  else if (root === 'api') return groupVersionDocument(registry, { group: '', version: group });
  else if (version !== undefined) return groupVersionDocument(registry, { group, version });
  else addGroupDiscovery(paths, group);
  return v3Document(paths, discoveryDocumentComponents());
}

function buildV2Document(registry: Registry): JsonObject {
  const paths = new PathSet();
  addCoreDiscovery(paths);
  addGroupsDiscovery(paths);
  addVersion(paths);
  for (const [group] of servedGroups(registry)) addGroupDiscovery(paths, group);
  for (const gv of registry.groupVersions()) {
    addGroupVersionDiscovery(paths, gv);
    for (const { definition } of registry.resourcesOf(gv)) addResourceOperations(paths, definition);
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: infoVersion },
    paths: renderPaths(paths, 'v2'),
    definitions: renderComponents(paths, resourceComponents(registry, registry.resources.map((r) => r.definition), 'v2')),
    securityDefinitions: { BearerToken: bearerToken },
    security: [{ BearerToken: [] }],
  };
}

interface DocumentCache {
  v3Keys: ReadonlySet<string>;
  v3: Map<string, object>;
  v3Index?: { paths: Record<string, { serverRelativeURL: string }> };
  v2?: object;
  v2Protobuf?: Buffer;
}

const caches = new WeakMap<Registry, DocumentCache>();

/** The /openapi/v3 keys of a registry: discovery documents, every served group version, version. */
function v3Keys(registry: Registry): string[] {
  const keys = ['api', 'apis', 'version', ...registry.groupVersions().filter((gv) => gv.group === '').map(groupVersionKey)];
  for (const [group, versions] of servedGroups(registry)) keys.push(`apis/${group}`, ...versions.map(groupVersionKey));
  return keys.sort();
}

function cacheOf(registry: Registry): DocumentCache {
  let cache = caches.get(registry);
  if (!cache) {
    cache = { v3Keys: new Set(v3Keys(registry)), v3: new Map() };
    caches.set(registry, cache);
  }
  return cache;
}

/** Documents are frozen: their JSON text and hash are computed once and must stay true. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * The OpenAPI 3.0 document of one /openapi/v3 key (`api/v1`, `apis/storage.k8s.io/v1`, `apis`,
 * `apis/<group>`, `api`, `version`), or undefined when the registry serves no such key. The same
 * frozen object is returned on every call.
 */
export function openApiV3Document(registry: Registry, key: string): object | undefined {
  const cache = cacheOf(registry);
  if (!cache.v3Keys.has(key)) return undefined;
  let doc = cache.v3.get(key);
  if (!doc) {
    doc = deepFreeze(buildV3Document(registry, key));
    cache.v3.set(key, doc);
  }
  return doc;
}

/** The /openapi/v3 index: each key's server-relative URL carries the hash of the document it names. */
export function openApiV3Index(registry: Registry): { paths: Record<string, { serverRelativeURL: string }> } {
  const cache = cacheOf(registry);
  if (!cache.v3Index) {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const key of cache.v3Keys) {
      const doc = openApiV3Document(registry, key);
      if (doc) paths[key] = { serverRelativeURL: v3Url(key, openApiHash(doc)) };
    }
    cache.v3Index = deepFreeze({ paths });
  }
  return cache.v3Index;
}

const v3Url = (key: string, hash: string): string => `/openapi/v3/${key}?hash=${hash}`;

/** The Swagger 2.0 document of everything served (/openapi/v2). The same frozen object on every call. */
export function openApiV2Document(registry: Registry): object {
  const cache = cacheOf(registry);
  cache.v2 ??= deepFreeze(buildV2Document(registry));
  return cache.v2;
}

const serialized = new WeakMap<object, string>();
const hashes = new WeakMap<object, string>();

/** The JSON text of a document, computed once; the bytes served are the bytes hashed. */
export function openApiJson(doc: object): string {
  let text = serialized.get(doc);
  if (text === undefined) {
    text = JSON.stringify(doc);
    serialized.set(doc, text);
  }
  return text;
}

/** Upstream's document hash and ETag: the SHA-512 of the JSON text, upper-case hex. */
export function openApiHash(doc: object): string {
  let hash = hashes.get(doc);
  if (hash === undefined) {
    hash = createHash('sha512').update(openApiJson(doc)).digest('hex').toUpperCase();
    hashes.set(doc, hash);
  }
  return hash;
}

// ---------------------------------------------------------------------------------------------
// gnostic OpenAPIv2 protobuf (github.com/google/gnostic-models/openapiv2/OpenAPIv2.proto)

/** A protobuf message under construction; proto3 rules: default scalars are not written. */
class ProtoWriter {
  private readonly parts: Buffer[] = [];

  private varint(value: bigint): void {
    const bytes: number[] = [];
    let v = BigInt.asUintN(64, value);
    while (v > 127n) {
      bytes.push(Number(v & 127n) | 128);
      v >>= 7n;
    }
    bytes.push(Number(v));
    this.parts.push(Buffer.from(bytes));
  }

  private key(field: number, wireType: number): void {
    this.varint(BigInt(field * 8 + wireType));
  }

  private bytes(field: number, data: Buffer): void {
    this.key(field, 2);
    this.varint(BigInt(data.length));
    this.parts.push(data);
  }

  string(field: number, value: unknown): this {
    if (typeof value === 'string' && value !== '') this.bytes(field, Buffer.from(value, 'utf8'));
    return this;
  }

  /** Repeated strings: every element is written, empty ones included. */
  strings(field: number, values: unknown): this {
    if (Array.isArray(values)) for (const v of values) if (typeof v === 'string') this.bytes(field, Buffer.from(v, 'utf8'));
    return this;
  }

  bool(field: number, value: unknown): this {
    if (value === true) {
      this.key(field, 0);
      this.varint(1n);
    }
    return this;
  }

  /** A bool that is a oneof member: written even when false, because presence carries meaning. */
  oneofBool(field: number, value: boolean): this {
    this.key(field, 0);
    this.varint(value ? 1n : 0n);
    return this;
  }

  int64(field: number, value: unknown): this {
    if (typeof value === 'number' && Number.isInteger(value) && value !== 0) {
      this.key(field, 0);
      this.varint(BigInt(value));
    }
    return this;
  }

  double(field: number, value: unknown): this {
    if (typeof value === 'number' && value !== 0) {
      const data = Buffer.alloc(8);
      data.writeDoubleLE(value);
      this.key(field, 1);
      this.parts.push(data);
    }
    return this;
  }

  /** An embedded message: written even when empty, since its presence is meaningful. */
  message(field: number, inner: ProtoWriter | undefined): this {
    if (inner) this.bytes(field, inner.finish());
    return this;
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** gnostic keeps any JSON value as its YAML text; JSON text is YAML, and clients read it with a YAML parser. */
const pbAny = (value: unknown): ProtoWriter => new ProtoWriter().string(2, JSON.stringify(value));

const pbNamed = (name: string, value: ProtoWriter): ProtoWriter => new ProtoWriter().string(1, name).message(2, value);

/** `x-` keys as NamedAny entries in the given field. */
function pbExtensions(w: ProtoWriter, field: number, obj: JsonObject): void {
  for (const [key, value] of Object.entries(obj)) if (key.startsWith('x-')) w.message(field, pbNamed(key, pbAny(value)));
}

function pbSchema(s: JsonObject): ProtoWriter {
  const w = new ProtoWriter()
    .string(1, s.$ref)
    .string(2, s.format)
    .string(3, s.title)
    .string(4, s.description);
  if ('default' in s) w.message(5, pbAny(s.default));
  w.double(6, s.multipleOf)
    .double(7, s.maximum)
    .bool(8, s.exclusiveMaximum)
    .double(9, s.minimum)
    .bool(10, s.exclusiveMinimum)
    .int64(11, s.maxLength)
    .int64(12, s.minLength)
    .string(13, s.pattern)
    .int64(14, s.maxItems)
    .int64(15, s.minItems)
    .bool(16, s.uniqueItems)
    .int64(17, s.maxProperties)
    .int64(18, s.minProperties)
    .strings(19, s.required);
  if (Array.isArray(s.enum)) for (const v of s.enum) w.message(20, pbAny(v));
  const additional = s.additionalProperties;
  if (isObject(additional)) w.message(21, new ProtoWriter().message(1, pbSchema(additional)));
  else if (typeof additional === 'boolean') w.message(21, new ProtoWriter().oneofBool(2, additional));
  if (typeof s.type === 'string') w.message(22, new ProtoWriter().strings(1, [s.type]));
  else if (Array.isArray(s.type)) w.message(22, new ProtoWriter().strings(1, s.type));
  const items = s.items;
  if (isObject(items)) w.message(23, new ProtoWriter().message(1, pbSchema(items)));
  else if (Array.isArray(items)) w.message(23, items.filter(isObject).reduce((iw, item) => iw.message(1, pbSchema(item)), new ProtoWriter()));
  if (Array.isArray(s.allOf)) for (const sub of s.allOf.filter(isObject)) w.message(24, pbSchema(sub));
  if (isObject(s.properties)) {
    const props = new ProtoWriter();
    for (const [name, sub] of Object.entries(s.properties)) if (isObject(sub)) props.message(1, pbNamed(name, pbSchema(sub)));
    w.message(25, props);
  }
  w.string(26, s.discriminator).bool(27, s.readOnly);
  if ('example' in s) w.message(30, pbAny(s.example));
  pbExtensions(w, 31, s);
  return w;
}

/** A ParametersItem: a reference, a body parameter, or a query/path/header/formData parameter. */
function pbParameter(param: JsonObject): ProtoWriter {
  if (typeof param.$ref === 'string') return new ProtoWriter().message(2, new ProtoWriter().string(1, param.$ref));
  if (param.in === 'body') {
    const body = new ProtoWriter().string(1, param.description).string(2, param.name).string(3, param.in).bool(4, param.required);
    if (isObject(param.schema)) body.message(5, pbSchema(param.schema));
    pbExtensions(body, 6, param);
    return new ProtoWriter().message(1, new ProtoWriter().message(1, body));
  }
  // Query and formData carry allow_empty_value at 5 and start their shared fields at 6; path and header at 5.
  const variant = { header: 1, formData: 2, query: 3, path: 4 }[String(param.in)] ?? 3;
  const base = variant === 2 || variant === 3 ? 6 : 5;
  const sub = new ProtoWriter().bool(1, param.required).string(2, param.in).string(3, param.description).string(4, param.name);
  if (base === 6) sub.bool(5, param.allowEmptyValue);
  sub.string(base, param.type).string(base + 1, param.format).string(base + 3, param.collectionFormat);
  if ('default' in param) sub.message(base + 4, pbAny(param.default));
  sub
    .double(base + 5, param.maximum)
    .bool(base + 6, param.exclusiveMaximum)
    .double(base + 7, param.minimum)
    .bool(base + 8, param.exclusiveMinimum)
    .int64(base + 9, param.maxLength)
    .int64(base + 10, param.minLength)
    .string(base + 11, param.pattern)
    .int64(base + 12, param.maxItems)
    .int64(base + 13, param.minItems)
    .bool(base + 14, param.uniqueItems);
  if (Array.isArray(param.enum)) for (const v of param.enum) sub.message(base + 15, pbAny(v));
  sub.double(base + 16, param.multipleOf);
  pbExtensions(sub, base + 17, param);
  return new ProtoWriter().message(1, new ProtoWriter().message(2, new ProtoWriter().message(variant, sub)));
}

const pbParameters = (w: ProtoWriter, field: number, list: unknown): void => {
  if (Array.isArray(list)) for (const param of list.filter(isObject)) w.message(field, pbParameter(param));
};

function pbOperation(op: JsonObject): ProtoWriter {
  const w = new ProtoWriter()
    .strings(1, op.tags)
    .string(2, op.summary)
    .string(3, op.description)
    .string(5, op.operationId)
    .strings(6, op.produces)
    .strings(7, op.consumes);
  pbParameters(w, 8, op.parameters);
  if (isObject(op.responses)) {
    const responses = new ProtoWriter();
    for (const [code, response] of Object.entries(op.responses)) {
      if (!isObject(response)) continue;
      const r = new ProtoWriter().string(1, response.description);
      if (isObject(response.schema)) r.message(2, new ProtoWriter().message(1, pbSchema(response.schema)));
      pbExtensions(r, 5, response);
      responses.message(1, pbNamed(code, new ProtoWriter().message(1, r)));
    }
    w.message(9, responses);
  }
  w.strings(10, op.schemes).bool(11, op.deprecated);
  pbExtensions(w, 13, op);
  return w;
}

const pathItemMethods = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 } as const;

function pbPathItem(item: JsonObject): ProtoWriter {
  const w = new ProtoWriter().string(1, item.$ref);
  for (const [method, field] of Object.entries(pathItemMethods)) {
    const op = item[method];
    if (isObject(op)) w.message(field, pbOperation(op));
  }
  pbParameters(w, 9, item.parameters);
  pbExtensions(w, 10, item);
  return w;
}

/**
 * The gnostic OpenAPIv2 protobuf form of a Swagger 2.0 document, which client-go (kubectl) asks for
 * with `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`.
 */
export function openApiV2Protobuf(doc: object): Buffer {
  const d: JsonObject = isObject(doc) ? doc : {};
  const w = new ProtoWriter().string(1, d.swagger);
  if (isObject(d.info)) {
    const info = new ProtoWriter().string(1, d.info.title).string(2, d.info.version).string(3, d.info.description).string(4, d.info.termsOfService);
    pbExtensions(info, 7, d.info);
    w.message(2, info);
  }
  w.string(3, d.host).string(4, d.basePath).strings(5, d.schemes).strings(6, d.consumes).strings(7, d.produces);
  if (isObject(d.paths)) {
    const paths = new ProtoWriter();
    pbExtensions(paths, 1, d.paths);
    for (const [path, item] of Object.entries(d.paths)) if (!path.startsWith('x-') && isObject(item)) paths.message(2, pbNamed(path, pbPathItem(item)));
    w.message(8, paths);
  }
  if (isObject(d.definitions)) {
    const definitions = new ProtoWriter();
    for (const [name, schema] of Object.entries(d.definitions)) if (isObject(schema)) definitions.message(1, pbNamed(name, pbSchema(schema)));
    w.message(9, definitions);
  }
  if (isObject(d.parameters)) {
    const params = new ProtoWriter();
    // ParameterDefinitions hold a Parameter, which is a ParametersItem's field 1.
    for (const [name, param] of Object.entries(d.parameters)) if (isObject(param)) params.message(1, pbNamed(name, new ProtoWriter().message(1, pbParameter(param))));
    w.message(10, params);
  }
  if (Array.isArray(d.security)) {
    for (const requirement of d.security.filter(isObject)) {
      const r = new ProtoWriter();
      for (const [name, scopes] of Object.entries(requirement)) r.message(1, pbNamed(name, new ProtoWriter().strings(1, scopes)));
      w.message(12, r);
    }
  }
  if (isObject(d.securityDefinitions)) {
    const defs = new ProtoWriter();
    for (const [name, def] of Object.entries(d.securityDefinitions)) {
      if (!isObject(def)) continue;
      // Only API key schemes (SecurityDefinitionsItem field 2) occur in Kubernetes documents.
      const apiKey = new ProtoWriter().string(1, def.type).string(2, def.name).string(3, def.in).string(4, def.description);
      pbExtensions(apiKey, 5, def);
      defs.message(1, pbNamed(name, new ProtoWriter().message(2, apiKey)));
    }
    w.message(13, defs);
  }
  pbExtensions(w, 16, d);
  return w.finish();
}

/** The protobuf form of a registry's v2 document, computed once. */
function cachedV2Protobuf(registry: Registry): Buffer {
  const cache = cacheOf(registry);
  cache.v2Protobuf ??= openApiV2Protobuf(openApiV2Document(registry));
  return cache.v2Protobuf;
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface OpenApiResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

const v2Protobuf = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const v2Choices = [
  { subtype: 'json', contentType: 'application/json' },
  { subtype: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', contentType: v2Protobuf },
  { subtype: 'com.github.proto-openapi.spec.v2.v1.0+protobuf', contentType: v2Protobuf },
] as const;

interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
}

/** Accept clauses by preference: q first, then the more specific range, as goautoneg orders them. */
function acceptClauses(accept: string | undefined): AcceptClause[] {
  const text = accept && accept.trim() !== '' ? accept : '*/*';
  const clauses: AcceptClause[] = [];
  for (const part of text.split(',')) {
    const [range = '', ...params] = part.split(';');
    const [type = '', subtype = '*'] = range.trim().toLowerCase().split('/');
    let q = 1;
    for (const param of params) {
      const [k, v] = param.split('=');
      if (k?.trim() === 'q') q = Number(v) || 0;
    }
    if (type && q > 0) clauses.push({ type, subtype: subtype.trim(), q });
  }
  const specificity = (c: AcceptClause): number => (c.type === '*' ? 0 : c.subtype === '*' ? 1 : 2);
  return clauses.sort((a, b) => b.q - a.q || specificity(b) - specificity(a));
}

function pickV2(accept: string | undefined): (typeof v2Choices)[number] | undefined {
  for (const clause of acceptClauses(accept)) {
    if (clause.type !== 'application' && clause.type !== '*') continue;
    const choice = v2Choices.find((c) => clause.subtype === '*' || clause.subtype === c.subtype);
    if (choice) return choice;
  }
  return undefined;
}

/** JSON is the only v3 form corral offers; clients that accept only protobuf get a 406. */
function acceptsV3Json(accept: string | undefined): boolean {
  return acceptClauses(accept).some((c) => (c.type === 'application' || c.type === '*') && (c.subtype === 'json' || c.subtype === '*'));
}

const quoted = (hash: string): string => `"${hash}"`;

function withETag(
  status: number,
  body: string | Buffer,
  contentType: string,
  hash: string,
  ifNoneMatch: string | undefined,
  extra: Record<string, string> = {},
): OpenApiResponse {
  const headers = { 'content-type': contentType, etag: quoted(hash), vary: 'Accept', ...extra };
  const tags = (ifNoneMatch ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (tags.includes(quoted(hash)) || tags.includes('*')) return { status: 304, headers, body: '' };
  return { status, headers, body };
}

/**
 * Answers /openapi/v2, /openapi/v3 and /openapi/v3/<key> as kube-apiserver's OpenAPI handlers do:
 * ETag (the document hash) with If-None-Match, a 301 to the current URL when `hash` names another
 * document, long caching when it names this one, 406 when no offered form is acceptable. Returns
 * undefined for other paths and for keys the registry does not serve (the caller answers 404).
 */
export function serveOpenApi(
  registry: Registry,
  url: URL,
  request: { accept?: string | undefined; ifNoneMatch?: string | undefined },
  now: Date = new Date(),
): OpenApiResponse | undefined {
  const path = url.pathname;
  // Upstream answers a bodiless 406 here; like every other failure of corral's, it is a Status.
  const refuse = (offered: readonly string[]): OpenApiResponse => ({
    status: 406,
    headers: { 'content-type': 'application/json', vary: 'Accept' },
    body: JSON.stringify(notAcceptableError(offered).status),
  });
  if (path === '/openapi/v2') {
    const choice = pickV2(request.accept);
    if (!choice) return refuse([...new Set(v2Choices.map((c) => c.contentType))]);
    const doc = openApiV2Document(registry);
    const body = choice.contentType === 'application/json' ? openApiJson(doc) : cachedV2Protobuf(registry);
    return withETag(200, body, choice.contentType, openApiHash(doc), request.ifNoneMatch);
  }
  if (path === '/openapi/v3') {
    const index = openApiV3Index(registry);
    return withETag(200, openApiJson(index), 'application/json', openApiHash(index), request.ifNoneMatch);
  }
  if (!path.startsWith('/openapi/v3/')) return undefined;
  const key = path.slice('/openapi/v3/'.length);
  const doc = openApiV3Document(registry, key);
  if (!doc) return undefined;
  if (!acceptsV3Json(request.accept)) return refuse(['application/json']);
  const hash = openApiHash(doc);
  const asked = url.searchParams.get('hash');
  if (asked && asked !== hash) {
    return { status: 301, headers: { location: v3Url(key, hash), 'content-type': 'text/html; charset=utf-8', vary: 'Accept' }, body: '' };
  }
  const cacheHeaders: Record<string, string> = asked
    ? { 'cache-control': 'public, immutable', expires: new Date(now.getTime() + 365 * 24 * 3600 * 1000).toUTCString() }
    : {};
  return withETag(200, openApiJson(doc), 'application/json', hash, request.ifNoneMatch, cacheHeaders);
}
