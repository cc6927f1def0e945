/**
 * SubjectAccessReview (authorization.k8s.io/v1): asks the server's authorizer whether a given user
 * may make a given request, and answers in status. Create-only; nothing is stored.
 */
import { describe, kindSchema, pb } from '../../../shared/api/schema.ts';
import type { Authorizer } from '../../authorization/authorizer.ts';
import { defineResource } from '../definition.ts';
import { answerAccessReview, authorizationGroup, metadataProblems, subjectOf, validateSubjectAccessReviewSpec } from './access-review.ts';
import { subjectAccessReviewSpec, subjectAccessReviewStatus, type SubjectAccessReview } from './schema.ts';

export function subjectAccessReviewDefinition(authorizer: Authorizer) {
  return defineResource<SubjectAccessReview>({
    group: authorizationGroup,
    version: 'v1',
    kind: 'SubjectAccessReview',
    plural: 'subjectaccessreviews',
    singular: 'subjectaccessreview',
    namespaced: false,
    verbs: ['create'],
    schema: describe(
      kindSchema(
        {
          spec: pb(2, describe(subjectAccessReviewSpec(), 'The request asked about and the user making it.')),
          status: pb(3, describe(subjectAccessReviewStatus(), "The authorizer's answer, filled in by the server.")),
        },
        ['spec'],
      ),
      'Asks whether a given user may make a given request.',
    ),
    strategy: {
      validate: (review) => [...validateSubjectAccessReviewSpec(review.spec ?? {}), ...metadataProblems(review.metadata, false)],
    },
    review: {
      create: (review) => answerAccessReview(review, authorizer, subjectOf(review.spec ?? {}), ''),
    },
  });
}
