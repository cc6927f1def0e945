/**
 * LocalSubjectAccessReview (authorization.k8s.io/v1): a SubjectAccessReview confined to the
 * namespace it is posted in, so that namespace admins can be allowed to ask. Only resource requests,
 * in that namespace.
 */
import { FieldPath, invalid as invalidField, type FieldError } from '../../../shared/api/field.ts';
import { badRequest, invalid } from '../../../shared/api/errors.ts';
import { describe, kindSchema, pb } from '../../../shared/api/schema.ts';
import type { Authorizer } from '../../authorization/authorizer.ts';
import { defineResource } from '../definition.ts';
import {
  answerAccessReview,
  authorizationGroup,
  goNonResourceAttributes,
  metadataProblems,
  subjectOf,
  validateSubjectAccessReviewSpec,
} from './access-review.ts';
import { subjectAccessReviewSpec, subjectAccessReviewStatus, type SubjectAccessReview } from './schema.ts';

const kind = 'LocalSubjectAccessReview';

/** spec.resourceAttributes.namespace must be the review's own namespace. */
function namespaceProblems(review: SubjectAccessReview, namespace: string): FieldError[] {
  const asked = review.spec?.resourceAttributes?.namespace ?? '';
  if (!review.spec?.resourceAttributes || asked === namespace) return [];
  return [invalidField(FieldPath.root('spec').child('resourceAttributes', 'namespace'), asked, 'must match metadata.namespace')];
}

function validate(review: SubjectAccessReview): FieldError[] {
  const spec = review.spec ?? {};
  const errs = [...validateSubjectAccessReviewSpec(spec), ...metadataProblems(review.metadata, true)];
  // Without a namespace in the body the request's is checked on create, once it is known.
  if (review.metadata.namespace !== undefined) errs.push(...namespaceProblems(review, review.metadata.namespace));
  if (spec.nonResourceAttributes) {
    const path = FieldPath.root('spec').child('nonResourceAttributes');
    errs.push({ ...invalidField(path, null, 'disallowed on this kind of request'), valueText: goNonResourceAttributes(spec) });
  }
  return errs;
}

export function localSubjectAccessReviewDefinition(authorizer: Authorizer) {
  return defineResource<SubjectAccessReview>({
    group: authorizationGroup,
    version: 'v1',
    kind,
    plural: 'localsubjectaccessreviews',
    singular: 'localsubjectaccessreview',
    namespaced: true,
    verbs: ['create'],
    schema: describe(
      kindSchema(
        {
          spec: pb(2, describe(subjectAccessReviewSpec(), 'The request asked about, in the namespace of the review, and the user making it.')),
          status: pb(3, describe(subjectAccessReviewStatus(), "The authorizer's answer, filled in by the server.")),
        },
        ['spec'],
      ),
      'Asks whether a given user may make a given request in the namespace of the review.',
    ),
    strategy: { validate },
    review: {
      async create(review, _ctx, namespace) {
        // Upstream's create handler: a body namespace must be the request's, which it defaults.
        if (review.metadata.namespace && review.metadata.namespace !== namespace) {
          throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
        }
        const errs = namespaceProblems(review, namespace);
        if (errs.length) throw invalid({ group: authorizationGroup, kind }, '', errs);
        return answerAccessReview(review, authorizer, subjectOf(review.spec ?? {}), namespace);
      },
    },
  });
}
