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
}

export const string = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
export const bytes = (): Schema => ({ type: 'string', format: 'byte' });
export const boolean = (): Schema => ({ type: 'boolean' });
export const int32 = (): Schema => ({ type: 'integer', format: 'int32' });
export const int64 = (): Schema => ({ type: 'integer', format: 'int64' });
export const number = (): Schema => ({ type: 'number', format: 'double' });
/** metav1.Time: RFC 3339 at second precision. */
export const time = (): Schema => ({ type: 'string', format: 'date-time' });
/** metav1.MicroTime: RFC 3339 with microseconds. */
export const microTime = (): Schema => ({ type: 'string', format: 'date-time' });
/** resource.Quantity: a string or a number on the wire. */
export const quantity = (): Schema => ({ 'x-kubernetes-int-or-string': true });
export const intOrString = (): Schema => ({ 'x-kubernetes-int-or-string': true });

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

/** Any JSON value kept as is (runtime.RawExtension and friends). */
export const anyValue = (): Schema => ({ 'x-kubernetes-preserve-unknown-fields': true });

export const ownerReference = (): Schema =>
  object(
    {
      apiVersion: string(),
      kind: string(),
      name: string(),
      uid: string(),
      controller: boolean(),
      blockOwnerDeletion: boolean(),
    },
    ['apiVersion', 'kind', 'name', 'uid'],
  );

export const managedFieldsEntry = (): Schema =>
  object({
    manager: string(),
    operation: string(),
    apiVersion: string(),
    time: time(),
    fieldsType: string(),
    fieldsV1: anyValue(),
    subresource: string(),
  });

export const objectMeta = (): Schema =>
  object({
    name: string(),
    generateName: string(),
    namespace: string(),
    selfLink: string(),
    uid: string(),
    resourceVersion: string(),
    generation: int64(),
    creationTimestamp: time(),
    deletionTimestamp: time(),
    deletionGracePeriodSeconds: int64(),
    labels: map(string()),
    annotations: map(string()),
    ownerReferences: keyedArray(ownerReference(), ['uid']),
    finalizers: setArray(string()),
    managedFields: atomicArray(managedFieldsEntry()),
  });

export const objectReference = (): Schema =>
  object({
    kind: string(),
    namespace: string(),
    name: string(),
    uid: string(),
    apiVersion: string(),
    resourceVersion: string(),
    fieldPath: string(),
  });

export const labelSelector = (): Schema =>
  object({
    matchLabels: map(string()),
    matchExpressions: atomicArray(
      object({ key: string(), operator: string(), values: atomicArray(string()) }, ['key', 'operator']),
    ),
  });

export const nodeSelectorRequirement = (): Schema =>
  object({ key: string(), operator: string(), values: atomicArray(string()) }, ['key', 'operator']);

export const nodeSelector = (): Schema =>
  object(
    {
      nodeSelectorTerms: atomicArray(
        object({ matchExpressions: atomicArray(nodeSelectorRequirement()), matchFields: atomicArray(nodeSelectorRequirement()) }),
      ),
    },
    ['nodeSelectorTerms'],
  );

/** The top-level schema of a kind: apiVersion, kind, metadata plus the kind's own fields. */
export function kindSchema(fields: Record<string, Schema>, required?: string[]): Schema {
  return object({ apiVersion: string(), kind: string(), metadata: objectMeta(), ...fields }, required);
}
