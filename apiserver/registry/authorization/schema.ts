/**
 * The shapes and schemas authorization.k8s.io/v1's access reviews share (field numbers from
 * upstream's generated.proto).
 */
import {
  array,
  atomicArray,
  boolean,
  describe,
  labelSelectorRequirement,
  map,
  named,
  neverOmitted,
  object,
  pb,
  string,
  type Schema,
} from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import type { LabelSelectorRequirementObject } from '../../../shared/selectors/labels.ts';

export interface FieldSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

export interface SelectorAttributes<R> {
  rawSelector?: string;
  requirements?: R[];
}

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: SelectorAttributes<FieldSelectorRequirement>;
  labelSelector?: SelectorAttributes<LabelSelectorRequirementObject>;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

/** What a SelfSubjectAccessReview asks; the other access reviews add whom it is asked for. */
export interface AccessAttributes {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
}

export interface SubjectAccessReviewSpec extends AccessAttributes {
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** SubjectAccessReview and LocalSubjectAccessReview. */
export interface SubjectAccessReview extends KubeObject {
  spec?: SubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

const group = 'io.k8s.api.authorization.v1';

const fieldSelectorRequirement = (): Schema =>
  named(
    'io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement',
    'One condition on a field: a key, an operator and the values it compares with.',
    object(
      {
        key: pb(1, neverOmitted(string('Field the condition applies to.'))),
        operator: pb(2, neverOmitted(string('In, NotIn, Exists or DoesNotExist.'))),
        values: pb(3, describe(atomicArray(string()), 'Values for In and NotIn, at least one; empty for Exists and DoesNotExist.')),
      },
      ['key', 'operator'],
    ),
  );

/** Field or label selector attributes: a selector either as text or as parsed requirements, never both. */
const selectorAttributes = (kind: 'Field' | 'Label', requirement: Schema): Schema =>
  named(
    `${group}.${kind}SelectorAttributes`,
    `Limits the access asked about to objects a ${kind.toLowerCase()} selector matches; it can only narrow it.`,
    object({
      rawSelector: pb(1, string(`The ${kind.toLowerCase()} selector as a query parameter would carry it; not with requirements.`)),
      requirements: pb(2, describe(atomicArray(requirement), 'The selector as conditions that must all hold; not with rawSelector.')),
    }),
  );

export const resourceAttributes = (): Schema =>
  named(
    `${group}.ResourceAttributes`,
    'A request on a resource, as the authorizer sees it.',
    object({
      namespace: pb(1, string('Namespace of the request; empty means every namespace for namespaced resources, and none for cluster-scoped ones.')),
      verb: pb(2, string("API verb, such as get, list, watch, create, update, delete or proxy; '*' is every verb.")),
      group: pb(3, string("API group of the resource; '*' is every group.")),
      version: pb(4, string("API version of the resource; '*' (the default) is every version.")),
      resource: pb(5, string("Resource, such as pods; '*' is every resource.")),
      subresource: pb(6, string('Subresource, such as status; empty for none.')),
      name: pb(7, string('Name of the object; empty means every object.')),
      fieldSelector: pb(
        8,
        describe(selectorAttributes('Field', fieldSelectorRequirement()), 'Objects the request is limited to by a field selector.'),
        'optional',
      ),
      labelSelector: pb(
        9,
        describe(selectorAttributes('Label', labelSelectorRequirement()), 'Objects the request is limited to by a label selector.'),
        'optional',
      ),
    }),
  );

export const nonResourceAttributes = (): Schema =>
  named(
    `${group}.NonResourceAttributes`,
    'A request on a path that is not a resource (/healthz), as the authorizer sees it.',
    object({
      path: pb(1, string('URL path of the request.')),
      verb: pb(2, string('Lower-case HTTP verb, such as get.')),
    }),
  );

/** The two ways to say what is asked, exactly one of which is set. */
export const accessAttributeFields = (): Record<string, Schema> => ({
  resourceAttributes: pb(1, describe(resourceAttributes(), 'The request on a resource; not with nonResourceAttributes.'), 'optional'),
  nonResourceAttributes: pb(2, describe(nonResourceAttributes(), 'The request on a non-resource path; not with resourceAttributes.'), 'optional'),
});

export const subjectAccessReviewSpec = (): Schema =>
  named(
    `${group}.SubjectAccessReviewSpec`,
    'A request and the user asking: exactly one of resourceAttributes and nonResourceAttributes, and a user or groups.',
    object({
      ...accessAttributeFields(),
      user: pb(3, string('Name of the user; without groups, the user is asked about as a member of none.')),
      groups: pb(4, describe(atomicArray(string()), 'Groups of the user.')),
      // Each value is an ExtraValue message in protobuf: the list under its field 1 (`items`).
      extra: pb(5, map(array(string()), 'Further attributes of the user, as an authenticator would report them.')),
      uid: pb(6, string('UID of the user.')),
    }),
  );

export const subjectAccessReviewStatus = (): Schema =>
  named(
    `${group}.SubjectAccessReviewStatus`,
    "The authorizer's answer: allowed, denied, or neither when no authorizer had an opinion.",
    object(
      {
        allowed: pb(1, boolean('True when the request would be allowed.'), 'keepZero'),
        denied: pb(4, boolean('True when an authorizer explicitly denies the request; never with allowed.')),
        reason: pb(2, string('Why the request is allowed or denied, when the authorizer says.')),
        evaluationError: pb(3, string('What went wrong while authorizing; the answer may still hold.')),
      },
      ['allowed'],
    ),
  );

const resourceRule = (): Schema =>
  named(
    `${group}.ResourceRule`,
    'Verbs a user may use on resources; the rules a review lists are unordered and may repeat.',
    object(
      {
        verbs: pb(1, describe(atomicArray(string()), "API verbs; '*' is every verb.")),
        apiGroups: pb(2, describe(atomicArray(string()), "API groups of the resources; '*' is every group.")),
        resources: pb(3, describe(atomicArray(string()), "Resources; '*' is every resource, '*/status' a subresource of every resource.")),
        resourceNames: pb(4, describe(atomicArray(string()), 'Names of the objects the rule allows; empty allows every object.')),
      },
      ['verbs'],
    ),
  );

const nonResourceRule = (): Schema =>
  named(
    `${group}.NonResourceRule`,
    'Verbs a user may use on paths that are not resources.',
    object(
      {
        verbs: pb(1, describe(atomicArray(string()), "Lower-case HTTP verbs; '*' is every verb.")),
        nonResourceURLs: pb(2, describe(atomicArray(string()), "Paths; a final '*' matches a prefix, '*' every path.")),
      },
      ['verbs'],
    ),
  );

export const subjectRulesReviewStatus = (): Schema =>
  named(
    `${group}.SubjectRulesReviewStatus`,
    'What a user may do in a namespace. Rules only add up, so a listed rule holds even when the list is incomplete.',
    object(
      {
        resourceRules: pb(1, describe(atomicArray(resourceRule()), 'What the user may do on resources.')),
        nonResourceRules: pb(2, describe(atomicArray(nonResourceRule()), 'What the user may do on non-resource paths.')),
        incomplete: pb(3, boolean('True when some authorizer could not list its rules, so that more may be allowed.'), 'keepZero'),
        evaluationError: pb(4, string('What went wrong while listing the rules.')),
      },
      ['resourceRules', 'nonResourceRules', 'incomplete'],
    ),
  );
