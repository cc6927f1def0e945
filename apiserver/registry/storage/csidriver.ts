/**
 * CSIDriver (storage.k8s.io/v1): how the cluster talks to one installed CSI volume driver.
 * Upstream 1.32: attachRequired and volumeLifecycleModes are immutable (podInfoOnMount and
 * fsGroupPolicy became mutable in 1.29); the object name is a DNS subdomain, checked generically.
 */
import { FieldPath, duplicate, invalid, notSupported, required, type FieldError } from '../../../shared/api/field.ts';
import { atomicArray, boolean, int64, kindSchema, object, pb, setArray, string } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { validateImmutableField } from '../core/shared-validation.ts';
import { semanticEqual } from './validation.ts';

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
  errs.push(...validateTokenRequests(spec.tokenRequests ?? [], specPath.child('tokenRequests')));
  for (const mode of spec.volumeLifecycleModes ?? []) {
    if (!lifecycleModes.includes(mode)) errs.push(notSupported(specPath.child('volumeLifecycleModes'), mode, lifecycleModes));
  }
  if (spec.seLinuxMount === undefined) errs.push(required(specPath.child('seLinuxMount')));
  return errs;
}

const tokenRequestSchema = object({ audience: pb(1, string()), expirationSeconds: pb(2, int64(), 'optional') }, ['audience']);

export const csiDriverDefinition = defineResource<CSIDriver>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIDriver',
  plural: 'csidrivers',
  singular: 'csidriver',
  namespaced: false,
  verbs: allVerbs,
  deleteReturnsObject: true,
  schema: kindSchema(
    {
      spec: pb(
        2,
        object({
          attachRequired: pb(1, boolean(), 'optional'),
          fsGroupPolicy: pb(5, string(), 'optional'),
          podInfoOnMount: pb(2, boolean(), 'optional'),
          requiresRepublish: pb(7, boolean(), 'optional'),
          seLinuxMount: pb(8, boolean(), 'optional'),
          storageCapacity: pb(4, boolean(), 'optional'),
          tokenRequests: pb(6, atomicArray(tokenRequestSchema)),
          volumeLifecycleModes: pb(3, setArray(string())),
        }),
      ),
    },
    ['spec'],
  ),
  strategy: {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
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
});
