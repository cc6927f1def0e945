import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../../shared/api/errors.ts';
import { allow, noOpinion, type AuthorizationAttributes, type Authorizer } from '../authorization/authorizer.ts';
import { impersonate, requestedImpersonation } from './impersonation.ts';

const alice = { username: 'alice', groups: ['system:authenticated'] };
/** Allows what `allowed` lists as `resource/name`, and records every question. */
function authorizer(...allowed: string[]): Authorizer & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    authorize: (_user, a) => {
      asked.push(a);
      const key = `${a.resource}${a.subresource ? `/${a.subresource}` : ''}/${a.name}`;
      return a.verb === 'impersonate' && allowed.includes(key) ? allow : noOpinion;
    },
  };
}

describe('impersonation', () => {
  it('reads repeated headers apart and unescapes extra keys', () => {
    const requested = requestedImpersonation([
      'Impersonate-User',
      'bob',
      'Impersonate-Group',
      'a',
      'impersonate-group',
      'b, c',
      'Impersonate-Extra-Scope%2Fx',
      'one',
      'Accept',
      '*/*',
    ]);
    assert.deepEqual(requested, { username: 'bob', groups: ['a', 'b, c'], extra: { 'scope/x': ['one'] } });
    assert.equal(requestedImpersonation(['Accept', '*/*']), undefined);
  });

  it('leaves a request without headers as it is', async () => {
    assert.equal(await impersonate(['Accept', '*/*'], alice, authorizer()), alice);
  });

  it('acts as the user once each part is authorized, adding system:authenticated', async () => {
    const auth = authorizer('users/bob', 'groups/devs', 'userextras/scopes/read', 'uids/42');
    const user = await impersonate(
      ['Impersonate-User', 'bob', 'Impersonate-Group', 'devs', 'Impersonate-Extra-Scopes', 'read', 'Impersonate-Uid', '42'],
      alice,
      auth,
    );
    assert.deepEqual(user, { username: 'bob', groups: ['devs', 'system:authenticated'], uid: '42', extra: { scopes: ['read'] } });
    assert.deepEqual(
      auth.asked.map((a) => [a.apiGroup, a.resource, a.subresource, a.name]),
      [
        ['', 'users', '', 'bob'],
        ['', 'groups', '', 'devs'],
        ['authentication.k8s.io', 'userextras', 'scopes', 'read'],
        ['authentication.k8s.io', 'uids', '', '42'],
      ],
    );
  });

  it('gives service accounts their groups and anonymous its group', async () => {
    const sa = await impersonate(['Impersonate-User', 'system:serviceaccount:team:robot'], alice, {
      authorize: (_u, a) => (a.resource === 'serviceaccounts' && a.namespace === 'team' && a.name === 'robot' ? allow : noOpinion),
    });
    assert.deepEqual(sa.groups, ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated']);
    const anonymous = await impersonate(['Impersonate-User', 'system:anonymous'], alice, authorizer('users/system:anonymous'));
    assert.deepEqual(anonymous.groups, ['system:unauthenticated']);
  });

  it("refuses what is not authorized with upstream's 403, and a request without a user with 400", async () => {
    await assert.rejects(impersonate(['Impersonate-User', 'bob', 'Impersonate-Group', 'system:masters'], alice, authorizer('users/bob')), (err: unknown) => {
      assert.ok(isStatusError(err, 'Forbidden'));
      assert.equal(
        err.status.message,
        'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
      );
      return true;
    });
    await assert.rejects(impersonate(['Impersonate-Group', 'devs'], alice, authorizer()), (err: unknown) => isStatusError(err, 'BadRequest'));
  });
});
