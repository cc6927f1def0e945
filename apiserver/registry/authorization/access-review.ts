/**
 * What the three access reviews share, as upstream's pkg/apis/authorization/validation and
 * pkg/registry/authorization/util: their validation, the authorizer attributes their spec
 * describes, and the status the authorizer's answer fills in.
 *
 * Upstream's create handler wipes the system fields of a posted object's metadata (uid,
 * creationTimestamp, deletion fields, selfLink) and sets its namespace to the request's before a
 * review sees it; validation then requires the rest of the metadata to be empty. Reviews here do the
 * same: `metadataProblems` ignores those fields and `clearSystemFields` clears them in the answer.
 */
import { FieldPath, invalid, required, type FieldError } from '../../../shared/api/field.ts';
import type { KubeObject, ObjectMeta } from '../../../shared/api/types.ts';
import { append } from '../../../shared/api/append.ts';
import { validateOperatorValues } from '../../../shared/validation/label-selector.ts';
import { isValidLabelValue } from '../../../shared/validation/names.ts';
import { validateQualifiedName } from '../../../shared/validation/qualified-name.ts';
import type { AuthorizationAttributes, Authorizer } from '../../authorization/authorizer.ts';
import type { UserInfo } from '../definition.ts';
import type { AccessAttributes, ResourceAttributes, SelectorAttributes, SubjectAccessReviewSpec, SubjectAccessReviewStatus } from './schema.ts';

export const authorizationGroup = 'authorization.k8s.io';

const specPath = FieldPath.root('spec');
const resourcePath = specPath.child('resourceAttributes');

/** Operators a requirement may use without further checks; others are allowed for newer clients. */
const knownOperators = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/**
 * rawSelector or requirements, never both (upstream's validateFieldSelectorAttributes and
 * validateLabelSelectorAttributes, which accept unknown operators); `check` adds the checks of one
 * requirement beyond its operator.
 */
function validateSelector<R extends { operator?: string; values?: readonly string[] | null }>(
  selector: SelectorAttributes<R> | undefined,
  path: FieldPath,
  check: (requirement: R, at: FieldPath) => FieldError[],
): FieldError[] {
  if (!selector) return [];
  const errs: FieldError[] = [];
  const raw = selector.rawSelector ?? '';
  const requirements = selector.requirements ?? [];
  if (raw && requirements.length) errs.push(invalid(path.child('rawSelector'), raw, 'may not specified at the same time as requirements'));
  if (!raw && !requirements.length)
    errs.push(required(path.child('requirements'), `when ${path.toString()} is specified, requirements or rawSelector is required`));
  requirements.forEach((requirement, i) => {
    const at = path.child('requirements').index(i);
    if (knownOperators.has(requirement.operator ?? '')) append(errs, validateOperatorValues(requirement.operator, requirement.values ?? [], at));
    append(errs, check(requirement, at));
  });
  return errs;
}

function validateResourceAttributes(attributes: ResourceAttributes | undefined): FieldError[] {
  if (!attributes) return [];
  return [
    ...validateSelector(attributes.fieldSelector, resourcePath.child('fieldSelector'), () => []),
    ...validateSelector(attributes.labelSelector, resourcePath.child('labelSelector'), (requirement, at) => {
      const errs = validateQualifiedName(requirement.key ?? '', at.child('key'));
      (requirement.values ?? []).forEach((value, j) => {
        for (const msg of isValidLabelValue(value)) errs.push(invalid(at.child('values').index(j), value, msg));
      });
      return errs;
    }),
  ];
}

/**
 * Go prints the nil attributes of the second check as "null", and a set NonResourceAttributes
 * (an internal type without String()) with %#v.
 */
export function goNonResourceAttributes(spec: AccessAttributes): string {
  const attributes = spec.nonResourceAttributes;
  if (!attributes) return '"null"';
  return `authorization.NonResourceAttributes{Path:${JSON.stringify(attributes.path ?? '')}, Verb:${JSON.stringify(attributes.verb ?? '')}}`;
}

/** Exactly one of resourceAttributes and nonResourceAttributes (upstream's ValidateSelfSubjectAccessReviewSpec). */
export function validateAccessAttributes(spec: AccessAttributes): FieldError[] {
  const errs: FieldError[] = [];
  const valueText = goNonResourceAttributes(spec);
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    errs.push({ ...invalid(specPath.child('nonResourceAttributes'), null, 'cannot be specified in combination with resourceAttributes'), valueText });
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    errs.push({ ...invalid(resourcePath, null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'), valueText });
  }
  return errs;
}

/** The spec of SubjectAccessReview and LocalSubjectAccessReview (upstream's ValidateSubjectAccessReviewSpec). */
export function validateSubjectAccessReviewSpec(spec: SubjectAccessReviewSpec): FieldError[] {
  const errs = validateAccessAttributes(spec);
  if (!spec.user && !spec.groups?.length) errs.push(invalid(specPath.child('user'), spec.user ?? '', 'at least one of user or group must be specified'));
  return append(errs, validateResourceAttributes(spec.resourceAttributes));
}

/** The spec of SelfSubjectAccessReview. */
export function validateSelfSubjectAccessReviewSpec(spec: AccessAttributes): FieldError[] {
  return append(validateAccessAttributes(spec), validateResourceAttributes(spec.resourceAttributes));
}

const nonEmpty = (value: unknown): boolean =>
  Array.isArray(value) ? value.length > 0 : typeof value === 'object' && value !== null ? Object.keys(value).length > 0 : Boolean(value);

/** The metadata a review may carry: none, beyond what upstream's handler wipes or sets and managedFields. */
const checkedMetadata = ['name', 'generateName', 'resourceVersion', 'generation', 'labels', 'annotations', 'ownerReferences', 'finalizers'] as const;

const goMap = (m: Record<string, string> | undefined): string =>
  `map[string]string{${Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}: ${m?.[k] ?? ''},`)
    .join('')}}`;
const goPointer = (value: boolean | undefined): string => (value === undefined ? 'nil' : `*${value}`);

/**
 * ObjectMeta as its generated String() prints it, which upstream's field error uses for the value,
 * after the handler's wiping: system fields zero, managedFields dropped by the validation.
 */
function goObjectMeta(meta: ObjectMeta, namespace: string): string {
  const owners = (meta.ownerReferences ?? [])
    .map(
      (o) =>
        `OwnerReference{Kind:${o.kind},Name:${o.name},UID:${o.uid},APIVersion:${o.apiVersion},Controller:${goPointer(o.controller)},BlockOwnerDeletion:${goPointer(o.blockOwnerDeletion)},},`,
    )
    .join('');
  return [
    `&ObjectMeta{Name:${meta.name ?? ''}`,
    `GenerateName:${meta.generateName ?? ''}`,
    `Namespace:${namespace}`,
    'SelfLink:',
    'UID:',
    `ResourceVersion:${meta.resourceVersion ?? ''}`,
    `Generation:${meta.generation ?? 0}`,
    'CreationTimestamp:0001-01-01 00:00:00 +0000 UTC',
    'DeletionTimestamp:<nil>',
    'DeletionGracePeriodSeconds:nil',
    `Labels:${goMap(meta.labels)}`,
    `Annotations:${goMap(meta.annotations)}`,
    `OwnerReferences:[]OwnerReference{${owners}}`,
    `Finalizers:[${(meta.finalizers ?? []).join(' ')}]`,
    'ManagedFields:[]ManagedFieldsEntry{}',
    '}',
  ].join(',');
}

/**
 * Metadata must be empty (upstream's `must be empty`); a LocalSubjectAccessReview may name its
 * namespace (`namespaced`), which a cluster-scoped review's handler clears.
 */
export function metadataProblems(meta: ObjectMeta, namespaced: boolean): FieldError[] {
  if (!checkedMetadata.some((field) => nonEmpty(meta[field]))) return [];
  const namespace = namespaced ? (meta.namespace ?? '') : '';
  const detail = namespaced ? 'must be empty except for namespace' : 'must be empty';
  return [{ ...invalid(FieldPath.root('metadata'), null, detail), valueText: goObjectMeta(meta, namespace) }];
}

/** What upstream's create handler clears before a review answers; `namespace` is the request's. */
function clearSystemFields(meta: ObjectMeta, namespace: string): void {
  delete meta.uid;
  delete meta.creationTimestamp;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (namespace) meta.namespace = namespace;
  else delete meta.namespace;
}

/** The authorizer's question a spec asks (upstream's ResourceAttributesFrom / NonResourceAttributesFrom). */
export function attributesOf(spec: AccessAttributes): AuthorizationAttributes {
  const resource = spec.resourceAttributes;
  if (resource) {
    return {
      verb: resource.verb ?? '',
      isResourceRequest: true,
      path: '',
      namespace: resource.namespace ?? '',
      apiGroup: resource.group ?? '',
      // An empty version asks about every version.
      apiVersion: resource.version || '*',
      resource: resource.resource ?? '',
      subresource: resource.subresource ?? '',
      name: resource.name ?? '',
    };
  }
  const other = spec.nonResourceAttributes ?? {};
  return {
    verb: other.verb ?? '',
    isResourceRequest: false,
    path: other.path ?? '',
    namespace: '',
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
  };
}

/** The user a SubjectAccessReview asks about: exactly as given, no group added. */
export function subjectOf(spec: SubjectAccessReviewSpec): UserInfo {
  return {
    username: spec.user ?? '',
    groups: spec.groups ?? [],
    ...(spec.uid ? { uid: spec.uid } : {}),
    ...(spec.extra ? { extra: spec.extra } : {}),
  };
}

/** Asks the authorizer and writes its answer as upstream does: denied and reason only when set. */
async function accessReviewStatus(authorizer: Authorizer, user: UserInfo, spec: AccessAttributes): Promise<SubjectAccessReviewStatus> {
  const { decision, reason } = await authorizer.authorize(user, attributesOf(spec));
  return { allowed: decision === 'allow', ...(decision === 'deny' ? { denied: true } : {}), ...(reason ? { reason } : {}) };
}

/**
 * The answer to an access review asking about `user`: the request with its metadata as upstream's
 * handler leaves it (`namespace`: the request's) and the authorizer's answer as status.
 */
export async function answerAccessReview<T extends KubeObject & { spec?: AccessAttributes }>(
  review: T,
  authorizer: Authorizer,
  user: UserInfo,
  namespace: string,
): Promise<T> {
  clearSystemFields(review.metadata, namespace);
  return { ...review, status: await accessReviewStatus(authorizer, user, review.spec ?? {}) };
}
