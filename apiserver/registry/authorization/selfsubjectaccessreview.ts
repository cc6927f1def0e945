/**
 * SelfSubjectAccessReview (authorization.k8s.io/v1): asks whether the requesting user may make a
 * given request (`kubectl auth can-i`). Every authenticated user may ask about themselves.
 */
import { describe, kindSchema, named, object, pb } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import type { Authorizer } from '../../authorization/authorizer.ts';
import { defineResource } from '../definition.ts';
import { answerAccessReview, authorizationGroup, metadataProblems, validateSelfSubjectAccessReviewSpec } from './access-review.ts';
import { accessAttributeFields, subjectAccessReviewStatus, type AccessAttributes, type SubjectAccessReviewStatus } from './schema.ts';

export interface SelfSubjectAccessReview extends KubeObject {
  spec?: AccessAttributes;
  status?: SubjectAccessReviewStatus;
}

const selfSubjectAccessReviewSpec = () =>
  named(
    'io.k8s.api.authorization.v1.SelfSubjectAccessReviewSpec',
    'A request: exactly one of resourceAttributes and nonResourceAttributes.',
    object(accessAttributeFields()),
  );

export function selfSubjectAccessReviewDefinition(authorizer: Authorizer) {
  return defineResource<SelfSubjectAccessReview>({
    group: authorizationGroup,
    version: 'v1',
    kind: 'SelfSubjectAccessReview',
    plural: 'selfsubjectaccessreviews',
    singular: 'selfsubjectaccessreview',
    namespaced: false,
    verbs: ['create'],
    schema: describe(
      kindSchema(
        {
          spec: pb(2, describe(selfSubjectAccessReviewSpec(), 'The request asked about; the user is the one asking.')),
          status: pb(3, describe(subjectAccessReviewStatus(), "The authorizer's answer, filled in by the server.")),
        },
        ['spec'],
      ),
      'Asks whether the requesting user may make a given request.',
    ),
    strategy: {
      validate: (review) => [...validateSelfSubjectAccessReviewSpec(review.spec ?? {}), ...metadataProblems(review.metadata, false)],
    },
    review: {
      create: (review, ctx) => answerAccessReview(review, authorizer, ctx.user, ''),
    },
  });
}
