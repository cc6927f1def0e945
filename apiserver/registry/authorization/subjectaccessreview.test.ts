import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../../../shared/api/field.ts';
import { RbacAuthorizer } from '../../authorization/rbac/authorizer.ts';
import { unionAuthorizer } from '../../authorization/union.ts';
import { privilegedGroups } from '../../authorization/privileged-groups.ts';
import { MemorySource } from '../../testing/rbac.ts';
import type { RequestContext } from '../definition.ts';
import type { SubjectAccessReview } from './schema.ts';
import { subjectAccessReviewDefinition } from './subjectaccessreview.ts';

const ctx: RequestContext = { user: { username: 'kubernetes-admin', groups: ['system:masters'] }, now: new Date('2024-05-06T07:08:09Z') };

function definition() {
  const source = new MemorySource();
  source.addRole('team', 'cm-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]);
  source.bind({
    kind: 'RoleBinding',
    metadata: { name: 'alice-cm', namespace: 'team' },
    subjects: [{ kind: 'User', name: 'alice' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
  });
  return subjectAccessReviewDefinition(unionAuthorizer([privilegedGroups(), new RbacAuthorizer(source)]));
}

const review = (spec: SubjectAccessReview['spec'], metadata: SubjectAccessReview['metadata'] = {}): SubjectAccessReview => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SubjectAccessReview',
  metadata,
  ...(spec ? { spec } : {}),
});
const messages = (obj: SubjectAccessReview): string[] => definition().strategy.validate(obj, ctx).map(fieldErrorString);

describe('SubjectAccessReview', () => {
  it('is a cluster-scoped, create-only review', () => {
    const def = definition();
    assert.deepEqual([def.namespaced, def.verbs, def.group, def.version], [false, ['create'], 'authorization.k8s.io', 'v1']);
    assert.ok(def.review);
  });

  it('allows what the user is granted, in that namespace only', async () => {
    const def = definition();
    const ask = (namespace: string) => review({ resourceAttributes: { namespace, verb: 'list', resource: 'configmaps' }, user: 'alice' });
    const allowed = await def.review!.create(ask('team'), ctx, '');
    assert.equal(allowed.status?.allowed, true);
    assert.match(allowed.status?.reason ?? '', /RBAC: allowed by RoleBinding "alice-cm\/team"/);
    const other = await def.review!.create(ask('other'), ctx, '');
    assert.deepEqual({ allowed: other.status?.allowed, denied: other.status?.denied }, { allowed: false, denied: undefined });
  });

  it('asks about exactly the user given: groups as given, none added', async () => {
    const def = definition();
    const path = { nonResourceAttributes: { path: '/metrics', verb: 'get' } };
    assert.equal((await def.review!.create(review({ ...path, groups: ['system:masters'] }), ctx, '')).status?.allowed, true);
    assert.equal((await def.review!.create(review({ ...path, user: 'alice' }), ctx, '')).status?.allowed, false);
  });

  it('clears the fields the create handler wipes and echoes the spec', async () => {
    const obj = review(
      { resourceAttributes: { verb: 'get', resource: 'nodes' }, user: 'alice' },
      { uid: 'u', creationTimestamp: '2024-01-01T00:00:00Z', namespace: 'x' },
    );
    assert.deepEqual(messages(obj), []);
    const answer = await definition().review!.create(obj, ctx, '');
    assert.deepEqual(answer.metadata, {});
    assert.deepEqual(answer.spec, obj.spec);
  });

  it('needs exactly one kind of attributes and a user or group', () => {
    assert.deepEqual(messages(review({})), [
      'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      'spec.user: Invalid value: "": at least one of user or group must be specified',
    ]);
    assert.deepEqual(messages(review({ resourceAttributes: {}, nonResourceAttributes: { path: '/x', verb: 'get' }, groups: ['g'] })), [
      'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    ]);
  });

  it('needs empty metadata, printed as Go prints ObjectMeta', () => {
    assert.deepEqual(messages(review({ groups: ['g'], nonResourceAttributes: {} }, { name: 'n', labels: { b: '2', a: '1' }, finalizers: ['f', 'g'] })), [
      'metadata: Invalid value: &ObjectMeta{Name:n,GenerateName:,Namespace:,SelfLink:,UID:,ResourceVersion:,Generation:0,CreationTimestamp:0001-01-01 00:00:00 +0000 UTC,DeletionTimestamp:<nil>,DeletionGracePeriodSeconds:nil,Labels:map[string]string{a: 1,b: 2,},Annotations:map[string]string{},OwnerReferences:[]OwnerReference{},Finalizers:[f g],ManagedFields:[]ManagedFieldsEntry{},}: must be empty',
    ]);
  });

  it('checks selector attributes: text or requirements, unknown operators allowed', () => {
    const attributes = {
      verb: 'list',
      resource: 'pods',
      fieldSelector: { rawSelector: 'spec.nodeName=n1', requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] },
      labelSelector: {
        requirements: [
          { key: 'bad key', operator: 'Exists', values: ['x'] },
          { key: 'app', operator: 'Near' },
        ],
      },
    };
    assert.deepEqual(messages(review({ resourceAttributes: attributes, user: 'alice' })), [
      'spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "spec.nodeName=n1": may not specified at the same time as requirements',
      "spec.resourceAttributes.labelSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      "spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    assert.deepEqual(messages(review({ resourceAttributes: { fieldSelector: {} }, user: 'alice' })), [
      'spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required',
    ]);
  });
});
