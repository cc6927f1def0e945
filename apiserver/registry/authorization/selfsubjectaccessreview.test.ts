import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../../../shared/api/field.ts';
import { testKindDependencies } from '../../testing/kind-dependencies.ts';
import type { RequestContext } from '../definition.ts';
import { selfSubjectAccessReviewDefinition, type SelfSubjectAccessReview } from './selfsubjectaccessreview.ts';

const def = selfSubjectAccessReviewDefinition(testKindDependencies().authorizer);
const now = new Date('2024-05-06T07:08:09Z');
const review = (spec: SelfSubjectAccessReview['spec']): SelfSubjectAccessReview => ({
  kind: 'SelfSubjectAccessReview',
  metadata: {},
  ...(spec ? { spec } : {}),
});
const asking = (username: string, ...groups: string[]): RequestContext => ({ user: { username, groups }, now });
const listNodes = review({ resourceAttributes: { verb: 'list', resource: 'nodes' } });

describe('SelfSubjectAccessReview', () => {
  it('is a cluster-scoped, create-only review', () => {
    assert.deepEqual([def.namespaced, def.verbs], [false, ['create']]);
  });

  it('asks about the requesting user', async () => {
    assert.equal((await def.review!.create(listNodes, asking('admin', 'system:masters'), '')).status?.allowed, true);
    assert.deepEqual((await def.review!.create(listNodes, asking('alice', 'system:authenticated'), '')).status, { allowed: false });
  });

  it('needs exactly one kind of attributes; no user is asked for', () => {
    assert.deepEqual(def.strategy.validate(review({}), asking('alice')).map(fieldErrorString), [
      'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    ]);
    assert.deepEqual(def.strategy.validate(listNodes, asking('alice')), []);
  });
});
