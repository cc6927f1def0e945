/**
 * SelfSubjectReview (authentication.k8s.io/v1): who the server takes the requesting user for
 * (`kubectl auth whoami`). Create-only; nothing is stored.
 */
import { describe, kindSchema, named, object, pb } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { formatTimeOf } from '../../../shared/go/time.ts';
import { defineResource } from '../definition.ts';
import { authenticationGroup, userInfo, userInfoOf, type UserInfo } from './schema.ts';

export interface SelfSubjectReview extends KubeObject {
  status?: { userInfo?: UserInfo };
}

const selfSubjectReviewStatus = () =>
  named(
    'io.k8s.api.authentication.v1.SelfSubjectReviewStatus',
    'The requesting user as the server sees them.',
    object({ userInfo: pb(1, describe(userInfo(), 'Name, UID, groups and extra attributes of the requesting user.')) }),
  );

export const selfSubjectReviewDefinition = defineResource<SelfSubjectReview>({
  group: authenticationGroup,
  version: 'v1',
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  singular: 'selfsubjectreview',
  namespaced: false,
  verbs: ['create'],
  schema: describe(
    kindSchema({ status: pb(2, describe(selfSubjectReviewStatus(), 'The requesting user, filled in by the server.')) }),
    'Tells the requesting user who the server takes them for.',
  ),
  // Upstream validates nothing and answers with a new review, stamped with the time of the request.
  strategy: { validate: () => [] },
  review: {
    create: (review, ctx) =>
      Promise.resolve({
        apiVersion: review.apiVersion,
        kind: review.kind,
        metadata: { creationTimestamp: formatTimeOf(ctx.now) },
        status: { userInfo: userInfoOf(ctx.user) },
      }),
  },
});
