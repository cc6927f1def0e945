/**
 * Component schemas: the kinds' schemas (and the named structs within them), the apimachinery meta
 * and discovery types, as both document versions share them. A registry never changes while a
 * server runs, and each document's components are collected once, when it is built (documents.ts).
 */
import { isObject } from '../../../shared/api/types.ts';
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
} from '../../../shared/api/schema.ts';
import type { ResourceDefinition } from '../../registry/definition.ts';
import type { GroupVersion, Registry } from '../../registry/registry.ts';
import { gvkList, gvkOf, metaName, names, schemaName, type GroupVersionKind } from './naming.ts';

export type SpecVersion = 'v2' | 'v3';

/**
 * A schema as both document versions share it. `$ref` holds a component name; rendering turns it into
 * `#/components/schemas/<name>` or `#/definitions/<name>`. `oneOf` exists only in v3 documents.
 */
export interface DocSchema extends Omit<Schema, 'properties' | 'additionalProperties' | 'items'> {
  $ref?: string;
  properties?: Record<string, DocSchema>;
  additionalProperties?: DocSchema;
  items?: DocSchema;
  oneOf?: DocSchema[];
  'x-kubernetes-group-version-kind'?: GroupVersionKind[];
}

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
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
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
      description:
        'A fixed-point amount such as 250m, 1.5Gi or 2e3: a number with an optional decimal (m, k, M, ...) or binary (Ki, Mi, ...) suffix, or an exponent.',
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
        group: string("Group of the resource when it differs from the list's (some subresources)."),
        version: string("Version of the resource when it differs from the list's (some subresources)."),
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

/**
 * Defines the kind's schema and, for kinds that can be listed, its list's, each under its component
 * name (create-only reviews have no list type upstream).
 */
function addKindComponents(components: Components, def: ResourceDefinition): void {
  const kindName = schemaName(def.group, def.version, def.kind);
  const { description = '', ...kind } = def.schema;
  const kindSchema = named(kindName, description, kind);
  if (def.verbs.includes('list')) {
    const listKind = `${def.kind}List`;
    const listName = schemaName(def.group, def.version, listKind);
    components.add(named(listName, `${listKind} is a list of ${def.kind} objects.`, listSchema(kindSchema)));
    components.extend(listName, { 'x-kubernetes-group-version-kind': [gvkOf(def, listKind)] });
  } else {
    components.add(kindSchema);
  }
  components.extend(kindName, { 'x-kubernetes-group-version-kind': [gvkOf(def)] });
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

export function discoveryDocumentComponents(): Components {
  const components = new Components('v3');
  addDiscoveryComponents(components);
  return components;
}
