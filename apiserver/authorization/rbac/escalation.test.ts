import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../../../shared/api/errors.ts';
import { allow, noOpinion, type Authorizer } from '../authorizer.ts';
import { MemorySource, user } from '../../testing/rbac.ts';
import { RbacAuthorizer } from './authorizer.ts';
import { compactString, EscalationGuard, missingRules } from './escalation.ts';

describe('escalation prevention', () => {
  it("finds the simple rules not covered, as upstream's Covers", () => {
    const owned = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', 'pods/log'] }];
    assert.deepEqual(missingRules(owned, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]), []);
    assert.deepEqual(missingRules(owned, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }]), [
      { verbs: ['delete'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    ]);
    assert.deepEqual(
      missingRules([{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['nodes/status'] }]),
      [],
    );
    assert.deepEqual(missingRules([{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis/apps'] }]), []);
    assert.equal(
      missingRules(
        [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }],
        [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
      ).length,
      1,
    );
  });

  it("describes a rule as upstream's CompactString", () => {
    assert.equal(
      compactString({ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }),
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    );
    assert.equal(compactString({ verbs: ['get'], nonResourceURLs: ['/metrics'] }), '{NonResourceURLs:["/metrics"], Verbs:["get"]}');
  });

  const source = new MemorySource();
  source.addClusterRole('cm-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]);
  source.addClusterRole('secret-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
  source.bind({
    metadata: { name: 'alice' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-reader' },
  });
  const rbac = new RbacAuthorizer(source);
  const guard = (authorizer: Authorizer = { authorize: () => noOpinion }) => new EscalationGuard(rbac, authorizer);
  const forbiddenMessage = async (p: Promise<void>): Promise<string> => {
    try {
      await p;
    } catch (err) {
      assert.ok(isStatusError(err, 'Forbidden'));
      return err.status.message ?? '';
    }
    return 'allowed';
  };

  it("lets a user create a role with rules they hold, and refuses more with upstream's message", async () => {
    const write = { resource: 'roles' as const, namespace: 'team', name: 'r', setsAggregationRule: false };
    assert.equal(
      await forbiddenMessage(guard().confirmRoleWrite(user('alice'), { ...write, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] })),
      'allowed',
    );
    assert.equal(
      await forbiddenMessage(
        guard().confirmRoleWrite(user('alice'), {
          ...write,
          rules: [{ verbs: ['get', 'list', 'delete'], apiGroups: [''], resources: ['configmaps', 'secrets'] }],
        }),
      ),
      'roles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}',
    );
    assert.equal(
      await forbiddenMessage(
        guard({ authorize: () => allow }).confirmRoleWrite(user('alice'), { ...write, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }),
      ),
      'allowed',
      'escalate',
    );
    assert.equal(
      await forbiddenMessage(
        guard().confirmRoleWrite({ username: 'root', groups: ['system:masters'] }, { ...write, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }),
      ),
      'allowed',
    );
  });

  it('lets a user bind a role they hold or may bind, and nothing else', async () => {
    const binding = (name: string) => ({
      resource: 'rolebindings' as const,
      namespace: 'team',
      name: 'b',
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    });
    assert.equal(await forbiddenMessage(guard().confirmBinding(user('alice'), binding('cm-reader'))), 'allowed');
    assert.match(
      await forbiddenMessage(guard().confirmBinding(user('alice'), binding('secret-reader'))),
      /^rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "alice" .* not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}$/,
    );
    assert.equal(
      await forbiddenMessage(guard().confirmBinding(user('alice'), binding('nope'))),
      'rolebindings.rbac.authorization.k8s.io "b" is forbidden: clusterrole.rbac.authorization.k8s.io "nope" not found',
    );
    const bindOnly: Authorizer = {
      authorize: (_u, a) => (a.verb === 'bind' && a.resource === 'clusterroles' && a.name === 'secret-reader' && a.namespace === 'team' ? allow : noOpinion),
    };
    assert.equal(await forbiddenMessage(guard(bindOnly).confirmBinding(user('alice'), binding('secret-reader'))), 'allowed');
  });
});
