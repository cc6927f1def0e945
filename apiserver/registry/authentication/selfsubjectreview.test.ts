import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RequestContext } from '../definition.ts';
import { selfSubjectReviewDefinition } from './selfsubjectreview.ts';

describe('SelfSubjectReview', () => {
  it('answers who the requester is, stamped with the time of the request, ignoring the body', async () => {
    const ctx: RequestContext = {
      user: { username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } },
      now: new Date('2024-05-06T07:08:09.500Z'),
    };
    const answer = await selfSubjectReviewDefinition.review!.create(
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { name: 'x' } },
      ctx,
      '',
    );
    assert.deepEqual(answer, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: '2024-05-06T07:08:09Z' },
      status: { userInfo: { username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } } },
    });
  });

  it('omits what the user lacks', async () => {
    const answer = await selfSubjectReviewDefinition.review!.create(
      { metadata: {} },
      { user: { username: 'system:anonymous', groups: [] }, now: new Date(0) },
      '',
    );
    assert.deepEqual(answer.status, { userInfo: { username: 'system:anonymous' } });
  });
});
