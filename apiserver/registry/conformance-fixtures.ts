/**
 * What the conformance suite needs to know about each kind, stated from upstream kube-apiserver 1.32
 * rather than read from corral's definitions (so that the suite checks them): a valid object, a
 * valid change for update, an invalid object with the causes upstream reports, and the storage
 * behaviour of the kind's strategy (create on update, unconditional update, what DELETE answers).
 * A kind is covered by the suite once it has an entry here, keyed by `fixtureKey`.
 */
import type { KubeObject } from '../../shared/api/types.ts';
import { allVerbs, type Verb } from './definition.ts';

/** One Status cause as upstream reports it; `message` is checked when given. */
export interface ExpectedCause {
  field: string;
  reason: string;
  message?: string;
}

export interface InvalidObject {
  object: KubeObject;
  /** Every cause, in upstream's order. */
  causes: ExpectedCause[];
}

/** A kind with a `status` subresource whose strategies split spec and status as upstream's do. */
export interface StatusBehaviour {
  /** Changes obj.status in a way a write through `status` accepts. */
  mutate(obj: KubeObject): void;
  /** A PUT of the main resource keeps the stored status (upstream's PrepareForUpdate). */
  mainUpdateKeepsStatus: boolean;
}

/** A request that ends the kind's own finalization (Namespace: `finalize` with no spec.finalizers). */
export interface FinalizeRequest {
  method: 'PUT';
  subresource: string;
  body: KubeObject;
}

interface FixtureBase {
  namespaced: boolean;
  /** The verbs upstream serves for the resource (discovery), in any order. */
  verbs: readonly Verb[];
}

export interface StoredFixture extends FixtureBase {
  readOnly?: false;
  /** A valid object named `name` (in `namespace` for namespaced kinds), as a client POSTs it. */
  valid(name: string, namespace: string): KubeObject;
  /**
   * Changes an object as read from the server in a way a PUT accepts; the change must be visible in
   * the answer. For a kind that tracks generation it changes the spec.
   */
  mutate(obj: KubeObject): void;
  /**
   * Upstream's strategy counts spec changes in metadata.generation: 1 on create, one more on every
   * update that changes the spec (and on marking for deletion). Otherwise generation never moves.
   */
  tracksGeneration: boolean;
  invalid(name: string, namespace: string): InvalidObject;
  /** Upstream's AllowCreateOnUpdate: a PUT of a missing object creates it. */
  createOnUpdate: boolean;
  /** Upstream's AllowUnconditionalUpdate: a PUT without metadata.resourceVersion is accepted. */
  unconditionalUpdate: boolean;
  /** Upstream's ReturnDeletedObject: DELETE answers with the object instead of a Status. */
  deleteReturnsObject: boolean;
  status?: StatusBehaviour;
  /**
   * For kinds whose first DELETE only marks the object (Namespace): the request that completes the
   * deletion once metadata.finalizers are gone.
   */
  finalize?(obj: KubeObject): FinalizeRequest;
}

/** A kind computed on each read (ComponentStatus). */
export interface ReadOnlyFixture extends FixtureBase {
  readOnly: true;
  /** Items every list must contain: name and a subset of the item's fields. */
  expected: readonly { name: string; subset: Record<string, unknown> }[];
  /** The deprecation notice upstream sends in a Warning header, if any. */
  deprecationWarning?: string;
}

/** A request upstream refuses before answering it, with the Status it answers. */
export interface RefusedRequest {
  object: KubeObject;
  code: 400 | 422;
  reason: 'BadRequest' | 'Invalid';
  message: string;
  /** For 422: every cause, in upstream's order. */
  causes?: ExpectedCause[];
}

/**
 * A create-only kind that stores nothing (access and token reviews): a POST is answered, never
 * kept. Kept apart from `fixtures`, whose users all read or write stored objects.
 */
export interface ReviewFixture extends FixtureBase {
  /** A request upstream answers with 201, in `namespace` for namespaced kinds. */
  request(namespace: string): KubeObject;
  /** Fields upstream's answer to `request` has, when system:masters asks. */
  answer: Record<string, unknown>;
  /** A request upstream refuses; absent where it refuses nothing a kind-independent check does not. */
  refused?: (namespace: string) => RefusedRequest;
}

export type Fixture = StoredFixture | ReadOnlyFixture;

/** `v1/configmaps`, `storage.k8s.io/v1/csidrivers`: the apiVersion and the resource. */
export function fixtureKey(def: { group: string; version: string; plural: string }): string {
  return `${def.group ? `${def.group}/` : ''}${def.version}/${def.plural}`;
}

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** For kinds whose spec is immutable: a change of labels is the update. */
function relabel(obj: KubeObject): void {
  obj.metadata.labels = { ...obj.metadata.labels, mutated: 'true' };
}

const allButDeleteCollection = allVerbs.filter((v) => v !== 'deletecollection');

const dns1123SubdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** A certificate request for CN=conformance, signed by its own P-256 key (generated once with openssl). */
const certificateRequestPem = `-----BEGIN CERTIFICATE REQUEST-----
MIHPMHgCAQAwFjEUMBIGA1UEAwwLY29uZm9ybWFuY2UwWTATBgcqhkjOPQIBBggq
hkjOPQMBBwNCAAS2na5yd1fULAsRz2lc3VRvSKWZa/sesIQHy0P1SHlT/wubREW8
Rswn/Kto0OQa7l1wXukZoZOAycKuhlPhjfBioAAwCgYIKoZIzj0EAwIDRwAwRAIg
HU5jPGNdyh1WgUErctWm5PAnkC865YzckxvVwuRSRZgCIHBkuSokN98Tf5a7CycE
JhSXRnMR852PHpHvCCRWzPbj
-----END CERTIFICATE REQUEST-----
`;

const configMaps: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: '1' } }),
  mutate: (obj) => {
    obj.data = { ...(obj.data as Record<string, string>), b: '2' };
  },
  invalid: (name, namespace) => ({
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { 'a b': '1' } },
    causes: [
      {
        field: 'data[a b]',
        reason: 'FieldValueInvalid',
        message:
          "Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      },
    ],
  }),
  tracksGeneration: false,
  createOnUpdate: false,
  unconditionalUpdate: true,
  deleteReturnsObject: false,
};

const secrets: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', data: { a: base64('1') } }),
  mutate: (obj) => {
    obj.data = { ...(obj.data as Record<string, string>), b: base64('2') };
  },
  invalid: (name, namespace) => ({
    object: { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'kubernetes.io/tls', data: {} },
    causes: [
      { field: 'data[tls.crt]', reason: 'FieldValueRequired', message: 'Required value' },
      { field: 'data[tls.key]', reason: 'FieldValueRequired', message: 'Required value' },
    ],
  }),
  tracksGeneration: false,
  createOnUpdate: false,
  unconditionalUpdate: true,
  deleteReturnsObject: false,
};

const namespaces: StoredFixture = {
  namespaced: false,
  verbs: allButDeleteCollection,
  valid: (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
  // spec.finalizers and status are kept by the main resource: only metadata changes through it.
  mutate: relabel,
  invalid: (name) => ({
    object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: ['foo'] } },
    causes: [
      {
        field: 'spec.finalizers',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
      },
    ],
  }),
  tracksGeneration: false,
  createOnUpdate: false,
  unconditionalUpdate: true,
  deleteReturnsObject: true,
  status: {
    mutate: (obj) => {
      const status = (obj.status ?? {}) as Record<string, unknown>;
      obj.status = { ...status, conditions: [{ type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'ok' }] };
    },
    mainUpdateKeepsStatus: true,
  },
  finalize: (obj) => ({ method: 'PUT', subresource: 'finalize', body: { ...obj, spec: { finalizers: [] } } }),
};

const nodes: StoredFixture = {
  namespaced: false,
  verbs: allVerbs,
  // Zero values are left out: upstream omits them from its answers.
  // With the not-ready taint TaintNodesByCondition would add (upstream's default plugins), so the answer equals what was sent.
  valid: (name) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    spec: {
      taints: [
        { key: 'example.com/k', value: 'v', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
      ],
    },
  }),
  mutate: (obj) => {
    obj.spec = { ...(obj.spec as Record<string, unknown>), unschedulable: true };
  },
  invalid: (name) => ({
    object: { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { taints: [{ key: 'example.com/k', effect: 'Bogus' }] } },
    causes: [
      {
        field: 'metadata.taints[0].effect',
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Bogus": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      },
    ],
  }),
  tracksGeneration: false,
  createOnUpdate: false,
  unconditionalUpdate: true,
  deleteReturnsObject: false,
  status: {
    mutate: (obj) => {
      obj.status = { ...(obj.status as Record<string, unknown>), addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] };
    },
    mainUpdateKeepsStatus: true,
  },
};

const pods: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  // Unbound, so that every DELETE removes it at once (a pod bound to a node is deleted gracefully).
  valid: (name, namespace) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
  }),
  // The image is one of the few fields a pod update may change.
  mutate: (obj) => {
    const spec = obj.spec as { containers: { image?: string }[] };
    spec.containers = spec.containers.map((c) => ({ ...c, image: 'registry.k8s.io/pause:3.9' }));
  },
  invalid: (name, namespace) => ({
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'app', image: '' }], restartPolicy: 'Sometimes' } },
    causes: [
      { field: 'spec.containers[0].image', reason: 'FieldValueRequired', message: 'Required value' },
      {
        field: 'spec.restartPolicy',
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      },
    ],
  }),
  tracksGeneration: false,
  createOnUpdate: false,
  unconditionalUpdate: true,
  deleteReturnsObject: true,
  status: {
    mutate: (obj) => {
      obj.status = { ...(obj.status as Record<string, unknown>), podIP: '10.0.0.7', podIPs: [{ ip: '10.0.0.7' }] };
    },
    mainUpdateKeepsStatus: true,
  },
};

const coreEvents: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace },
    involvedObject: { kind: 'Pod', namespace, name: 'pod-1', apiVersion: 'v1' },
    reason: 'Started',
    message: 'started the container',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2024-01-01T00:00:00Z',
    lastTimestamp: '2024-01-01T00:00:00Z',
    count: 1,
    type: 'Normal',
  }),
  mutate: (obj) => {
    obj.count = 2;
    obj.lastTimestamp = '2024-01-01T00:01:00Z';
  },
  invalid: (name, namespace) => ({
    object: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: { kind: 'Pod', namespace: 'other', name: 'pod-1' },
      reason: 'Started',
      type: 'Normal',
    },
    causes: [{ field: 'involvedObject.namespace', reason: 'FieldValueInvalid', message: 'Invalid value: "other": does not match event.namespace' }],
  }),
  tracksGeneration: false,
  createOnUpdate: true,
  unconditionalUpdate: true,
  deleteReturnsObject: false,
};

const eventsV1: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name, namespace },
    eventTime: '2024-01-01T00:00:00.000000Z',
    reportingController: 'example.com/controller',
    reportingInstance: 'controller-1',
    action: 'Reconcile',
    reason: 'Synced',
    regarding: { kind: 'Pod', namespace, name: 'pod-1', apiVersion: 'v1' },
    note: 'synced the pod',
    type: 'Normal',
  }),
  // An events.k8s.io event changes only by its series.
  mutate: (obj) => {
    obj.series = { count: 2, lastObservedTime: '2024-01-01T00:01:00.000000Z' };
  },
  invalid: (name, namespace) => ({
    object: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime: '2024-01-01T00:00:00.000000Z',
      reportingController: 'example.com/controller',
      reportingInstance: 'controller-1',
      action: 'Reconcile',
      reason: 'Synced',
      regarding: { kind: 'Pod', namespace, name: 'pod-1' },
      type: 'Bogus',
    },
    causes: [{ field: 'type', reason: 'FieldValueInvalid', message: 'Invalid value: "": has invalid value: Bogus' }],
  }),
  tracksGeneration: false,
  createOnUpdate: true,
  unconditionalUpdate: true,
  deleteReturnsObject: false,
};

const leases: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace },
    spec: { holderIdentity: 'holder-a', leaseDurationSeconds: 10 },
  }),
  mutate: (obj) => {
    obj.spec = { ...(obj.spec as Record<string, unknown>), holderIdentity: 'holder-b', leaseTransitions: 1 };
  },
  invalid: (name, namespace) => ({
    object: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: { leaseDurationSeconds: 0 } },
    causes: [{ field: 'spec.leaseDurationSeconds', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0' }],
  }),
  tracksGeneration: false,
  createOnUpdate: true,
  unconditionalUpdate: false,
  deleteReturnsObject: false,
};

const csiDrivers: StoredFixture = {
  namespaced: false,
  verbs: allVerbs,
  valid: (name) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name }, spec: { attachRequired: true, podInfoOnMount: false } }),
  // podInfoOnMount is mutable since 1.29.
  mutate: (obj) => {
    obj.spec = { ...(obj.spec as Record<string, unknown>), podInfoOnMount: true };
  },
  invalid: (name) => ({
    object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name }, spec: { attachRequired: true, fsGroupPolicy: 'Bogus' } },
    causes: [
      {
        field: 'spec.fsGroupPolicy',
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Bogus": supported values: "File", "None", "ReadWriteOnceWithFSType"',
      },
    ],
  }),
  // csiDriverStrategy: Generation 1 on create, one more when the spec is not semantically equal.
  tracksGeneration: true,
  createOnUpdate: false,
  unconditionalUpdate: false,
  deleteReturnsObject: true,
};

const csiNodes: StoredFixture = {
  namespaced: false,
  verbs: allVerbs,
  valid: (name) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name },
    spec: { drivers: [{ name: 'csi.example.com', nodeID: 'node-1', topologyKeys: ['topology.example.com/zone'] }] },
  }),
  // Driver entries are immutable, but drivers may be added.
  mutate: (obj) => {
    const spec = obj.spec as { drivers: unknown[] };
    obj.spec = { ...spec, drivers: [...spec.drivers, { name: 'csi2.example.com', nodeID: 'node-1' }] };
  },
  invalid: (name) => ({
    object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name }, spec: { drivers: [{ name: 'csi.example.com', nodeID: '' }] } },
    causes: [{ field: 'spec.drivers[0].nodeID', reason: 'FieldValueRequired', message: 'Required value' }],
  }),
  tracksGeneration: false,
  createOnUpdate: false,
  unconditionalUpdate: false,
  deleteReturnsObject: true,
};

const csiStorageCapacities: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name, namespace },
    storageClassName: 'standard',
    capacity: '1Gi',
  }),
  mutate: (obj) => {
    obj.capacity = '2Gi';
    obj.maximumVolumeSize = '1Gi';
  },
  invalid: (name, namespace) => ({
    object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name, namespace }, storageClassName: 'Bad_Class', capacity: '-1' },
    causes: [
      { field: 'storageClassName', reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Class": ${dns1123SubdomainMessage}` },
      { field: 'capacity', reason: 'FieldValueInvalid', message: 'Invalid value: "-1": must be greater than or equal to 0' },
    ],
  }),
  tracksGeneration: false,
  createOnUpdate: false,
  unconditionalUpdate: false,
  deleteReturnsObject: false,
};

const volumeAttachments: StoredFixture = {
  namespaced: false,
  verbs: allVerbs,
  valid: (name) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name },
    spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'node-1' },
  }),
  // The spec is immutable.
  mutate: relabel,
  invalid: (name) => ({
    object: {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name },
      spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'Bad_Node' },
    },
    causes: [{ field: 'spec.nodeName', reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Node": ${dns1123SubdomainMessage}` }],
  }),
  tracksGeneration: false,
  createOnUpdate: false,
  unconditionalUpdate: false,
  deleteReturnsObject: true,
  status: {
    mutate: (obj) => {
      obj.status = { ...(obj.status as Record<string, unknown>), attached: true, attachmentMetadata: { device: '/dev/sdb' } };
    },
    mainUpdateKeepsStatus: true,
  },
};

const clusterCIDRs: StoredFixture = {
  namespaced: false,
  verbs: allVerbs,
  valid: (name) => ({ apiVersion: 'networking.k8s.io/v1alpha1', kind: 'ClusterCIDR', metadata: { name }, spec: { perNodeHostBits: 8, ipv4: '10.0.0.0/16' } }),
  // The spec is immutable.
  mutate: relabel,
  invalid: (name) => ({
    object: { apiVersion: 'networking.k8s.io/v1alpha1', kind: 'ClusterCIDR', metadata: { name }, spec: { perNodeHostBits: 2, ipv4: '10.0.0.0/16' } },
    causes: [{ field: 'spec.perNodeHostBits', reason: 'FieldValueInvalid', message: 'Invalid value: 2: must be greater than or equal to 4' }],
  }),
  tracksGeneration: false,
  createOnUpdate: false,
  unconditionalUpdate: true,
  deleteReturnsObject: false,
};

const certificateSigningRequests: StoredFixture = {
  namespaced: false,
  verbs: allVerbs,
  valid: (name) => ({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: base64(certificateRequestPem), signerName: 'example.com/signer', usages: ['client auth'] },
  }),
  // The main resource keeps spec and status: only metadata changes through it.
  mutate: relabel,
  invalid: (name) => ({
    object: {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { request: base64(certificateRequestPem), signerName: 'example.com/signer', usages: ['client auth'], expirationSeconds: 100 },
    },
    causes: [
      {
        field: 'spec.expirationSeconds',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: 100: may not specify a duration less than 600 seconds (10 minutes)',
      },
    ],
  }),
  tracksGeneration: false,
  createOnUpdate: false,
  unconditionalUpdate: true,
  deleteReturnsObject: false,
  status: {
    mutate: (obj) => {
      obj.status = {
        ...(obj.status as Record<string, unknown>),
        conditions: [{ type: 'Failed', status: 'True', reason: 'SignerFailed', message: 'cannot sign' }],
      };
    },
    mainUpdateKeepsStatus: true,
  },
};

const componentStatuses: ReadOnlyFixture = {
  readOnly: true,
  namespaced: false,
  verbs: ['get', 'list'],
  expected: [{ name: 'etcd-0', subset: { conditions: [{ type: 'Healthy', status: 'True' }] } }],
  deprecationWarning: 'v1 ComponentStatus is deprecated in v1.19+',
};

const authorizationApiVersion = 'authorization.k8s.io/v1';
const authenticationApiVersion = 'authentication.k8s.io/v1';
const createOnly: readonly Verb[] = ['create'];
const configMapAccess = (namespace: string) => ({ resourceAttributes: { namespace, verb: 'get', resource: 'configmaps' } });
const exactlyOneAttributes = {
  field: 'spec.resourceAttributes',
  reason: 'FieldValueInvalid',
  message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
};
const reviewInvalid = (kind: string, causes: ExpectedCause[]) => ({
  code: 422 as const,
  reason: 'Invalid' as const,
  message: `${kind}.authorization.k8s.io "" is invalid: ${causes.length === 1 ? `${causes[0]?.field}: ${causes[0]?.message}` : `[${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}]`}`,
  causes,
});

/** Asks for a member of system:masters, whom the first authorizer allows everything. */
const subjectAccessReviews: ReviewFixture = {
  namespaced: false,
  verbs: createOnly,
  request: () => ({
    apiVersion: authorizationApiVersion,
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: { ...configMapAccess('default'), user: 'root', groups: ['system:masters'] },
  }),
  answer: { status: { allowed: true } },
  refused: () => {
    const causes = [
      exactlyOneAttributes,
      { field: 'spec.user', reason: 'FieldValueInvalid', message: 'Invalid value: "": at least one of user or group must be specified' },
    ];
    return {
      object: { apiVersion: authorizationApiVersion, kind: 'SubjectAccessReview', metadata: {}, spec: {} },
      ...reviewInvalid('SubjectAccessReview', causes),
    };
  },
};

const localSubjectAccessReviews: ReviewFixture = {
  namespaced: true,
  verbs: createOnly,
  request: (namespace) => ({
    apiVersion: authorizationApiVersion,
    kind: 'LocalSubjectAccessReview',
    metadata: {},
    spec: { ...configMapAccess(namespace), user: 'root', groups: ['system:masters'] },
  }),
  answer: { status: { allowed: true } },
  refused: () => {
    const causes = [
      {
        field: 'spec.nonResourceAttributes',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: disallowed on this kind of request',
      },
    ];
    const spec = { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'root' };
    return {
      object: { apiVersion: authorizationApiVersion, kind: 'LocalSubjectAccessReview', metadata: {}, spec },
      ...reviewInvalid('LocalSubjectAccessReview', causes),
    };
  },
};

const selfSubjectAccessReviews: ReviewFixture = {
  namespaced: false,
  verbs: createOnly,
  request: () => ({ apiVersion: authorizationApiVersion, kind: 'SelfSubjectAccessReview', metadata: {}, spec: configMapAccess('default') }),
  answer: { status: { allowed: true } },
  refused: () => ({
    object: { apiVersion: authorizationApiVersion, kind: 'SelfSubjectAccessReview', metadata: {}, spec: {} },
    ...reviewInvalid('SelfSubjectAccessReview', [exactlyOneAttributes]),
  }),
};

const selfSubjectRulesReviews: ReviewFixture = {
  namespaced: false,
  verbs: createOnly,
  request: () => ({ apiVersion: authorizationApiVersion, kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: 'default' } }),
  answer: { status: { incomplete: false } },
  refused: () => ({
    object: { apiVersion: authorizationApiVersion, kind: 'SelfSubjectRulesReview', metadata: {}, spec: {} },
    code: 400,
    reason: 'BadRequest',
    message: 'no namespace on request',
  }),
};

const selfSubjectReviews: ReviewFixture = {
  namespaced: false,
  verbs: createOnly,
  request: () => ({ apiVersion: authenticationApiVersion, kind: 'SelfSubjectReview', metadata: {} }),
  answer: { status: { userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } } },
};

/** No token is known to the conformance server: the answer is unauthenticated, with an empty user. */
const tokenReviews: ReviewFixture = {
  namespaced: false,
  verbs: createOnly,
  request: () => ({ apiVersion: authenticationApiVersion, kind: 'TokenReview', metadata: {}, spec: { token: 'unknown-token' } }),
  answer: { status: { user: {} } },
  refused: () => ({
    object: { apiVersion: authenticationApiVersion, kind: 'TokenReview', metadata: {}, spec: {} },
    code: 400,
    reason: 'BadRequest',
    message: 'token is required for TokenReview in authentication',
  }),
};

const rbacApiVersion = 'rbac.authorization.k8s.io/v1';
const configMapReader = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }];
/** RBAC's strategies create on PUT and take unconditional updates (kubectl auth reconcile relies on both). */
const rbacStorage = { tracksGeneration: false, createOnUpdate: true, unconditionalUpdate: true, deleteReturnsObject: false } as const;
const addVerb = (obj: KubeObject): void => {
  obj.rules = [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] }];
};
const missingVerbs = { field: 'rules[0].verbs', reason: 'FieldValueRequired', message: 'Required value: verbs must contain at least one value' };
const subjects = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }];
const addSubject = (obj: KubeObject): void => {
  obj.subjects = [...subjects, { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }];
};

const roles: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({ apiVersion: rbacApiVersion, kind: 'Role', metadata: { name, namespace }, rules: configMapReader }),
  mutate: addVerb,
  invalid: (name, namespace) => ({
    object: { apiVersion: rbacApiVersion, kind: 'Role', metadata: { name, namespace }, rules: [{ verbs: [], apiGroups: [''], resources: ['configmaps'] }] },
    causes: [missingVerbs],
  }),
  ...rbacStorage,
};

const clusterRoles: StoredFixture = {
  namespaced: false,
  verbs: allVerbs,
  valid: (name) => ({ apiVersion: rbacApiVersion, kind: 'ClusterRole', metadata: { name }, rules: configMapReader }),
  mutate: addVerb,
  invalid: (name) => ({
    object: { apiVersion: rbacApiVersion, kind: 'ClusterRole', metadata: { name }, rules: [{ verbs: [], nonResourceURLs: ['/x'], resources: ['configmaps'] }] },
    causes: [
      missingVerbs,
      {
        field: 'rules[0].nonResourceURLs',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs',
      },
    ],
  }),
  ...rbacStorage,
};

const roleBindings: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({
    apiVersion: rbacApiVersion,
    kind: 'RoleBinding',
    metadata: { name, namespace },
    subjects,
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
  }),
  mutate: addSubject,
  invalid: (name, namespace) => ({
    object: {
      apiVersion: rbacApiVersion,
      kind: 'RoleBinding',
      metadata: { name, namespace },
      subjects: [{ kind: 'Robot', name: 'r2' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Team', name: 'reader' },
    },
    causes: [
      { field: 'roleRef.kind', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Team": supported values: "Role", "ClusterRole"' },
      {
        field: 'subjects[0].kind',
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      },
    ],
  }),
  ...rbacStorage,
};

const clusterRoleBindings: StoredFixture = {
  namespaced: false,
  verbs: allVerbs,
  valid: (name) => ({
    apiVersion: rbacApiVersion,
    kind: 'ClusterRoleBinding',
    metadata: { name },
    subjects,
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
  }),
  mutate: addSubject,
  invalid: (name) => ({
    object: {
      apiVersion: rbacApiVersion,
      kind: 'ClusterRoleBinding',
      metadata: { name },
      subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'view' },
    },
    causes: [
      { field: 'roleRef.kind', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Role": supported values: "ClusterRole"' },
      { field: 'subjects[0].namespace', reason: 'FieldValueRequired', message: 'Required value' },
    ],
  }),
  ...rbacStorage,
};

const services: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ port: 80 }], selector: { app: 'a' } } }),
  mutate: (obj) => {
    obj.spec = { ...(obj.spec as Record<string, unknown>), selector: { app: 'b' } };
  },
  invalid: (name, namespace) => ({
    object: { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { type: 'Weird', ports: [{ port: 0 }] } },
    causes: [
      { field: 'spec.ports[0].port', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be between 1 and 65535, inclusive' },
      { field: 'spec.ports[0].targetPort', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be between 1 and 65535, inclusive' },
      {
        field: 'spec.type',
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Weird": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      },
    ],
  }),
  tracksGeneration: false,
  createOnUpdate: true,
  unconditionalUpdate: true,
  deleteReturnsObject: false,
  status: {
    mutate: (obj) => {
      obj.status = { loadBalancer: { ingress: [{ ip: '192.0.2.80', ipMode: 'VIP' }] } };
    },
    mainUpdateKeepsStatus: true,
  },
};

const endpoints: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, namespace },
    subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 80, protocol: 'TCP' }] }],
  }),
  mutate: (obj) => {
    obj.subsets = [{ addresses: [{ ip: '192.0.2.11' }], ports: [{ port: 80, protocol: 'TCP' }] }];
  },
  invalid: (name, namespace) => ({
    object: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace }, subsets: [{ addresses: [{ ip: '127.0.0.1' }] }] },
    causes: [
      {
        field: 'subsets[0].addresses[0].ip',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      },
    ],
  }),
  tracksGeneration: false,
  createOnUpdate: true,
  unconditionalUpdate: true,
  deleteReturnsObject: false,
};

const endpointSlices: StoredFixture = {
  namespaced: true,
  verbs: allVerbs,
  valid: (name, namespace) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace, labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['192.0.2.10'], conditions: { ready: true } }],
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
  }),
  mutate: (obj) => {
    obj.endpoints = [{ addresses: ['192.0.2.11'], conditions: { ready: true } }];
  },
  invalid: (name, namespace) => ({
    object: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name, namespace }, addressType: 'IPX', endpoints: [] },
    causes: [{ field: 'addressType', reason: 'FieldValueNotSupported', message: 'Unsupported value: "IPX": supported values: "FQDN", "IPv4", "IPv6"' }],
  }),
  tracksGeneration: true,
  createOnUpdate: false,
  unconditionalUpdate: true,
  deleteReturnsObject: false,
};

export const fixtures: Readonly<Record<string, Fixture>> = {
  'v1/configmaps': configMaps,
  'v1/secrets': secrets,
  'v1/namespaces': namespaces,
  'v1/nodes': nodes,
  'v1/pods': pods,
  'v1/services': services,
  'v1/endpoints': endpoints,
  'discovery.k8s.io/v1/endpointslices': endpointSlices,
  'v1/events': coreEvents,
  'v1/componentstatuses': componentStatuses,
  'events.k8s.io/v1/events': eventsV1,
  'coordination.k8s.io/v1/leases': leases,
  'storage.k8s.io/v1/csidrivers': csiDrivers,
  'storage.k8s.io/v1/csinodes': csiNodes,
  'storage.k8s.io/v1/csistoragecapacities': csiStorageCapacities,
  'storage.k8s.io/v1/volumeattachments': volumeAttachments,
  'networking.k8s.io/v1alpha1/clustercidrs': clusterCIDRs,
  'certificates.k8s.io/v1/certificatesigningrequests': certificateSigningRequests,
  'rbac.authorization.k8s.io/v1/roles': roles,
  'rbac.authorization.k8s.io/v1/clusterroles': clusterRoles,
  'rbac.authorization.k8s.io/v1/rolebindings': roleBindings,
  'rbac.authorization.k8s.io/v1/clusterrolebindings': clusterRoleBindings,
};

/** The review kinds' fixtures, keyed like `fixtures`. */
export const reviewFixtures: Readonly<Record<string, ReviewFixture>> = {
  'authentication.k8s.io/v1/selfsubjectreviews': selfSubjectReviews,
  'authentication.k8s.io/v1/tokenreviews': tokenReviews,
  'authorization.k8s.io/v1/localsubjectaccessreviews': localSubjectAccessReviews,
  'authorization.k8s.io/v1/selfsubjectaccessreviews': selfSubjectAccessReviews,
  'authorization.k8s.io/v1/selfsubjectrulesreviews': selfSubjectRulesReviews,
  'authorization.k8s.io/v1/subjectaccessreviews': subjectAccessReviews,
};
