/**
 * CSIDriver (storage.k8s.io/v1): how the cluster talks to one installed CSI volume driver.
 * Upstream 1.32: attachRequired and volumeLifecycleModes are immutable (podInfoOnMount and
 * fsGroupPolicy became mutable in 1.29); the object name is a DNS subdomain, checked generically.
 */
import { FieldPath, duplicate, invalid, notSupported, required, type FieldError } from '../../../shared/api/field.ts';
import { atomicArray, boolean, describe, int64, kindSchema, named, object, pb, setArray, string, type Schema } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
import { semanticEqual, validateImmutableField } from '../../../shared/validation/immutable.ts';
import { append } from '../../../shared/api/append.ts';

export interface TokenRequest {
  audience?: string;
  expirationSeconds?: number;
}

export interface CSIDriverSpec {
  attachRequired?: boolean;
  podInfoOnMount?: boolean;
  volumeLifecycleModes?: string[];
  storageCapacity?: boolean;
  fsGroupPolicy?: string;
  tokenRequests?: TokenRequest[];
  requiresRepublish?: boolean;
  seLinuxMount?: boolean;
}

export interface CSIDriver extends KubeObject {
  spec?: CSIDriverSpec;
}

const fsGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'];
const lifecycleModes = ['Persistent', 'Ephemeral'];
const minTokenSeconds = 10 * 60;
const maxTokenSeconds = 2 ** 32;

const specPath = FieldPath.root('spec');
// Upstream spells this path "attachedRequired" in both the required and the immutable check.
const attachRequiredPath = specPath.child('attachedRequired');

/** v1 defaulting (SetDefaults_CSIDriver); runs on every write, as decoding does upstream. */
function applyDefaults(obj: CSIDriver): CSIDriverSpec {
  const spec = (obj.spec ??= {});
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (!spec.volumeLifecycleModes?.length) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
  return spec;
}

/** Audiences must differ (so at most one may be empty); durations at least 10 minutes, at most 2^32 s. */
function validateTokenRequests(requests: readonly TokenRequest[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const audiences = new Set<string>();
  requests.forEach((request, i) => {
    const audience = request.audience ?? '';
    if (audiences.has(audience)) {
      errs.push(duplicate(path.index(i).child('audience'), audience));
      return;
    }
    audiences.add(audience);
    const seconds = request.expirationSeconds;
    if (seconds === undefined) return;
    if (seconds < minTokenSeconds) {
      errs.push(invalid(path.index(i).child('expirationSeconds'), seconds, 'may not specify a duration less than 10 minutes'));
    }
    if (seconds > maxTokenSeconds) {
      errs.push(invalid(path.index(i).child('expirationSeconds'), seconds, 'may not specify a duration larger than 2^32 seconds'));
    }
  });
  return errs;
}

function validateSpec(spec: CSIDriverSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.attachRequired === undefined) errs.push(required(attachRequiredPath));
  if (spec.podInfoOnMount === undefined) errs.push(required(specPath.child('podInfoOnMount')));
  if (spec.storageCapacity === undefined) errs.push(required(specPath.child('storageCapacity')));
  if (spec.fsGroupPolicy !== undefined && !fsGroupPolicies.includes(spec.fsGroupPolicy)) {
    errs.push(notSupported(specPath.child('fsGroupPolicy'), spec.fsGroupPolicy, fsGroupPolicies));
  }
  append(errs, validateTokenRequests(spec.tokenRequests ?? [], specPath.child('tokenRequests')));
  for (const mode of spec.volumeLifecycleModes ?? []) {
    if (!lifecycleModes.includes(mode)) errs.push(notSupported(specPath.child('volumeLifecycleModes'), mode, lifecycleModes));
  }
  if (spec.seLinuxMount === undefined) errs.push(required(specPath.child('seLinuxMount')));
  return errs;
}

const tokenRequest = (): Schema =>
  named(
    'io.k8s.api.storage.v1.TokenRequest',
    'A service account token the kubelet obtains for a volume and passes to the driver.',
    object(
      {
        audience: pb(1, string("Intended audience of the token; empty means the API server's own audiences."), 'keepZero'),
        expirationSeconds: pb(2, int64("Validity of the token in seconds, at least 600; absent follows the token API's default."), 'optional'),
      },
      ['audience'],
    ),
  );

const csiDriverSpec = (): Schema =>
  named(
    'io.k8s.api.storage.v1.CSIDriverSpec',
    'How Kubernetes works with a CSI volume driver: attachment, mount information, capacity tracking and tokens.',
    object({
      attachRequired: pb(
        1,
        boolean(
          'Whether volumes need an attach step (ControllerPublishVolume) through a VolumeAttachment before they are mounted. Defaults to true; cannot change.',
        ),
        'optional',
      ),
      fsGroupPolicy: pb(
        5,
        string("Whether the volume's ownership and permissions follow the pod's fsGroup: ReadWriteOnceWithFSType (the default), File or None."),
        'optional',
      ),
      podInfoOnMount: pb(
        2,
        boolean("Whether the driver receives the pod's name, namespace, UID and service account at mount time. Defaults to false."),
        'optional',
      ),
      requiresRepublish: pb(
        7,
        boolean('Whether the kubelet calls NodePublishVolume periodically to refresh mounted content such as tokens. Defaults to false.'),
        'optional',
      ),
      seLinuxMount: pb(
        8,
        boolean('Whether volumes can be mounted with an SELinux context mount option instead of being relabeled. Defaults to false.'),
        'optional',
      ),
      storageCapacity: pb(
        4,
        boolean('Whether the scheduler takes the CSIStorageCapacity objects the driver publishes into account. Defaults to false.'),
        'optional',
      ),
      tokenRequests: pb(6, describe(atomicArray(tokenRequest()), 'Service account tokens the kubelet passes to the driver at mount time, one per audience.')),
      volumeLifecycleModes: pb(
        3,
        describe(
          setArray(string()),
          "How the driver's volumes may be used: Persistent (through persistent volumes, the default) and Ephemeral (inline in pods). Cannot change.",
        ),
      ),
    }),
  );

export const csiDriverDefinition = defineResource<CSIDriver>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIDriver',
  plural: 'csidrivers',
  singular: 'csidriver',
  namespaced: false,
  verbs: allVerbs,
  deleteReturnsObject: true,
  schema: describe(
    kindSchema({ spec: pb(2, describe(csiDriverSpec(), 'How the driver is to be used. Required.')) }, ['spec']),
    'A CSI volume driver installed in the cluster, named after the driver, and how Kubernetes should work with it.',
  ),
  strategy: {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    // Upstream's csiDriverStrategy sets Generation to 1 on create and bumps it on spec changes.
    tracksGeneration: true,
    prepareForCreate(obj) {
      applyDefaults(obj);
    },
    validate(obj) {
      return validateSpec(obj.spec ?? {});
    },
    prepareForUpdate(obj) {
      applyDefaults(obj);
    },
    validateUpdate(obj, old) {
      const spec = obj.spec ?? {};
      const oldSpec = old.spec ?? {};
      return [
        ...validateSpec(spec),
        ...validateImmutableField(spec.attachRequired, oldSpec.attachRequired, attachRequiredPath, semanticEqual),
        ...validateImmutableField(spec.volumeLifecycleModes, oldSpec.volumeLifecycleModes, specPath.child('volumeLifecycleModes'), semanticEqual),
      ];
    },
  },
  table: {
    columns: [
      nameColumn,
      {
        name: 'AttachRequired',
        type: 'boolean',
        description:
          'attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the CSIDriverRegistry feature gate is enabled and the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable.',
      },
      {
        name: 'PodInfoOnMount',
        type: 'boolean',
        description:
          'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. "csi.storage.k8s.io/pod.name": pod.Name "csi.storage.k8s.io/pod.namespace": pod.Namespace "csi.storage.k8s.io/pod.uid": string(pod.UID) "csi.storage.k8s.io/ephemeral": "true" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise "false"\n\n"csi.storage.k8s.io/ephemeral" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the "Persistent" and "Ephemeral" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn\'t support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is mutable.',
      },
      {
        name: 'StorageCapacity',
        type: 'boolean',
        description:
          'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In that case, provisioning new volumes with late binding will pause until the driver deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field unset or false and it can be flipped later when storage capacity information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable.',
      },
      {
        name: 'TokenRequests',
        type: 'string',
        description:
          'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: "csi.storage.k8s.io/serviceAccount.tokens": {\n  "<audience>": {\n    "token": <token>,\n    "expirationTimestamp": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each TokenRequest should be different and at most one token is empty string. To receive a new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically.',
      },
      {
        name: 'RequiresRepublish',
        type: 'boolean',
        description:
          'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of the volume. New mount points will not be seen by a running container.',
      },
      {
        name: 'Modes',
        type: 'string',
        description:
          'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the list is empty is "Persistent", which is the usage defined by the CSI specification and implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is "Ephemeral". In this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for such a volume.\n\nFor more information about implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of these modes and more modes may be added in the future.\n\nThis field is beta. This field is immutable.',
      },
      ageColumn,
    ],
    cells: (driver, now) => {
      const spec = driver.spec ?? {};
      // Stored as protobuf upstream, an empty list reads back as unset.
      const tokenRequests = spec.tokenRequests?.length ? spec.tokenRequests.map((t) => t.audience ?? '').join(',') : '<unset>';
      return [
        driver.metadata.name,
        spec.attachRequired ?? true,
        spec.podInfoOnMount ?? false,
        spec.storageCapacity ?? false,
        tokenRequests,
        spec.requiresRepublish ?? false,
        spec.volumeLifecycleModes?.join(',') || '<none>',
        age(driver, now),
      ];
    },
  },
});
