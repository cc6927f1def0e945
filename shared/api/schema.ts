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
   * that hold it; `field` then counts within the innermost.
   */
  'x-corral-protobuf'?: { field: number; optional?: true; embedded?: number[] };
  /** An empty list here means something (managedFields: [] resets ownership): decoding keeps it. */
  'x-corral-keep-empty'?: true;
  /** Well-known types whose protobuf form differs from their JSON shape (and whose OpenAPI is a $ref). */
  'x-corral-type'?: WellKnownType;
}

export type WellKnownType = 'Time' | 'MicroTime' | 'Quantity' | 'IntOrString' | 'FieldsV1' | 'RawExtension' | 'Duration';

/**
 * Gives a property its protobuf field number (upstream's generated.proto); `optional` for fields
 * Go declares as pointers. Every property of every kind carries one.
 */
export function pb(field: number, schema: Schema, optional?: 'optional'): Schema {
  return { ...schema, 'x-corral-protobuf': optional ? { field, optional: true } : { field } };
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

export const string = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
export const bytes = (): Schema => ({ type: 'string', format: 'byte' });
export const boolean = (): Schema => ({ type: 'boolean' });
export const int32 = (): Schema => ({ type: 'integer', format: 'int32' });
export const int64 = (): Schema => ({ type: 'integer', format: 'int64' });
export const number = (): Schema => ({ type: 'number', format: 'double' });
/** metav1.Time: RFC 3339 at second precision. */
export const time = (): Schema => ({ type: 'string', format: 'date-time', 'x-corral-type': 'Time' });
/** metav1.MicroTime: RFC 3339 with microseconds. */
export const microTime = (): Schema => ({ type: 'string', format: 'date-time', 'x-corral-type': 'MicroTime' });
/** metav1.Duration: a Go duration string such as `1h0m0s`. */
export const duration = (): Schema => ({ type: 'string', 'x-corral-type': 'Duration' });
/** resource.Quantity: a string or a number on the wire. */
export const quantity = (): Schema => ({ 'x-kubernetes-int-or-string': true, 'x-corral-type': 'Quantity' });
export const intOrString = (): Schema => ({ 'x-kubernetes-int-or-string': true, 'x-corral-type': 'IntOrString' });

export function object(properties: Record<string, Schema>, required?: string[]): Schema {
  return { type: 'object', properties, ...(required?.length ? { required } : {}) };
}

export function map(values: Schema): Schema {
  return { type: 'object', additionalProperties: values };
}

export function array(items: Schema, extensions: Pick<Schema, 'x-kubernetes-list-type' | 'x-kubernetes-list-map-keys' | 'x-kubernetes-patch-strategy' | 'x-kubernetes-patch-merge-key'> = {}): Schema {
  return { type: 'array', items, ...extensions };
}

/** A list merged by key fields (listType=map), as upstream's `+listType=map +listMapKey=...`. */
export function keyedArray(items: Schema, keys: string[]): Schema {
  return array(items, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys });
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
export const anyValue = (): Schema => ({ 'x-kubernetes-preserve-unknown-fields': true, 'x-corral-type': 'RawExtension' });
/** metav1.FieldsV1: the managed fields tree, raw JSON. */
export const fieldsV1 = (): Schema => ({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-corral-type': 'FieldsV1' });

/** metav1.OwnerReference. Field numbers and pointer-ness as upstream's meta/v1 generated.proto and types.go. */
export const ownerReference = (): Schema =>
  object(
    {
      apiVersion: pb(5, string()),
      kind: pb(1, string()),
      name: pb(3, string()),
      uid: pb(4, string()),
      controller: pb(6, boolean(), 'optional'),
      blockOwnerDeletion: pb(7, boolean(), 'optional'),
    },
    ['apiVersion', 'kind', 'name', 'uid'],
  );

export const managedFieldsEntry = (): Schema =>
  object({
    manager: pb(1, string()),
    operation: pb(2, string()),
    apiVersion: pb(3, string()),
    time: pb(4, time(), 'optional'),
    fieldsType: pb(6, string()),
    fieldsV1: pb(7, fieldsV1(), 'optional'),
    subresource: pb(8, string()),
  });

export const objectMeta = (): Schema =>
  object({
    name: pb(1, string()),
    generateName: pb(2, string()),
    namespace: pb(3, string()),
    selfLink: pb(4, string()),
    uid: pb(5, string()),
    resourceVersion: pb(6, string()),
    generation: pb(7, int64()),
    creationTimestamp: pb(8, time()),
    deletionTimestamp: pb(9, time(), 'optional'),
    deletionGracePeriodSeconds: pb(10, int64(), 'optional'),
    labels: pb(11, map(string())),
    annotations: pb(12, map(string())),
    ownerReferences: pb(13, patchMerge(keyedArray(ownerReference(), ['uid']), 'uid')),
    finalizers: pb(14, patchMerge(setArray(string()))),
    // An explicit empty list resets ownership (upstream), so decoding must not drop it.
    managedFields: pb(17, { ...atomicArray(managedFieldsEntry()), 'x-corral-keep-empty': true }),
  });

/** core/v1 ObjectReference. */
export const objectReference = (): Schema =>
  object({
    kind: pb(1, string()),
    namespace: pb(2, string()),
    name: pb(3, string()),
    uid: pb(4, string()),
    apiVersion: pb(5, string()),
    resourceVersion: pb(6, string()),
    fieldPath: pb(7, string()),
  });

export const labelSelectorRequirement = (): Schema =>
  object({ key: pb(1, string()), operator: pb(2, string()), values: pb(3, atomicArray(string())) }, ['key', 'operator']);

export const labelSelector = (): Schema =>
  object({
    matchLabels: pb(1, map(string())),
    matchExpressions: pb(2, atomicArray(labelSelectorRequirement())),
  });

/** core/v1 NodeSelectorRequirement. */
export const nodeSelectorRequirement = (): Schema =>
  object({ key: pb(1, string()), operator: pb(2, string()), values: pb(3, atomicArray(string())) }, ['key', 'operator']);

export const nodeSelectorTerm = (): Schema =>
  object({ matchExpressions: pb(1, atomicArray(nodeSelectorRequirement())), matchFields: pb(2, atomicArray(nodeSelectorRequirement())) });

export const nodeSelector = (): Schema =>
  object({ nodeSelectorTerms: pb(1, atomicArray(nodeSelectorTerm())) }, ['nodeSelectorTerms']);

/**
 * The top-level schema of a kind: apiVersion, kind, metadata plus the kind's own fields. apiVersion
 * and kind carry no field number: in protobuf they travel in the runtime.Unknown envelope, and a
 * kind's own message starts with metadata as field 1.
 */
export function kindSchema(fields: Record<string, Schema>, required?: string[]): Schema {
  return object({ apiVersion: string(), kind: string(), metadata: pb(1, objectMeta()), ...fields }, required);
}

export const listMeta = (): Schema =>
  object({
    selfLink: pb(1, string()),
    resourceVersion: pb(2, string()),
    continue: pb(3, string()),
    remainingItemCount: pb(4, int64(), 'optional'),
  });

/** A kind's list (`ConfigMapList`): list metadata and the items, each without apiVersion and kind. */
export function listSchema(item: Schema): Schema {
  return object({ apiVersion: string(), kind: string(), metadata: pb(1, listMeta()), items: pb(2, array(item)) }, ['items']);
}

/** meta/v1 PartialObjectMetadata (`as=PartialObjectMetadata`): an object's metadata alone. */
export const partialObjectMetadataSchema = (): Schema => kindSchema({});

export const partialObjectMetadataListSchema = (): Schema => listSchema(partialObjectMetadataSchema());

export const statusCause = (): Schema =>
  object({ reason: pb(1, string()), message: pb(2, string()), field: pb(3, string()) });

export const statusDetails = (): Schema =>
  object({
    name: pb(1, string()),
    group: pb(2, string()),
    kind: pb(3, string()),
    uid: pb(6, string()),
    causes: pb(4, atomicArray(statusCause())),
    retryAfterSeconds: pb(5, int32()),
  });

/** meta/v1 Status, the body of errors and of some deletions. */
export const statusSchema = (): Schema =>
  object({
    apiVersion: string(),
    kind: string(),
    metadata: pb(1, listMeta()),
    status: pb(2, string()),
    message: pb(3, string()),
    reason: pb(4, string()),
    details: pb(5, statusDetails(), 'optional'),
    code: pb(6, int32()),
  });

export const preconditions = (): Schema =>
  object({ uid: pb(1, string(), 'optional'), resourceVersion: pb(2, string(), 'optional') });

export const deleteOptionsSchema = (): Schema =>
  object({
    apiVersion: string(),
    kind: string(),
    gracePeriodSeconds: pb(1, int64(), 'optional'),
    preconditions: pb(2, preconditions(), 'optional'),
    orphanDependents: pb(3, boolean(), 'optional'),
    propagationPolicy: pb(4, string(), 'optional'),
    dryRun: pb(5, atomicArray(string())),
    ignoreStoreReadErrorWithClusterBreakingPotential: pb(6, boolean(), 'optional'),
  });

/**
 * meta/v1 WatchEvent. In protobuf watch streams `object` holds the object's own protobuf envelope
 * (see shared/codec/protobuf.ts), in JSON streams the object itself.
 */
export const watchEventSchema = (): Schema =>
  object({ type: pb(1, string()), object: pb(2, anyValue()) }, ['type', 'object']);
