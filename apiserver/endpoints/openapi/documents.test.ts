import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isObject } from '../../../shared/api/types.ts';
import { describe, kindSchema, named, object, pb, string, type Schema } from '../../../shared/api/schema.ts';
import { AdmissionChain } from '../../admission/admission.ts';
import { defineResource } from '../../registry/definition.ts';
import { Registry } from '../../registry/registry.ts';
import { resourceComponents } from './components.ts';
import { openApiHash, openApiJson, openApiV2Document, openApiV3Document, openApiV3Index } from './documents.ts';
import { schemaName } from './naming.ts';
import { builtInDefinitions, etcd, flowSchemaDefinition, newRegistry, obj, registry, sha512, v3, type Json } from './test-fixtures.ts';

const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface FoundOperation {
  path: string;
  method: string;
  op: Json;
  /** Operation parameters and the path's shared ones. */
  parameterNames: string[];
}

function operations(doc: Json): FoundOperation[] {
  const out: FoundOperation[] = [];
  for (const [path, item] of Object.entries(obj(doc.paths, 'paths'))) {
    const pathItem = obj(item, path);
    const shared = Array.isArray(pathItem.parameters) ? pathItem.parameters : [];
    for (const method of methods) {
      if (!isObject(pathItem[method])) continue;
      const op = pathItem[method];
      const own = Array.isArray(op.parameters) ? op.parameters : [];
      const parameterNames = [...shared, ...own].map((param) => String(obj(param, 'parameter').name));
      out.push({ path, method, op, parameterNames });
    }
  }
  return out;
}

function byId(doc: Json, operationId: string): FoundOperation {
  const found = operations(doc).find((o) => o.op.operationId === operationId);
  assert.ok(found, `no operation ${operationId}`);
  return found;
}

function refs(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, into);
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') into.push(v);
      else refs(v, into);
    }
  }
  return into;
}

function hasKey(value: unknown, predicate: (key: string) => boolean): boolean {
  if (Array.isArray(value)) return value.some((v) => hasKey(v, predicate));
  if (!isObject(value)) return false;
  return Object.entries(value).some(([k, v]) => predicate(k) || hasKey(v, predicate));
}

test('the v3 index lists discovery, every served group version and version, each with its document hash', () => {
  const index = openApiV3Index(registry);
  assert.deepEqual(Object.keys(index.paths), [
    'api',
    'api/v1',
    'apis',
    'apis/authentication.k8s.io',
    'apis/authentication.k8s.io/v1',
    'apis/authorization.k8s.io',
    'apis/authorization.k8s.io/v1',
    'apis/certificates.k8s.io',
    'apis/certificates.k8s.io/v1',
    'apis/coordination.k8s.io',
    'apis/coordination.k8s.io/v1',
    'apis/discovery.k8s.io',
    'apis/discovery.k8s.io/v1',
    'apis/events.k8s.io',
    'apis/events.k8s.io/v1',
    'apis/flowcontrol.apiserver.k8s.io',
    'apis/flowcontrol.apiserver.k8s.io/v1beta3',
    'apis/networking.k8s.io',
    'apis/networking.k8s.io/v1alpha1',
    'apis/rbac.authorization.k8s.io',
    'apis/rbac.authorization.k8s.io/v1',
    'apis/storage.k8s.io',
    'apis/storage.k8s.io/v1',
    'version',
  ]);
  for (const [key, entry] of Object.entries(index.paths)) {
    const doc = v3(key);
    const hash = sha512(JSON.stringify(doc));
    assert.equal(entry.serverRelativeURL, `/openapi/v3/${key}?hash=${hash}`);
    assert.equal(openApiHash(doc), hash);
    assert.equal(openApiJson(doc), JSON.stringify(doc));
  }
});

test('every v3 document is OpenAPI 3.0.0 and every $ref resolves to one of its component schemas', () => {
  for (const key of Object.keys(openApiV3Index(registry).paths)) {
    const doc = v3(key);
    assert.equal(doc.openapi, '3.0.0');
    assert.deepEqual(doc.info, { title: 'Kubernetes', version: 'v1.32.0' });
    const schemas = obj(obj(doc.components, 'components').schemas, 'schemas');
    const all = refs(doc);
    assert.ok(all.length > 0, key);
    for (const ref of all) {
      assert.match(ref, /^#\/components\/schemas\//, `${key}: ${ref}`);
      assert.ok(ref.slice('#/components/schemas/'.length) in schemas, `${key}: unresolved ${ref}`);
    }
    // A v3 $ref stands alone; siblings go beside an allOf.
    for (const schema of Object.values(schemas)) {
      const walk = (s: unknown): void => {
        if (Array.isArray(s)) s.forEach(walk);
        else if (isObject(s)) {
          if ('$ref' in s) assert.deepEqual(Object.keys(s), ['$ref'], `${key}: $ref with siblings`);
          Object.values(s).forEach(walk);
        }
      };
      walk(schema);
    }
    assert.equal(
      hasKey(doc, (k) => k.startsWith('x-corral-')),
      false,
      `${key} leaks corral markers`,
    );
  }
});

test('every served kind and its list (when it can be listed) appear under upstream names with their group version kind', () => {
  for (const { definition: def } of registry.resources) {
    const key = def.group === '' ? `api/${def.version}` : `apis/${def.group}/${def.version}`;
    const schemas = obj(obj(v3(key).components, 'components').schemas, 'schemas');
    if (!def.verbs.includes('list')) assert.equal(schemas[schemaName(def.group, def.version, `${def.kind}List`)], undefined, `${key} ${def.kind}List`);
    for (const kind of def.verbs.includes('list') ? [def.kind, `${def.kind}List`] : [def.kind]) {
      const schema = obj(schemas[schemaName(def.group, def.version, kind)], `${key} ${kind}`);
      assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: def.group, kind, version: def.version }]);
    }
  }
  for (const [key, name] of [
    ['api/v1', 'io.k8s.api.core.v1.ConfigMap'],
    ['api/v1', 'io.k8s.api.core.v1.Event'],
    ['apis/storage.k8s.io/v1', 'io.k8s.api.storage.v1.CSIDriver'],
    ['apis/certificates.k8s.io/v1', 'io.k8s.api.certificates.v1.CertificateSigningRequest'],
    ['apis/coordination.k8s.io/v1', 'io.k8s.api.coordination.v1.Lease'],
    ['apis/events.k8s.io/v1', 'io.k8s.api.events.v1.Event'],
    ['apis/networking.k8s.io/v1alpha1', 'io.k8s.api.networking.v1alpha1.ClusterCIDR'],
    ['apis/flowcontrol.apiserver.k8s.io/v1beta3', 'io.k8s.api.flowcontrol.v1beta3.FlowSchema'],
  ] as const) {
    assert.ok(name in obj(obj(v3(key).components, 'components').schemas, 'schemas'), `${key} lacks ${name}`);
  }
  assert.equal(
    schemaName('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition'),
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  );
  assert.equal(schemaName('internal.apiserver.k8s.io', 'v1alpha1', 'StorageVersion'), 'io.k8s.api.apiserverinternal.v1alpha1.StorageVersion');
});

/** The component schemas of a v3 document. */
const schemasOf = (key: string): Json => obj(obj(v3(key).components, 'components').schemas, `${key} schemas`);

/** The properties of a component of a v3 document. */
const propertiesOf = (key: string, name: string): Json => obj(obj(schemasOf(key)[name], `${key} ${name}`).properties, `${name} properties`);

const v3Ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** A v3 field referring to a component: the reference in allOf, beside the field's own keys. */
function field(schema: unknown, what: string): { ref: string; rest: Json } {
  const { allOf, ...rest } = obj(schema, what);
  assert.ok(Array.isArray(allOf) && allOf.length === 1, `${what}: no allOf`);
  return { ref: String(obj(allOf[0], `${what} allOf`).$ref), rest };
}

const meta = (name: string): string => `io.k8s.apimachinery.pkg.apis.meta.v1.${name}`;

test('resource documents carry the shared apimachinery types in upstream form', () => {
  const schemas = schemasOf('api/v1');
  for (const name of [
    'ObjectMeta',
    'ListMeta',
    'Status',
    'DeleteOptions',
    'Patch',
    'WatchEvent',
    'Time',
    'MicroTime',
    'OwnerReference',
    'ManagedFieldsEntry',
  ]) {
    assert.ok(meta(name) in schemas, name);
  }
  const { description: quantityDoc, ...quantity } = obj(schemas['io.k8s.apimachinery.pkg.api.resource.Quantity'], 'Quantity');
  assert.equal(typeof quantityDoc, 'string');
  assert.deepEqual(quantity, { oneOf: [{ type: 'string' }, { type: 'number' }] });
  const { description: intOrStringDoc, ...intOrString } = obj(
    schemasOf('apis/flowcontrol.apiserver.k8s.io/v1beta3')['io.k8s.apimachinery.pkg.util.intstr.IntOrString'],
    'IntOrString',
  );
  assert.equal(typeof intOrStringDoc, 'string');
  assert.deepEqual(intOrString, { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] });
  assert.deepEqual({ ...obj(schemas[meta('Time')], 'Time'), description: '' }, { type: 'string', format: 'date-time', description: '' });
  const metaProperties = propertiesOf('api/v1', meta('ObjectMeta'));
  const { description: ownerReferencesDoc, ...ownerReferences } = obj(metaProperties.ownerReferences, 'ownerReferences');
  assert.equal(typeof ownerReferencesDoc, 'string');
  assert.deepEqual(ownerReferences, {
    type: 'array',
    items: { allOf: [v3Ref(meta('OwnerReference'))], default: {} },
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['uid'],
    'x-kubernetes-patch-strategy': 'merge',
    'x-kubernetes-patch-merge-key': 'uid',
  });
  const creationTimestamp = field(metaProperties.creationTimestamp, 'creationTimestamp');
  assert.equal(creationTimestamp.ref, v3Ref(meta('Time')).$ref);
  assert.deepEqual(Object.keys(creationTimestamp.rest), ['description'], 'Time has a JSON form of its own: no default');
  // OwnerReference is a +structType=atomic type: the marker is the component's.
  assert.equal(obj(schemas[meta('OwnerReference')], 'OwnerReference')['x-kubernetes-map-type'], 'atomic');
  const status = obj(schemas[meta('Status')], 'Status');
  assert.deepEqual(status['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Status', version: 'v1' }]);
  assert.deepEqual(field(obj(status.properties, 'Status properties').metadata, 'Status.metadata').rest.default, {});
});

test('kind schemas refer to ObjectMeta and well-known types, and keep list, map and patch markers', () => {
  const configMap = propertiesOf('api/v1', 'io.k8s.api.core.v1.ConfigMap');
  const metadata = field(configMap.metadata, 'metadata');
  assert.equal(metadata.ref, v3Ref(meta('ObjectMeta')).$ref);
  assert.deepEqual(metadata.rest.default, {});
  assert.deepEqual(
    { ...obj(configMap.data, 'data'), description: '' },
    { type: 'object', additionalProperties: { type: 'string', default: '' }, description: '' },
  );
  // []byte values have a JSON form of their own (base64): no default.
  assert.deepEqual(
    { ...obj(configMap.binaryData, 'binaryData'), description: '' },
    { type: 'object', additionalProperties: { type: 'string', format: 'byte' }, description: '' },
  );

  const nodeStatus = propertiesOf('api/v1', 'io.k8s.api.core.v1.NodeStatus');
  assert.deepEqual(obj(nodeStatus.capacity, 'capacity').additionalProperties, v3Ref('io.k8s.apimachinery.pkg.api.resource.Quantity'));
  const conditions = obj(nodeStatus.conditions, 'conditions');
  assert.equal(conditions['x-kubernetes-list-type'], 'map');
  assert.deepEqual(conditions['x-kubernetes-list-map-keys'], ['type']);
  assert.equal(conditions['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(conditions['x-kubernetes-patch-merge-key'], 'type');
  assert.deepEqual(conditions.items, { allOf: [v3Ref('io.k8s.api.core.v1.NodeCondition')], default: {} });

  const leaseSpec = propertiesOf('apis/coordination.k8s.io/v1', 'io.k8s.api.coordination.v1.LeaseSpec');
  assert.equal(field(leaseSpec.acquireTime, 'acquireTime').ref, v3Ref(meta('MicroTime')).$ref);

  const capacity = propertiesOf('apis/storage.k8s.io/v1', 'io.k8s.api.storage.v1.CSIStorageCapacity');
  assert.equal(field(capacity.capacity, 'capacity').ref, v3Ref('io.k8s.apimachinery.pkg.api.resource.Quantity').$ref);
  const nodeTopology = field(capacity.nodeTopology, 'nodeTopology');
  assert.equal(nodeTopology.ref, v3Ref(meta('LabelSelector')).$ref);
  assert.equal(nodeTopology.rest.default, undefined, 'a pointer struct has no default');
  assert.equal(obj(schemasOf('apis/storage.k8s.io/v1')[meta('LabelSelector')], 'LabelSelector')['x-kubernetes-map-type'], 'atomic');
});

test('nested structs are components under upstream names, referred to with $ref in v3 and v2', () => {
  const v2 = obj(obj(openApiV2Document(registry), 'v2').definitions, 'definitions');
  const cases: [key: string, owner: string, property: string, component: string, array: boolean][] = [
    ['api/v1', 'io.k8s.api.core.v1.Node', 'spec', 'io.k8s.api.core.v1.NodeSpec', false],
    ['api/v1', 'io.k8s.api.core.v1.Node', 'status', 'io.k8s.api.core.v1.NodeStatus', false],
    ['api/v1', 'io.k8s.api.core.v1.NodeSpec', 'taints', 'io.k8s.api.core.v1.Taint', true],
    ['api/v1', 'io.k8s.api.core.v1.Event', 'involvedObject', 'io.k8s.api.core.v1.ObjectReference', false],
    ['apis/coordination.k8s.io/v1', 'io.k8s.api.coordination.v1.Lease', 'spec', 'io.k8s.api.coordination.v1.LeaseSpec', false],
    [
      'apis/certificates.k8s.io/v1',
      'io.k8s.api.certificates.v1.CertificateSigningRequest',
      'spec',
      'io.k8s.api.certificates.v1.CertificateSigningRequestSpec',
      false,
    ],
    ['apis/storage.k8s.io/v1', 'io.k8s.api.storage.v1.CSIStorageCapacity', 'nodeTopology', meta('LabelSelector'), false],
    ['apis/storage.k8s.io/v1', 'io.k8s.api.storage.v1.CSINodeSpec', 'drivers', 'io.k8s.api.storage.v1.CSINodeDriver', true],
    ['apis/storage.k8s.io/v1', 'io.k8s.api.core.v1.PersistentVolumeSpec', 'claimRef', 'io.k8s.api.core.v1.ObjectReference', false],
    ['apis/events.k8s.io/v1', 'io.k8s.api.events.v1.Event', 'series', 'io.k8s.api.events.v1.EventSeries', false],
    ['apis/networking.k8s.io/v1alpha1', 'io.k8s.api.networking.v1alpha1.ClusterCIDRSpec', 'nodeSelector', 'io.k8s.api.core.v1.NodeSelector', false],
  ];
  for (const [key, owner, property, component, isArray] of cases) {
    const what = `${owner}.${property}`;
    const schemas = schemasOf(key);
    assert.equal(obj(schemas[component], component).type, 'object', `${key} lacks ${component}`);
    const v3Field = obj(propertiesOf(key, owner)[property], what);
    assert.equal(field(isArray ? v3Field.items : v3Field, what).ref, `#/components/schemas/${component}`);
    assert.ok(component in v2, `v2 lacks ${component}`);
    const v2Field = obj(obj(obj(v2[owner], owner).properties, `${owner} properties`)[property], `v2 ${what}`);
    const v2Ref = obj(isArray ? v2Field.items : v2Field, `v2 ${what}`);
    assert.equal(v2Ref.$ref, `#/definitions/${component}`, `v2 ${what}`);
    assert.equal(v2Ref.allOf, undefined);
    if (!isArray) assert.equal(typeof v2Ref.description, 'string', `v2 ${what}: the field's description stays beside $ref`);
  }
  // A field overriding its type's map type says so beside the reference; the type keeps its own.
  const claimRef = field(propertiesOf('apis/storage.k8s.io/v1', 'io.k8s.api.core.v1.PersistentVolumeSpec').claimRef, 'claimRef');
  assert.equal(claimRef.rest['x-kubernetes-map-type'], 'granular');
  assert.equal(obj(schemasOf('apis/storage.k8s.io/v1')['io.k8s.api.core.v1.ObjectReference'], 'ObjectReference')['x-kubernetes-map-type'], 'atomic');
  const involvedObject = field(propertiesOf('api/v1', 'io.k8s.api.core.v1.Event').involvedObject, 'involvedObject');
  assert.equal(involvedObject.rest['x-kubernetes-map-type'], undefined);
  // A struct is shared, not copied: core's EventSource appears in events.k8s.io under core's name.
  assert.ok('io.k8s.api.core.v1.EventSource' in schemasOf('apis/events.k8s.io/v1'));
  // PersistentVolumeSource is inlined into PersistentVolumeSpec (json:",inline"), as upstream does.
  assert.equal(
    field(propertiesOf('apis/storage.k8s.io/v1', 'io.k8s.api.core.v1.PersistentVolumeSpec').csi, 'csi').ref,
    v3Ref('io.k8s.api.core.v1.CSIPersistentVolumeSource').$ref,
  );
});

/** Every schema of a document with its path; `inComponent` is false for the component schemas themselves. */
function walkSchemas(schemas: Json, visit: (schema: Json, path: string, nested: boolean) => void): void {
  const walk = (schema: Json, path: string, nested: boolean): void => {
    visit(schema, path, nested);
    for (const [name, property] of Object.entries(isObject(schema.properties) ? schema.properties : {})) walk(obj(property, name), `${path}.${name}`, true);
    if (isObject(schema.items)) walk(schema.items, `${path}[*]`, true);
    if (isObject(schema.additionalProperties)) walk(schema.additionalProperties, `${path}{*}`, true);
  };
  for (const [name, schema] of Object.entries(schemas)) walk(obj(schema, name), name, false);
}

test('every component and every property of every document has a description, and no struct is inlined', () => {
  const documents: [string, Json][] = [
    ...Object.keys(openApiV3Index(registry).paths).map((key): [string, Json] => [key, schemasOf(key)]),
    ['v2', obj(obj(openApiV2Document(registry), 'v2').definitions, 'definitions')],
  ];
  let properties = 0;
  for (const [key, schemas] of documents) {
    walkSchemas(schemas, (schema, path, nested) => {
      if (!nested) assert.ok(typeof schema.description === 'string' && schema.description.length > 0, `${key}: ${path} has no description`);
      if (nested && isObject(schema.properties)) assert.fail(`${key}: ${path} inlines a struct instead of referring to a component`);
    });
    for (const [name, schema] of Object.entries(schemas)) {
      for (const [property, propertySchema] of Object.entries(obj(obj(schema, name).properties ?? {}, name))) {
        properties++;
        const description = obj(propertySchema, property).description;
        assert.ok(typeof description === 'string' && description.length > 10, `${key}: ${name}.${property} has no description`);
      }
    }
  }
  assert.ok(properties > 1000, `only ${properties} properties`);
  for (const { definition } of registry.resources) assert.ok(definition.schema.description, `${definition.kind} has no description`);
});

test('defaults: upstream +default markers, {} for structs held by value, zeros of fields Go never omits; none in v2', () => {
  const props = (key: string, name: string): Json => propertiesOf(key, name);
  const defaultOf = (key: string, name: string, property: string): unknown => {
    const schema = obj(props(key, name)[property], `${name}.${property}`);
    return schema.default;
  };
  const storage = 'apis/storage.k8s.io/v1';
  const expected: [key: string, name: string, property: string, value: unknown][] = [
    // +default= markers of core/v1 types.go
    [storage, 'io.k8s.api.core.v1.RBDPersistentVolumeSource', 'pool', 'rbd'],
    [storage, 'io.k8s.api.core.v1.RBDPersistentVolumeSource', 'user', 'admin'],
    [storage, 'io.k8s.api.core.v1.RBDPersistentVolumeSource', 'keyring', '/etc/ceph/keyring'],
    [storage, 'io.k8s.api.core.v1.ISCSIPersistentVolumeSource', 'iscsiInterface', 'default'],
    [storage, 'io.k8s.api.core.v1.AzureDiskVolumeSource', 'cachingMode', 'ReadWrite'],
    [storage, 'io.k8s.api.core.v1.AzureDiskVolumeSource', 'fsType', 'ext4'],
    [storage, 'io.k8s.api.core.v1.AzureDiskVolumeSource', 'readOnly', false],
    [storage, 'io.k8s.api.core.v1.AzureDiskVolumeSource', 'kind', 'Shared'],
    [storage, 'io.k8s.api.core.v1.ScaleIOPersistentVolumeSource', 'storageMode', 'ThinProvisioned'],
    [storage, 'io.k8s.api.core.v1.ScaleIOPersistentVolumeSource', 'fsType', 'xfs'],
    // Structs held by value.
    ['api/v1', 'io.k8s.api.core.v1.Node', 'metadata', {}],
    ['api/v1', 'io.k8s.api.core.v1.Node', 'spec', {}],
    ['api/v1', 'io.k8s.api.core.v1.NodeStatus', 'nodeInfo', {}],
    [storage, 'io.k8s.api.storage.v1.VolumeAttachmentSpec', 'source', {}],
    // Scalars without omitempty.
    ['api/v1', 'io.k8s.api.core.v1.Taint', 'key', ''],
    ['api/v1', 'io.k8s.api.core.v1.DaemonEndpoint', 'Port', 0],
    ['api/v1', 'io.k8s.api.core.v1.Event', 'reportingComponent', ''],
    [storage, 'io.k8s.api.storage.v1.VolumeAttachmentStatus', 'attached', false],
    [storage, 'io.k8s.api.core.v1.ISCSIPersistentVolumeSource', 'lun', 0],
    [storage, 'io.k8s.api.storage.v1.CSINodeDriver', 'name', ''],
    ['apis/networking.k8s.io/v1alpha1', 'io.k8s.api.networking.v1alpha1.ClusterCIDRSpec', 'ipv6', ''],
    ['apis/events.k8s.io/v1', 'io.k8s.api.events.v1.EventSeries', 'count', 0],
    ['api/v1', meta('OwnerReference'), 'uid', ''],
    ['api/v1', meta('APIResource'), 'namespaced', false],
    // None: pointers, omitempty fields, types with a JSON form of their own.
    ['api/v1', 'io.k8s.api.core.v1.Taint', 'value', undefined],
    ['api/v1', 'io.k8s.api.core.v1.Taint', 'timeAdded', undefined],
    ['api/v1', 'io.k8s.api.core.v1.NodeStatus', 'config', undefined],
    ['api/v1', 'io.k8s.api.core.v1.Event', 'firstTimestamp', undefined],
    [storage, 'io.k8s.api.storage.v1.CSIDriverSpec', 'attachRequired', undefined],
    [storage, 'io.k8s.api.core.v1.RBDPersistentVolumeSource', 'secretRef', undefined],
    ['apis/coordination.k8s.io/v1', 'io.k8s.api.coordination.v1.LeaseSpec', 'leaseDurationSeconds', undefined],
  ];
  for (const [key, name, property, value] of expected) assert.deepEqual(defaultOf(key, name, property), value, `${name}.${property}`);
  // List items and map values Go holds by value.
  assert.deepEqual(obj(props('api/v1', 'io.k8s.api.core.v1.NodeStatus').volumesInUse, 'volumesInUse').items, { type: 'string', default: '' });
  assert.deepEqual(obj(props('api/v1', 'io.k8s.api.core.v1.NodeSpec').taints, 'taints').items, { allOf: [v3Ref('io.k8s.api.core.v1.Taint')], default: {} });
  // Upstream prunes every default from /openapi/v2.
  assert.equal(
    hasKey(openApiV2Document(registry), (k) => k === 'default'),
    false,
  );
});

test('each document has exactly the components it refers to, directly or through other components', () => {
  for (const key of Object.keys(openApiV3Index(registry).paths)) {
    const doc = v3(key);
    const schemas = schemasOf(key);
    const reachable = new Set<string>();
    const queue = refs(doc.paths).map((r) => r.slice('#/components/schemas/'.length));
    while (queue.length) {
      const name = queue.pop() ?? '';
      if (reachable.has(name)) continue;
      reachable.add(name);
      queue.push(...refs(schemas[name]).map((r) => r.slice('#/components/schemas/'.length)));
    }
    assert.deepEqual(Object.keys(schemas).sort(), [...reachable].sort(), key);
  }
  // The core group refers to IntOrString through pods' probe and lifecycle handler ports.
  assert.equal('io.k8s.apimachinery.pkg.util.intstr.IntOrString' in schemasOf('api/v1'), true);
});

test('two different schemas claiming one component name fail the build; the same struct used twice does not', () => {
  const taintLike = (required: string[]): Schema =>
    named('io.k8s.api.core.v1.Taint', 'A taint.', object({ key: pb(1, string('The key.')), effect: pb(3, string('The effect.')) }, required));
  const conflicting = defineResource({
    ...flowSchemaDefinition,
    kind: 'Conflicting',
    plural: 'conflictings',
    singular: 'conflicting',
    schema: describe(kindSchema({ a: pb(2, describe(taintLike(['key']), 'One.')), b: pb(3, describe(taintLike(['key', 'effect']), 'Two.')) }), 'A kind.'),
  });
  const broken = newRegistry([conflicting]);
  assert.throws(() => openApiV3Document(broken, 'apis/flowcontrol.apiserver.k8s.io/v1beta3'), /two different schemas are named io\.k8s\.api\.core\.v1\.Taint/);
  assert.throws(() => resourceComponents(broken, [conflicting], 'v2'), /two different schemas are named/);
  // One builder used by two fields, described differently, defines one component.
  const sharing = defineResource({
    ...conflicting,
    schema: describe(kindSchema({ a: pb(2, describe(taintLike(['key']), 'One.')), b: pb(3, describe(taintLike(['key']), 'Two.')) }), 'A kind.'),
  });
  assert.doesNotThrow(() => resourceComponents(newRegistry([sharing]), [sharing], 'v3'));
  // Every served kind, together: each name stands for one schema.
  assert.doesNotThrow(() =>
    resourceComponents(
      registry,
      registry.resources.map((r) => r.definition),
      'v3',
    ),
  );
});

test('each verb of a namespaced kind has its route, operation id, action and parameters as upstream', () => {
  const doc = v3('api/v1');
  const gvk = { group: '', kind: 'ConfigMap', version: 'v1' };
  const expected: [string, string, string, string][] = [
    ['listCoreV1NamespacedConfigMap', 'get', '/api/v1/namespaces/{namespace}/configmaps', 'list'],
    ['listCoreV1ConfigMapForAllNamespaces', 'get', '/api/v1/configmaps', 'list'],
    ['createCoreV1NamespacedConfigMap', 'post', '/api/v1/namespaces/{namespace}/configmaps', 'post'],
    ['deleteCoreV1CollectionNamespacedConfigMap', 'delete', '/api/v1/namespaces/{namespace}/configmaps', 'deletecollection'],
    ['readCoreV1NamespacedConfigMap', 'get', '/api/v1/namespaces/{namespace}/configmaps/{name}', 'get'],
    ['replaceCoreV1NamespacedConfigMap', 'put', '/api/v1/namespaces/{namespace}/configmaps/{name}', 'put'],
    ['patchCoreV1NamespacedConfigMap', 'patch', '/api/v1/namespaces/{namespace}/configmaps/{name}', 'patch'],
    ['deleteCoreV1NamespacedConfigMap', 'delete', '/api/v1/namespaces/{namespace}/configmaps/{name}', 'delete'],
    ['watchCoreV1NamespacedConfigMapList', 'get', '/api/v1/watch/namespaces/{namespace}/configmaps', 'watchlist'],
    ['watchCoreV1NamespacedConfigMap', 'get', '/api/v1/watch/namespaces/{namespace}/configmaps/{name}', 'watch'],
    ['watchCoreV1ConfigMapListForAllNamespaces', 'get', '/api/v1/watch/configmaps', 'watchlist'],
  ];
  for (const [id, method, path, action] of expected) {
    const found = byId(doc, id);
    assert.equal(found.method, method, id);
    assert.equal(found.path, path, id);
    assert.equal(found.op['x-kubernetes-action'], action, id);
    assert.deepEqual(found.op['x-kubernetes-group-version-kind'], gvk, id);
    assert.deepEqual(found.op.tags, ['core_v1'], id);
  }
  const list = [
    'allowWatchBookmarks',
    'continue',
    'fieldSelector',
    'labelSelector',
    'limit',
    'pretty',
    'resourceVersion',
    'resourceVersionMatch',
    'sendInitialEvents',
    'timeoutSeconds',
    'watch',
  ];
  const names = (id: string): string[] => byId(doc, id).parameterNames.sort();
  assert.deepEqual(names('listCoreV1ConfigMapForAllNamespaces'), list);
  assert.deepEqual(names('listCoreV1NamespacedConfigMap'), [...list, 'namespace'].sort());
  assert.deepEqual(names('createCoreV1NamespacedConfigMap'), ['dryRun', 'fieldManager', 'fieldValidation', 'namespace', 'pretty']);
  assert.deepEqual(names('replaceCoreV1NamespacedConfigMap'), ['dryRun', 'fieldManager', 'fieldValidation', 'name', 'namespace', 'pretty']);
  assert.deepEqual(names('patchCoreV1NamespacedConfigMap'), ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'name', 'namespace', 'pretty']);
  assert.deepEqual(names('deleteCoreV1NamespacedConfigMap'), [
    'dryRun',
    'gracePeriodSeconds',
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'name',
    'namespace',
    'orphanDependents',
    'pretty',
    'propagationPolicy',
  ]);
  assert.deepEqual(names('deleteCoreV1CollectionNamespacedConfigMap'), [
    'continue',
    'dryRun',
    'fieldSelector',
    'gracePeriodSeconds',
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'labelSelector',
    'limit',
    'namespace',
    'orphanDependents',
    'pretty',
    'propagationPolicy',
    'resourceVersion',
    'resourceVersionMatch',
    'sendInitialEvents',
    'timeoutSeconds',
  ]);
  assert.deepEqual(names('readCoreV1NamespacedConfigMap'), ['name', 'namespace', 'pretty']);

  // Parameters shared by every operation of a path sit on the path, as upstream's builder puts them.
  const item = obj(obj(doc.paths, 'paths')['/api/v1/namespaces/{namespace}/configmaps/{name}'], 'item');
  assert.deepEqual(item.parameters, [
    { name: 'name', in: 'path', description: 'name of the ConfigMap', required: true, schema: { type: 'string', uniqueItems: true } },
    { name: 'namespace', in: 'path', description: 'The namespace of the objects.', required: true, schema: { type: 'string', uniqueItems: true } },
    { name: 'pretty', in: 'query', description: "If 'true', the output is pretty printed.", schema: { type: 'string', uniqueItems: true } },
  ]);
});

test('request bodies and responses refer to the kind, Patch, DeleteOptions, Status, the list and WatchEvent', () => {
  const doc = v3('api/v1');
  const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
  const responseSchema = (id: string, code: string, type = 'application/json'): unknown =>
    obj(obj(obj(obj(byId(doc, id).op.responses, 'responses')[code], code).content, 'content')[type], type).schema;
  const bodyContent = (id: string): Json => obj(obj(byId(doc, id).op.requestBody, 'requestBody').content, 'content');

  assert.deepEqual(responseSchema('listCoreV1NamespacedConfigMap', '200', 'application/json;stream=watch'), ref('io.k8s.api.core.v1.ConfigMapList'));
  assert.deepEqual(responseSchema('createCoreV1NamespacedConfigMap', '201'), ref('io.k8s.api.core.v1.ConfigMap'));
  assert.deepEqual(responseSchema('deleteCoreV1NamespacedConfigMap', '200'), ref('io.k8s.apimachinery.pkg.apis.meta.v1.Status'));
  assert.deepEqual(responseSchema('watchCoreV1NamespacedConfigMap', '200'), ref('io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent'));
  assert.deepEqual(obj(byId(doc, 'readCoreV1NamespacedConfigMap').op.responses, 'r')['401'], { description: 'Unauthorized' });
  assert.deepEqual(bodyContent('createCoreV1NamespacedConfigMap'), { '*/*': { schema: ref('io.k8s.api.core.v1.ConfigMap') } });
  assert.deepEqual(Object.keys(bodyContent('patchCoreV1NamespacedConfigMap')).sort(), [
    'application/apply-patch+yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
  ]);
  assert.deepEqual(
    obj(bodyContent('patchCoreV1NamespacedConfigMap')['application/apply-patch+yaml'], 'apply').schema,
    ref('io.k8s.apimachinery.pkg.apis.meta.v1.Patch'),
  );
  assert.deepEqual(bodyContent('deleteCoreV1NamespacedConfigMap'), { '*/*': { schema: ref('io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions') } });
  assert.equal(obj(byId(doc, 'deleteCoreV1NamespacedConfigMap').op.requestBody, 'body').required, undefined);
  assert.equal(obj(byId(doc, 'createCoreV1NamespacedConfigMap').op.requestBody, 'body').required, true);

  // Kinds whose DELETE answers with the object say so.
  const storage = v3('apis/storage.k8s.io/v1');
  const deleted = obj(obj(obj(byId(storage, 'deleteStorageV1CSIDriver').op.responses, 'r')['200'], '200').content, 'c');
  assert.deepEqual(obj(deleted['application/json'], 'json').schema, ref('io.k8s.api.storage.v1.CSIDriver'));
});

test('cluster-scoped kinds, subresources and restricted verb sets get exactly their routes', () => {
  const storage = v3('apis/storage.k8s.io/v1');
  for (const id of [
    'listStorageV1CSIDriver',
    'createStorageV1CSIDriver',
    'deleteStorageV1CollectionCSIDriver',
    'readStorageV1CSIDriver',
    'replaceStorageV1CSIDriver',
    'patchStorageV1CSIDriver',
    'deleteStorageV1CSIDriver',
    'watchStorageV1CSIDriverList',
    'watchStorageV1CSIDriver',
  ]) {
    byId(storage, id);
  }
  assert.equal(byId(storage, 'createStorageV1CSIDriver').path, '/apis/storage.k8s.io/v1/csidrivers');
  assert.equal(
    operations(storage).some((o) => String(o.op.operationId).includes('CSIDriverForAllNamespaces')),
    false,
  );
  assert.deepEqual(byId(storage, 'getStorageV1APIResources').path, '/apis/storage.k8s.io/v1/');

  const core = v3('api/v1');
  assert.equal(
    operations(core).some((o) => o.op.operationId === 'deleteCoreV1CollectionNamespace'),
    false,
  );
  const finalize = operations(core).filter((o) => o.path === '/api/v1/namespaces/{name}/finalize');
  assert.deepEqual(
    finalize.map((o) => [o.method, o.op.operationId]),
    [['put', 'replaceCoreV1NamespaceFinalize']],
  );
  assert.equal(byId(core, 'patchCoreV1NamespaceStatus').path, '/api/v1/namespaces/{name}/status');
  assert.deepEqual(byId(core, 'readCoreV1NodeStatus').op['x-kubernetes-group-version-kind'], { group: '', kind: 'Node', version: 'v1' });
  assert.equal(byId(core, 'readCoreV1NamespaceStatus').op.description, 'read status of the specified Namespace');

  const componentStatus = operations(core).filter((o) => String(o.op.operationId).includes('ComponentStatus'));
  assert.deepEqual(componentStatus.map((o) => o.op.operationId).sort(), ['listCoreV1ComponentStatus', 'readCoreV1ComponentStatus']);
  assert.equal(byId(core, 'listCoreV1ComponentStatus').op.description, 'list objects of kind ComponentStatus');
  assert.equal(byId(core, 'createCoreV1NamespacedEvent').op.description, 'create an Event');

  const csr = v3('apis/certificates.k8s.io/v1');
  assert.deepEqual(
    operations(csr)
      .filter((o) => o.path.endsWith('/approval'))
      .map((o) => o.op.operationId),
    [
      'readCertificatesV1CertificateSigningRequestApproval',
      'replaceCertificatesV1CertificateSigningRequestApproval',
      'patchCertificatesV1CertificateSigningRequestApproval',
    ],
  );

  const flow = v3('apis/flowcontrol.apiserver.k8s.io/v1beta3');
  const flowList = byId(flow, 'listFlowcontrolApiserverV1beta3FlowSchema');
  assert.deepEqual(flowList.op.tags, ['flowcontrolApiserver_v1beta3']);
  byId(v3('apis/flowcontrol.apiserver.k8s.io'), 'getFlowcontrolApiserverAPIGroup');
});

test('every write operation takes fieldValidation, which kubectl looks for to validate server-side', () => {
  let writes = 0;
  for (const key of Object.keys(openApiV3Index(registry).paths)) {
    for (const { op, method, parameterNames } of operations(v3(key))) {
      if (method !== 'post' && method !== 'put' && method !== 'patch') continue;
      writes++;
      assert.ok(parameterNames.includes('fieldValidation'), `${String(op.operationId)} lacks fieldValidation`);
      assert.ok(parameterNames.includes('fieldManager'), `${String(op.operationId)} lacks fieldManager`);
      assert.ok(parameterNames.includes('dryRun'), `${String(op.operationId)} lacks dryRun`);
    }
  }
  assert.ok(writes > 40);
  // kubectl reads only the PATCH operation's own parameters.
  const patch = obj(byId(v3('apis/storage.k8s.io/v1'), 'patchStorageV1CSIDriver').op, 'patch');
  assert.ok(Array.isArray(patch.parameters) && patch.parameters.some((param) => isObject(param) && param.name === 'fieldValidation' && param.in === 'query'));
});

test('discovery and version documents', () => {
  assert.equal(byId(v3('api'), 'getCoreAPIVersions').path, '/api/');
  assert.equal(byId(v3('apis'), 'getAPIVersions').path, '/apis/');
  assert.equal(byId(v3('apis/storage.k8s.io'), 'getStorageAPIGroup').path, '/apis/storage.k8s.io/');
  assert.equal(byId(v3('version'), 'getCodeVersion').path, '/version/');
  assert.ok('io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup' in obj(obj(v3('apis/storage.k8s.io').components, 'c').schemas, 's'));
  assert.equal(openApiV3Document(registry, 'apis/storage.k8s.io/v9'), undefined);
  assert.equal(openApiV3Document(registry, 'apis/apps'), undefined);
  assert.equal(openApiV3Document(registry, 'api/v2'), undefined);
  assert.equal(openApiV3Document(registry, 'apis/storage.k8s.io/v1/csidrivers'), undefined);
});

test('documents are built once per registry and frozen, so their hashes stay true', () => {
  assert.equal(openApiV3Document(registry, 'api/v1'), openApiV3Document(registry, 'api/v1'));
  assert.equal(openApiV3Index(registry), openApiV3Index(registry));
  assert.equal(openApiV2Document(registry), openApiV2Document(registry));
  const paths = obj(v3('api/v1').paths, 'paths');
  assert.ok(Object.isFrozen(paths));
  assert.throws(() => Object.assign(paths, { '/x': {} }), TypeError);
  const other = newRegistry();
  assert.notEqual(openApiV3Document(other, 'api/v1'), openApiV3Document(registry, 'api/v1'));
  assert.equal(openApiV3Document(other, 'apis/flowcontrol.apiserver.k8s.io/v1beta3'), undefined);
  // Alpha versions follow the registry: off unless enabled.
  const defaults = new Registry(builtInDefinitions(), etcd, new AdmissionChain([]), (def) => def.enabledByDefault ?? !/alpha|beta/.test(def.version));
  assert.equal(openApiV3Document(defaults, 'apis/networking.k8s.io/v1alpha1'), undefined);
  assert.equal('apis/networking.k8s.io' in openApiV3Index(defaults).paths, false);
});

test('the v2 document has the same definitions and operations, with references into definitions', () => {
  const doc = obj(openApiV2Document(registry), 'v2');
  assert.equal(doc.swagger, '2.0');
  assert.deepEqual(doc.info, { title: 'Kubernetes', version: 'v1.32.0' });
  const definitions = obj(doc.definitions, 'definitions');
  for (const ref of refs(doc)) {
    assert.match(ref, /^#\/definitions\//);
    assert.ok(ref.slice('#/definitions/'.length) in definitions, `unresolved ${ref}`);
  }
  const v3Ids = new Set<string>();
  for (const key of Object.keys(openApiV3Index(registry).paths)) {
    for (const { op } of operations(v3(key))) v3Ids.add(String(op.operationId));
    const schemas = obj(obj(v3(key).components, 'components').schemas, 'schemas');
    for (const name of Object.keys(schemas)) assert.ok(name in definitions, `v2 lacks ${name}`);
  }
  assert.deepEqual(new Set(operations(doc).map((o) => String(o.op.operationId))), v3Ids);

  const withoutDescription = (name: string): Json => {
    const { description, ...rest } = obj(definitions[name], name);
    assert.equal(typeof description, 'string', name);
    return rest;
  };
  assert.deepEqual(withoutDescription('io.k8s.apimachinery.pkg.api.resource.Quantity'), { type: 'string' });
  assert.deepEqual(withoutDescription('io.k8s.apimachinery.pkg.util.intstr.IntOrString'), { type: 'string', format: 'int-or-string' });
  const patch = byId(doc, 'patchCoreV1NamespacedConfigMap');
  assert.deepEqual(patch.op.consumes, [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ]);
  assert.deepEqual(obj(patch.op, 'op')['x-kubernetes-group-version-kind'], { group: '', kind: 'ConfigMap', version: 'v1' });
  assert.deepEqual(patch.parameterNames.sort(), ['body', 'dryRun', 'fieldManager', 'fieldValidation', 'force', 'name', 'namespace', 'pretty']);
  const params = obj(patch.op, 'op').parameters;
  assert.ok(Array.isArray(params));
  assert.deepEqual(params[0], { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
  const { description, ...fieldValidation } = obj(params[3], 'fieldValidation');
  assert.equal(typeof description, 'string');
  assert.deepEqual(fieldValidation, { uniqueItems: true, type: 'string', name: 'fieldValidation', in: 'query' });
  assert.deepEqual(doc.security, [{ BearerToken: [] }]);
  assert.equal(
    hasKey(doc, (k) => k.startsWith('x-corral-')),
    false,
  );
});
