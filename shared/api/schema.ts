/**
 * Kind schemas in OpenAPI v3 form. A kind's schema is the one source of truth for its shape: the
 * decoder checks types and finds unknown fields with it, and OpenAPI, apply merge rules and protobuf
 * read it too. Build schemas with the helpers below so that every kind spells the same types alike.
 */

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema;
  items?: Schema;
  required?: string[];
  enum?: string[];
  default?: unknown;
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-embedded-resource'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  /**
   * How this property is encoded in protobuf (corral's own marker, never served in OpenAPI): its
   * field number in upstream's generated.proto, and whether Go holds it in a pointer (`optional`:
   * encoded only when set, an explicit zero included; other scalars are always encoded, as gogo's
   * non-nullable fields are). `embedded` places the property in a struct Go embeds with
   * `json:",inline"` (see `embedded()`): the field numbers, outermost first, of the nested messages
   * that hold it; `field` then counts within the innermost. `keepZero` marks a non-pointer scalar
   * whose Go JSON tag lacks omitempty (VolumeAttachmentStatus.attached): its zero is a value, which
   * decoding keeps.
   */
  'x-corral-protobuf'?: { field: number; optional?: true; keepZero?: true; embedded?: number[] };
  /** An empty list here means something (managedFields: [] resets ownership): decoding keeps it. */
  'x-corral-keep-empty'?: true;
  /** Well-known types whose protobuf form differs from their JSON shape (and whose OpenAPI is a $ref). */
  'x-corral-type'?: WellKnownType;
  /**
   * A struct upstream's OpenAPI serves as a component of its own (see `named()`): `name` is the
   * component's name and `description` the type's, while the schema's own `description` describes
   * the field holding it. `mapType` is the type's own `x-kubernetes-map-type`, told apart from a
   * field's override (PersistentVolumeSpec.claimRef: granular).
   */
  'x-corral-struct'?: { name: string; description: string; mapType?: 'atomic' | 'granular' };
}

export type WellKnownType = 'Time' | 'MicroTime' | 'Quantity' | 'IntOrString' | 'FieldsV1' | 'RawExtension' | 'Duration';

/**
 * Gives a property its protobuf field number (upstream's generated.proto); `optional` for fields
 * Go declares as pointers, `keepZero` for non-pointer scalars whose JSON tag has no omitempty.
 * Every property of every kind carries one.
 */
export function pb(field: number, schema: Schema, presence?: 'optional' | 'keepZero'): Schema {
  const marker = presence === 'optional' ? { field, optional: true as const } : presence === 'keepZero' ? { field, keepZero: true as const } : { field };
  return { ...schema, 'x-corral-protobuf': marker };
}

/**
 * The properties of a struct Go embeds with `json:",inline"` (PersistentVolumeSpec's
 * PersistentVolumeSource, Volume's VolumeSource, Probe's ProbeHandler): flattened into the parent in
 * JSON, but in protobuf a nested message under the parent's field `field`, always written, whose
 * properties keep their own numbers. Spread the result into the parent's properties.
 */
export function embedded(field: number, properties: Record<string, Schema>): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const [name, property] of Object.entries(properties)) {
    const marker = property['x-corral-protobuf'];
    if (!marker) throw new Error(`embedded: property "${name}" has no protobuf field number`);
    out[name] = { ...property, 'x-corral-protobuf': { ...marker, embedded: [field, ...(marker.embedded ?? [])] } };
  }
  return out;
}

/** A field's or a kind's description, served in OpenAPI (kubectl explain prints it). */
export function describe(schema: Schema, description: string): Schema {
  return { ...schema, description };
}

/** Upstream's `+default=` marker: the value a field takes when absent. */
export function defaulted(schema: Schema, value: unknown): Schema {
  return { ...schema, default: value };
}

/**
 * A plain scalar Go never omits (no omitempty), with the zero upstream's OpenAPI gives it as
 * default, where the property is not marked `keepZero` (meta/v1 and volume source types, discovery).
 */
export function neverOmitted(schema: Schema): Schema {
  const zero = scalarZero(schema);
  if (zero === undefined) throw new Error('neverOmitted: not a plain scalar');
  return defaulted(schema, zero);
}

/**
 * A struct upstream's OpenAPI serves as a component of its own, under its Go type's name
 * (`io.k8s.api.core.v1.Taint`), and refers to with $ref wherever it is used. Build each named struct
 * in one builder and call that everywhere: two different schemas claiming one name fail the OpenAPI
 * build. An `x-kubernetes-map-type` on `schema` is the type's own (`+structType` on the Go type).
 */
export function named(name: string, description: string, schema: Schema): Schema {
  const mapType = schema['x-kubernetes-map-type'];
  return { ...schema, 'x-corral-struct': { name, description, ...(mapType ? { mapType } : {}) } };
}

const withDescription = (schema: Schema, description: string | undefined): Schema => (description ? { ...schema, description } : schema);

export const string = (description?: string): Schema => withDescription({ type: 'string' }, description);
export const bytes = (description?: string): Schema => withDescription({ type: 'string', format: 'byte' }, description);
export const boolean = (description?: string): Schema => withDescription({ type: 'boolean' }, description);
export const int32 = (description?: string): Schema => withDescription({ type: 'integer', format: 'int32' }, description);
export const int64 = (description?: string): Schema => withDescription({ type: 'integer', format: 'int64' }, description);
export const number = (description?: string): Schema => withDescription({ type: 'number', format: 'double' }, description);
/** metav1.Time: RFC 3339 at second precision. */
export const time = (description?: string): Schema => withDescription({ type: 'string', format: 'date-time', 'x-corral-type': 'Time' }, description);
/** metav1.MicroTime: RFC 3339 with microseconds. */
export const microTime = (description?: string): Schema => withDescription({ type: 'string', format: 'date-time', 'x-corral-type': 'MicroTime' }, description);
/** metav1.Duration: a Go duration string such as `1h0m0s`. */
export const duration = (description?: string): Schema => withDescription({ type: 'string', 'x-corral-type': 'Duration' }, description);
/** resource.Quantity: a string or a number on the wire. */
export const quantity = (description?: string): Schema => withDescription({ 'x-kubernetes-int-or-string': true, 'x-corral-type': 'Quantity' }, description);
export const intOrString = (description?: string): Schema =>
  withDescription({ 'x-kubernetes-int-or-string': true, 'x-corral-type': 'IntOrString' }, description);

/** The zero value of a plain JSON scalar; undefined for byte strings, well-known types and the rest. */
function scalarZero(schema: Schema): string | number | boolean | undefined {
  if (schema['x-corral-type'] || schema['x-kubernetes-int-or-string']) return undefined;
  if (schema.type === 'string') return schema.format === 'byte' ? undefined : '';
  if (schema.type === 'integer' || schema.type === 'number') return 0;
  if (schema.type === 'boolean') return false;
  return undefined;
}

/**
 * The default upstream's OpenAPI gives a value Go never omits (kube-openapi's rule): `{}` for a
 * struct held by value, and, when `scalars`, the zero of a plain scalar. Types with a JSON form of
 * their own (Time, Quantity, byte strings) get none, and an explicit default stays.
 */
function withImplicitDefault(schema: Schema, scalars: boolean): Schema {
  if (schema.default !== undefined) return schema;
  let zero: unknown;
  if (schema['x-corral-struct']) zero = schema['x-corral-protobuf']?.optional ? undefined : {};
  else if (scalars) zero = scalarZero(schema);
  return zero === undefined ? schema : { ...schema, default: zero };
}

/**
 * A struct. Properties Go never omits get upstream's implicit defaults: structs held by value, and
 * scalars marked `keepZero` (no omitempty). `properties` itself is kept when no default is added,
 * so that a recursive schema can fill it in afterwards.
 */
export function object(properties: Record<string, Schema>, required?: string[]): Schema {
  const entries = Object.entries(properties).map(([name, property]): [string, Schema] => [
    name,
    withImplicitDefault(property, property['x-corral-protobuf']?.keepZero === true),
  ]);
  const changed = entries.some(([name, property]) => property !== properties[name]);
  return { type: 'object', properties: changed ? Object.fromEntries(entries) : properties, ...(required?.length ? { required } : {}) };
}

/** A map from strings to `values`; scalar and struct values get upstream's implicit defaults. */
export function map(values: Schema, description?: string): Schema {
  return withDescription({ type: 'object', additionalProperties: withImplicitDefault(values, true) }, description);
}

/** A list of `items`; scalar and struct items get upstream's implicit defaults. */
export function array(
  items: Schema,
  extensions: Pick<Schema, 'x-kubernetes-list-type' | 'x-kubernetes-list-map-keys' | 'x-kubernetes-patch-strategy' | 'x-kubernetes-patch-merge-key'> = {},
): Schema {
  return { type: 'array', items: withImplicitDefault(items, true), ...extensions };
}

/** A list merged by key fields (listType=map), as upstream's `+listType=map +listMapKey=...`. */
export function keyedArray(items: Schema, keys: string[]): Schema {
  return array(items, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys });
}

/** A list of conditions or addresses: `+listType=map +listMapKey=type +patchStrategy=merge +patchMergeKey=type`. */
export function mergedByType(items: Schema): Schema {
  return array(items, {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    'x-kubernetes-patch-strategy': 'merge',
    'x-kubernetes-patch-merge-key': 'type',
  });
}

export function atomicArray(items: Schema): Schema {
  return array(items, { 'x-kubernetes-list-type': 'atomic' });
}

export function setArray(items: Schema): Schema {
  return array(items, { 'x-kubernetes-list-type': 'set' });
}

/**
 * Upstream's `patchStrategy:"merge"` struct tag (with `patchMergeKey` for lists of objects) on a
 * list field: strategic merge patches merge the list, objects by the merge key's value and scalars
 * as a set, instead of replacing it. Wraps the list's schema, keeping its other markers.
 */
export function patchMerge(list: Schema, mergeKey?: string): Schema {
  return { ...list, 'x-kubernetes-patch-strategy': 'merge', ...(mergeKey ? { 'x-kubernetes-patch-merge-key': mergeKey } : {}) };
}

/** Any JSON value kept as is (runtime.RawExtension and friends). */
export const anyValue = (description?: string): Schema =>
  withDescription({ 'x-kubernetes-preserve-unknown-fields': true, 'x-corral-type': 'RawExtension' }, description);
/** metav1.FieldsV1: the managed fields tree, raw JSON. */
export const fieldsV1 = (description?: string): Schema =>
  withDescription({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-corral-type': 'FieldsV1' }, description);

const metaName = (kind: string): string => `io.k8s.apimachinery.pkg.apis.meta.v1.${kind}`;

/** TypeMeta's fields, inlined into every kind, list, Status and DeleteOptions. */
export const typeMeta = (): Record<string, Schema> => ({
  apiVersion: string('Version of the schema the object follows: v1 for the core group, <group>/<version> for the others.'),
  kind: string('Type of the object in CamelCase, such as ConfigMap; the server infers it from the request URL when absent.'),
});

/** metav1.OwnerReference. Field numbers and pointer-ness as upstream's meta/v1 generated.proto and types.go. */
export const ownerReference = (): Schema =>
  named(metaName('OwnerReference'), 'Names an object this one belongs to. The owner must be in the same namespace or cluster scoped.', {
    ...object(
      {
        apiVersion: pb(5, neverOmitted(string('API version of the owner.'))),
        kind: pb(1, neverOmitted(string('Kind of the owner.'))),
        name: pb(3, neverOmitted(string('Name of the owner.'))),
        uid: pb(4, neverOmitted(string('UID of the owner; the reference no longer holds once no object with this UID exists.'))),
        controller: pb(6, boolean('True when the owner is the controller managing this object; at most one reference may say so.'), 'optional'),
        blockOwnerDeletion: pb(7, boolean('When true, a foreground deletion of the owner waits until this object is gone.'), 'optional'),
      },
      ['apiVersion', 'kind', 'name', 'uid'],
    ),
    'x-kubernetes-map-type': 'atomic',
  });

export const managedFieldsEntry = (): Schema =>
  named(
    metaName('ManagedFieldsEntry'),
    'The fields one field manager owns through one operation, at one API version.',
    object({
      manager: pb(1, string("Name of the field manager: the request's fieldManager, or a name derived from its user agent.")),
      operation: pb(2, string('How the fields were last written: Apply or Update.')),
      apiVersion: pb(3, string('API version the field set is expressed in; ownership is tracked per version.')),
      time: pb(4, time('When this entry last changed, to the second.'), 'optional'),
      fieldsType: pb(6, string('Format of fieldsV1; always FieldsV1.')),
      fieldsV1: pb(7, fieldsV1('The owned fields, as a trie of f:<field>, k:<key>, v:<value> and i:<index> entries.'), 'optional'),
      subresource: pb(8, string('Subresource the fields were written through, such as status; empty for the object itself.')),
    }),
  );

export const objectMeta = (): Schema =>
  named(
    metaName('ObjectMeta'),
    'Metadata every stored object carries: identity, labels and annotations, ownership and lifecycle.',
    object({
      name: pb(
        1,
        string('Name of the object, unique per kind within its namespace (or the cluster). Required on create unless generateName is set; cannot change.'),
      ),
      generateName: pb(2, string('Prefix the server completes with random characters into a unique name when name is empty.')),
      namespace: pb(3, string('Namespace of the object; empty for cluster-scoped kinds. Defaults to the namespace of the request; cannot change.')),
      selfLink: pb(4, string('Deprecated: no longer set by the server.')),
      uid: pb(5, string("Identifier the server assigns on creation, unique over the cluster's lifetime. Read-only.")),
      resourceVersion: pb(
        6,
        string('Opaque version of the object, changed by every write; send it back for optimistic concurrency or to start a watch. Read-only.'),
      ),
      generation: pb(7, int64('Sequence number of changes to the desired state, set by the server. Read-only.')),
      creationTimestamp: pb(8, time('When the server created the object, in UTC. Read-only.')),
      deletionTimestamp: pb(9, time('When deletion was requested; the object remains until its finalizers are done. Set by the server.'), 'optional'),
      deletionGracePeriodSeconds: pb(10, int64('Seconds the object was allowed for graceful termination when deletion was requested. Read-only.'), 'optional'),
      labels: pb(11, map(string(), 'Key/value pairs that identify and group objects; label selectors match them.')),
      annotations: pb(12, map(string(), 'Key/value pairs for tools and controllers to store data in; not used for selection.')),
      ownerReferences: pb(
        13,
        describe(
          patchMerge(keyedArray(ownerReference(), ['uid']), 'uid'),
          'Objects this one depends on; the garbage collector deletes it once every owner is gone. At most one owner is its controller.',
        ),
      ),
      finalizers: pb(
        14,
        describe(
          patchMerge(setArray(string())),
          'Cleanup steps that must finish before a deleted object is removed; each is removed by the controller that does it.',
        ),
      ),
      // An explicit empty list resets ownership (upstream), so decoding must not drop it.
      managedFields: pb(17, {
        ...describe(atomicArray(managedFieldsEntry()), 'Field ownership the server records for server-side apply; clients rarely need to read or set it.'),
        'x-corral-keep-empty': true,
      }),
    }),
  );

/** core/v1 ObjectReference. */
export const objectReference = (): Schema =>
  named('io.k8s.api.core.v1.ObjectReference', 'Identifies an object, or a field inside it, by kind, namespace, name and optionally UID and version.', {
    ...object({
      kind: pb(1, string('Kind of the referenced object.')),
      namespace: pb(2, string('Namespace of the referenced object; empty for cluster-scoped kinds.')),
      name: pb(3, string('Name of the referenced object.')),
      uid: pb(4, string('UID of the referenced object.')),
      apiVersion: pb(5, string('API version of the referenced object.')),
      resourceVersion: pb(6, string('Resource version of the referenced object the reference was made for, if it matters.')),
      fieldPath: pb(7, string('Path of a field inside the object, such as spec.containers{app}, when the reference is to part of it.')),
    }),
    'x-kubernetes-map-type': 'atomic',
  });

export const labelSelectorRequirement = (): Schema =>
  named(
    metaName('LabelSelectorRequirement'),
    'One condition on a label: a key, an operator and the values it compares with.',
    object(
      {
        key: pb(1, neverOmitted(string('Label key the condition applies to.'))),
        operator: pb(2, neverOmitted(string('In, NotIn, Exists or DoesNotExist.'))),
        values: pb(3, describe(atomicArray(string()), 'Values for In and NotIn, at least one; empty for Exists and DoesNotExist.')),
      },
      ['key', 'operator'],
    ),
  );

export const labelSelector = (): Schema =>
  named(
    metaName('LabelSelector'),
    'Selects objects by their labels: all of matchLabels and matchExpressions must hold. An empty selector selects everything.',
    {
      ...object({
        matchLabels: pb(1, map(string(), 'Labels an object must carry with exactly these values.')),
        matchExpressions: pb(2, describe(atomicArray(labelSelectorRequirement()), 'Conditions on labels an object must all meet.')),
      }),
      'x-kubernetes-map-type': 'atomic',
    },
  );

/** core/v1 NodeSelectorRequirement. */
export const nodeSelectorRequirement = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeSelectorRequirement',
    'One condition on a node label or field: a key, an operator and the values it compares with.',
    object(
      {
        key: pb(1, neverOmitted(string('Label key, or field name in matchFields.'))),
        operator: pb(2, neverOmitted(string('In, NotIn, Exists, DoesNotExist, Gt or Lt.'))),
        values: pb(
          3,
          describe(
            atomicArray(string()),
            'Values to compare with: one or more for In and NotIn, a single integer for Gt and Lt, none for Exists and DoesNotExist.',
          ),
        ),
      },
      ['key', 'operator'],
    ),
  );

export const nodeSelectorTerm = (): Schema =>
  named('io.k8s.api.core.v1.NodeSelectorTerm', 'Conditions a node must all meet; a term without any matches no node.', {
    ...object({
      matchExpressions: pb(1, describe(atomicArray(nodeSelectorRequirement()), 'Conditions on node labels.')),
      matchFields: pb(2, describe(atomicArray(nodeSelectorRequirement()), 'Conditions on node fields; metadata.name is the only field supported.')),
    }),
    'x-kubernetes-map-type': 'atomic',
  });

export const nodeSelector = (): Schema =>
  named('io.k8s.api.core.v1.NodeSelector', 'Selects nodes: a node matches when it meets any one of the terms.', {
    ...object({ nodeSelectorTerms: pb(1, describe(atomicArray(nodeSelectorTerm()), 'Alternatives, any of which a node may meet; required.')) }, [
      'nodeSelectorTerms',
    ]),
    'x-kubernetes-map-type': 'atomic',
  });

/**
 * The top-level schema of a kind: apiVersion, kind, metadata plus the kind's own fields. apiVersion
 * and kind carry no field number: in protobuf they travel in the runtime.Unknown envelope, and a
 * kind's own message starts with metadata as field 1. Describe the kind with `describe()`.
 */
export function kindSchema(fields: Record<string, Schema>, required?: string[]): Schema {
  return object(
    {
      ...typeMeta(),
      metadata: pb(1, describe(objectMeta(), 'Name, namespace, labels, annotations and the other metadata every object carries.')),
      ...fields,
    },
    required,
  );
}

export const listMeta = (): Schema =>
  named(
    metaName('ListMeta'),
    'Metadata of a list: the version it was read at and where the next page starts.',
    object({
      selfLink: pb(1, string('Deprecated: no longer set by the server.')),
      resourceVersion: pb(2, string('Version of the data the list was read at; a watch started from it sees every later change.')),
      continue: pb(3, string('Token to request the next page when the list was limited; empty on the last page. It expires when etcd compacts that version.')),
      remainingItemCount: pb(4, int64('Number of objects after this page, when the server knows it; an estimate if the list is not consistent.'), 'optional'),
    }),
  );

/** A kind's list (`ConfigMapList`): list metadata and the items, each without apiVersion and kind. */
export function listSchema(item: Schema): Schema {
  return object(
    {
      ...typeMeta(),
      metadata: pb(1, describe(listMeta(), 'Resource version and paging state of the list.')),
      items: pb(2, describe(array(item), 'The objects of the list.')),
    },
    ['items'],
  );
}

/** meta/v1 PartialObjectMetadata (`as=PartialObjectMetadata`): an object's metadata alone. */
export const partialObjectMetadataSchema = (): Schema => kindSchema({});

export const partialObjectMetadataListSchema = (): Schema => listSchema(partialObjectMetadataSchema());

export const statusCause = (): Schema =>
  named(
    metaName('StatusCause'),
    'One reason a request failed, about one field when field is set.',
    object({
      reason: pb(1, string('Machine-readable cause, such as FieldValueRequired; may be empty.')),
      message: pb(2, string('Human-readable explanation of the cause.')),
      field: pb(3, string('Path of the field at fault, such as spec.containers[0].name, when the cause concerns one.')),
    }),
  );

export const statusDetails = (): Schema =>
  named(
    metaName('StatusDetails'),
    'The object a failure concerns and what went wrong with it, depending on the reason.',
    object({
      name: pb(1, string('Name of the object the status is about, if any.')),
      group: pb(2, string("API group of the object's kind.")),
      kind: pb(3, string('Kind of the object (or resource, when the kind is unknown).')),
      uid: pb(6, string('UID of the object, when known.')),
      causes: pb(4, describe(atomicArray(statusCause()), 'The individual causes, such as one per invalid field.')),
      retryAfterSeconds: pb(5, int32('Seconds to wait before retrying, when the server asks for a delay.')),
    }),
  );

/** meta/v1 Status, the body of errors and of some deletions. */
export const statusSchema = (): Schema =>
  named(
    metaName('Status'),
    'The outcome of a request that returns no object: a success, or the error that ended it.',
    object({
      ...typeMeta(),
      metadata: pb(1, describe(listMeta(), 'List metadata; usually empty.')),
      status: pb(2, string('Success or Failure.')),
      message: pb(3, string('Human-readable description of the outcome.')),
      reason: pb(4, string('Machine-readable reason of a failure, such as NotFound or AlreadyExists; empty when none applies.')),
      details: pb(5, describe(statusDetails(), 'More about the failure; which fields are set depends on reason.'), 'optional'),
      code: pb(6, int32('HTTP status code of the response.')),
    }),
  );

export const preconditions = (): Schema =>
  named(
    metaName('Preconditions'),
    'What the object must still be for a deletion to proceed; otherwise it fails with 409 Conflict.',
    object({
      uid: pb(1, string('UID the object must have.'), 'optional'),
      resourceVersion: pb(2, string('Resource version the object must have.'), 'optional'),
    }),
  );

export const deleteOptionsSchema = (): Schema =>
  named(
    metaName('DeleteOptions'),
    'Options of a delete request.',
    object({
      ...typeMeta(),
      gracePeriodSeconds: pb(
        1,
        int64("Seconds the object gets to terminate before it is removed; 0 removes it at once, absent uses the kind's default."),
        'optional',
      ),
      preconditions: pb(2, describe(preconditions(), 'UID or resource version the object must have for the deletion to happen.'), 'optional'),
      orphanDependents: pb(3, boolean('Deprecated, use propagationPolicy: true orphans the dependents, false deletes them.'), 'optional'),
      propagationPolicy: pb(4, string('How dependents are garbage collected: Orphan, Background or Foreground.'), 'optional'),
      dryRun: pb(5, describe(atomicArray(string()), 'With All, the request is processed in full but nothing is persisted.')),
      ignoreStoreReadErrorWithClusterBreakingPotential: pb(
        6,
        boolean('Deletes an object that cannot be read from storage, skipping finalizers and admission; this may break the cluster.'),
        'optional',
      ),
    }),
  );

/**
 * meta/v1 WatchEvent. In protobuf watch streams `object` holds the object's own protobuf envelope
 * (see shared/codec/protobuf.ts), in JSON streams the object itself.
 */
export const watchEventSchema = (): Schema =>
  named(
    metaName('WatchEvent'),
    'One change in a watch stream.',
    object(
      {
        type: pb(1, neverOmitted(string('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'))),
        object: pb(
          2,
          anyValue('The object as of the change (its last state for DELETED), a Status for ERROR, or an object with only a resourceVersion for BOOKMARK.'),
        ),
      },
      ['type', 'object'],
    ),
  );
