/**
 * Namespace (v1, cluster scoped). A namespace is born Active with the `kubernetes` finalizer in
 * spec.finalizers; its first delete turns it Terminating, and it is removed only once the
 * namespace controller has emptied spec.finalizers through the `finalize` subresource. The main
 * resource never changes spec.finalizers or status; `status` changes only status, `finalize` only spec.
 */
import { FieldPath, invalid, type FieldError } from '../../../shared/api/field.ts';
import { deepCopy, type KubeObject } from '../../../shared/api/types.ts';
import { atomicArray, describe, kindSchema, mergedByType, named, object, pb, string, time, type Schema } from '../../../shared/api/schema.ts';
import { nameIsDNSLabel } from '../../../shared/validation/names.ts';
import { standardFinalizers } from '../../../shared/validation/objectmeta.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { keepStatus, statusSubresource } from '../status-subresource.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
import { validateQualifiedName } from '../../../shared/validation/qualified-name.ts';

export interface NamespaceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

export const namespacePhases = { active: 'Active', terminating: 'Terminating' } as const;
/** The finalizer the namespace controller removes once the namespace's content is gone. */
export const kubernetesFinalizer = 'kubernetes';
/** The label upstream keeps equal to the namespace's name, so that selectors can pick namespaces by name. */
export const metadataNameLabel = 'kubernetes.io/metadata.name';

/** Upstream's validateFinalizerName: a qualified name, and a prefixed one unless it is a standard name. */
function validateFinalizerName(name: string, path: FieldPath): FieldError[] {
  const errors = validateQualifiedName(name, path);
  if (!name.includes('/') && !standardFinalizers.has(name)) {
    errors.push(invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errors;
}

function validateNamespace(ns: Namespace): FieldError[] {
  // Upstream reports every entry at `spec.finalizers` (no index) here, unlike on finalize.
  const path = FieldPath.root('spec').child('finalizers');
  return (ns.spec?.finalizers ?? []).flatMap((name) => validateFinalizerName(name, path));
}

/** Upstream's defaulting and canonicalization keep this label on every write. */
function labelWithName(ns: Namespace): void {
  const name = ns.metadata.name;
  if (!name) return;
  ns.metadata.labels = { ...ns.metadata.labels, [metadataNameLabel]: name };
}

function prepareForCreate(ns: Namespace): void {
  ns.status = { phase: namespacePhases.active };
  const finalizers = ns.spec?.finalizers ?? [];
  if (!finalizers.includes(kubernetesFinalizer)) ns.spec = { ...ns.spec, finalizers: [...finalizers, kubernetesFinalizer] };
  labelWithName(ns);
}

function keepFinalizersAndStatus(ns: Namespace, old: Namespace): void {
  const finalizers = old.spec?.finalizers;
  const spec = { ...ns.spec };
  if (finalizers) spec.finalizers = deepCopy(finalizers);
  else delete spec.finalizers;
  ns.spec = spec;
  keepStatus(ns, old);
  labelWithName(ns);
}

/** Only the phase matching deletionTimestamp may be written through `status`. */
function validateStatusUpdate(ns: Namespace): FieldError[] {
  const phase = ns.status?.phase ?? '';
  // Upstream's field path spells the Go field name: `status.Phase`.
  const path = FieldPath.root('status').child('Phase');
  if (!ns.metadata.deletionTimestamp) {
    return phase === namespacePhases.active ? [] : [invalid(path, phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  return phase === namespacePhases.terminating ? [] : [invalid(path, phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
}

function validateFinalizeUpdate(ns: Namespace): FieldError[] {
  const path = FieldPath.root('spec').child('finalizers');
  return (ns.spec?.finalizers ?? []).flatMap((name, i) => validateFinalizerName(name, path.index(i)));
}

const hasSpecFinalizers = (ns: Namespace): boolean => (ns.spec?.finalizers?.length ?? 0) > 0;

const namespaceSpec = (): Schema =>
  named(
    'io.k8s.api.core.v1.NamespaceSpec',
    'What the namespace needs before it can be removed.',
    object({
      finalizers: pb(
        1,
        describe(
          atomicArray(string()),
          'Cleanup steps that must finish before a deleted namespace is removed; kubernetes (the namespace controller emptying it) is added on create. Changed only through finalize.',
        ),
      ),
    }),
  );

const namespaceCondition = (): Schema =>
  named(
    'io.k8s.api.core.v1.NamespaceCondition',
    "One aspect of a namespace's state, mostly about why its deletion has not finished.",
    object(
      {
        type: pb(1, string('Which aspect the condition is about, such as NamespaceDeletionContentFailure.'), 'keepZero'),
        status: pb(2, string('True, False or Unknown.'), 'keepZero'),
        lastTransitionTime: pb(4, time('When status last changed.')),
        reason: pb(5, string('Machine-readable reason of the last transition, in CamelCase.')),
        message: pb(6, string('Human-readable details of the last transition.')),
      },
      ['type', 'status'],
    ),
  );

const namespaceStatus = (): Schema =>
  named(
    'io.k8s.api.core.v1.NamespaceStatus',
    'The lifecycle state of a namespace, written by the server and the namespace controller.',
    object({
      phase: pb(1, string('Active, or Terminating once deletion has started; set by the server.')),
      conditions: pb(
        2,
        describe(
          mergedByType(namespaceCondition()),
          'Observations about the namespace, at most one per type; the namespace controller reports deletion problems here.',
        ),
      ),
    }),
  );

export const namespaceDefinition = defineResource<Namespace>({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  // Upstream's namespace storage has no deletecollection.
  verbs: allVerbs.filter((verb) => verb !== 'deletecollection'),
  nameRule: nameIsDNSLabel,
  schema: describe(
    kindSchema({
      spec: pb(2, describe(namespaceSpec(), 'Finalizers of the namespace.')),
      status: pb(3, describe(namespaceStatus(), 'Current state of the namespace; written through status, kept as is by the main resource.')),
    }),
    'A scope for names: most kinds live in a namespace, and deleting it deletes everything in it.',
  ),
  strategy: {
    prepareForCreate,
    validate: validateNamespace,
    prepareForUpdate: keepFinalizersAndStatus,
    validateUpdate: (ns) => validateNamespace(ns),
    prepareForDelete: (ns) => {
      // Upstream marks every namespace Terminating on its first delete.
      ns.status = { ...ns.status, phase: namespacePhases.terminating };
      return hasSpecFinalizers(ns);
    },
    hasPendingFinalizers: hasSpecFinalizers,
  },
  subresources: {
    status: statusSubresource({ prepareForUpdate: labelWithName, validateUpdate: validateStatusUpdate }),
    finalize: {
      verbs: ['update'],
      prepareForUpdate: (ns, old) => {
        keepStatus(ns, old);
        labelWithName(ns);
      },
      validateUpdate: (ns) => validateFinalizeUpdate(ns),
    },
  },
  fieldSelectors: { 'status.phase': (ns) => ns.status?.phase ?? '' },
  table: {
    columns: [nameColumn, { name: 'Status', type: 'string', description: 'The status of the namespace' }, ageColumn],
    cells: (ns, now) => [ns.metadata.name, ns.status?.phase ?? '', age(ns, now)],
  },
  // Upstream answers a namespace DELETE with the namespace itself (Terminating, or as last seen).
  deleteReturnsObject: true,
});
