import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../../../shared/api/field.ts';
import { isStatusError } from '../../../shared/api/errors.ts';
import { testKindDependencies } from '../../testing/kind-dependencies.ts';
import type { RequestContext } from '../definition.ts';
import { localSubjectAccessReviewDefinition } from './localsubjectaccessreview.ts';
import type { SubjectAccessReview } from './schema.ts';

const ctx: RequestContext = { user: { username: 'admin', groups: ['system:masters'] }, now: new Date('2024-05-06T07:08:09Z') };
const def = localSubjectAccessReviewDefinition(testKindDependencies().authorizer);
const review = (spec: SubjectAccessReview['spec'], namespace?: string): SubjectAccessReview => ({
  kind: 'LocalSubjectAccessReview',
  metadata: namespace === undefined ? {} : { namespace },
  ...(spec ? { spec } : {}),
});
const inTeam = { resourceAttributes: { namespace: 'team', verb: 'get', resource: 'configmaps' }, groups: ['system:masters'] };

describe('LocalSubjectAccessReview', () => {
  it('is namespaced and answers in the namespace of the request, which it sets', async () => {
    assert.deepEqual([def.namespaced, def.verbs], [true, ['create']]);
    const answer = await def.review!.create(review(inTeam), ctx, 'team');
    assert.equal(answer.metadata.namespace, 'team');
    assert.equal(answer.status?.allowed, true);
  });

  it('refuses attributes of another namespace: 422 from validation, or from create once the namespace is known', async () => {
    assert.deepEqual(def.strategy.validate(review(inTeam, 'other'), ctx).map(fieldErrorString), [
      'spec.resourceAttributes.namespace: Invalid value: "team": must match metadata.namespace',
    ]);
    await assert.rejects(def.review!.create(review(inTeam), ctx, 'other'), (err: unknown) => {
      assert.ok(isStatusError(err, 'Invalid'));
      assert.equal(
        err.status.message,
        'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "team": must match metadata.namespace',
      );
      return true;
    });
  });

  it("refuses a body namespace other than the request's with 400", async () => {
    await assert.rejects(def.review!.create(review(inTeam, 'team'), ctx, 'other'), (err: unknown) => isStatusError(err, 'BadRequest'));
  });

  it('takes only resource attributes, and metadata but the namespace must be empty', () => {
    const spec = { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'alice' };
    assert.deepEqual(def.strategy.validate({ ...review(spec, 'team'), metadata: { namespace: 'team', name: 'x' } }, ctx).map(fieldErrorString), [
      'metadata: Invalid value: &ObjectMeta{Name:x,GenerateName:,Namespace:team,SelfLink:,UID:,ResourceVersion:,Generation:0,CreationTimestamp:0001-01-01 00:00:00 +0000 UTC,DeletionTimestamp:<nil>,DeletionGracePeriodSeconds:nil,Labels:map[string]string{},Annotations:map[string]string{},OwnerReferences:[]OwnerReference{},Finalizers:[],ManagedFields:[]ManagedFieldsEntry{},}: must be empty except for namespace',
      'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: disallowed on this kind of request',
    ]);
  });
});
