/**
 * kubectl's auth commands against a real API server: `auth whoami` (SelfSubjectReview), `auth can-i`
 * (SelfSubjectAccessReview, and SelfSubjectRulesReview with --list), and reviews an admin posts for
 * someone else (SubjectAccessReview, TokenReview), and `--as`, which impersonates.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCluster, type Cluster, type CommandResult } from './harness.ts';

describe('kubectl auth commands', { timeout: 240_000 }, () => {
  let cluster: Cluster;
  const admin = (args: readonly string[], input?: string) => cluster.kubectl(args, input === undefined ? {} : { input });
  const alice = (...args: string[]) => cluster.kubectl(args, { credentials: { token: 'alice-token' } });

  before(async () => {
    cluster = await startCluster({ tokens: ['alice-token,alice,uid-alice,"devs"'] });
    await admin(['create', 'namespace', 'team']);
    await admin(['create', 'role', 'cm-reader', '-n', 'team', '--verb=get,list', '--resource=configmaps']);
    await admin(['create', 'rolebinding', 'alice-cm', '-n', 'team', '--role=cm-reader', '--user=alice']);
  });
  after(async () => cluster?.stop());

  /**
   * kubectl create -f of a kind without PATCH (every review) asks the server whether CRDs exist,
   * to choose its validation; corral serves no apiextensions.k8s.io, so validation is turned off.
   */
  const create = ['create', '--validate=false', '-f', '-'];
  const ok = (r: CommandResult, what: string): string => {
    assert.equal(r.code, 0, `${what}:\n${r.stderr}`);
    return r.stdout;
  };

  it('whoami names the admin certificate and a token user with their groups', async () => {
    const adminOut = ok(await admin(['auth', 'whoami']), 'admin whoami');
    assert.match(adminOut, /Username\s+kubernetes-admin/);
    assert.match(adminOut, /Groups\s+\[system:masters system:authenticated\]/);
    const aliceOut = ok(await alice('auth', 'whoami', '-o', 'json'), 'alice whoami');
    const review = JSON.parse(aliceOut) as { kind: string; status: { userInfo: { username: string; uid: string; groups: string[] } } };
    assert.equal(review.kind, 'SelfSubjectReview');
    assert.deepEqual(review.status.userInfo, { username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'] });
  });

  it('can-i answers yes (exit 0) where a RoleBinding grants, no (exit 1) elsewhere', async () => {
    const yes = await alice('auth', 'can-i', 'list', 'configmaps', '-n', 'team');
    assert.deepEqual([yes.code, yes.stdout.trim()], [0, 'yes']);
    for (const args of [
      ['list', 'configmaps', '-n', 'default'],
      ['delete', 'configmaps', '-n', 'team'],
      ['list', 'secrets', '-n', 'team'],
    ]) {
      const no = await alice('auth', 'can-i', ...args);
      assert.deepEqual([no.code, no.stdout.trim()], [1, 'no'], args.join(' '));
    }
    const adminYes = await admin(['auth', 'can-i', '*', '*']);
    assert.deepEqual([adminYes.code, adminYes.stdout.trim()], [0, 'yes']);
  });

  it('can-i --as answers for the impersonated user', async () => {
    const yes = await admin(['auth', 'can-i', 'list', 'configmaps', '-n', 'team', '--as=alice']);
    assert.deepEqual([yes.code, yes.stdout.trim()], [0, 'yes']);
    const no = await admin(['auth', 'can-i', 'list', 'secrets', '-n', 'team', '--as=alice']);
    assert.deepEqual([no.code, no.stdout.trim()], [1, 'no']);
    const whoami = ok(await admin(['auth', 'whoami', '--as=alice', '--as-group=devs', '-o', 'json']), 'whoami --as');
    assert.deepEqual((JSON.parse(whoami) as { status: { userInfo: unknown } }).status.userInfo, {
      username: 'alice',
      groups: ['devs', 'system:authenticated'],
    });
    const refused = await alice('auth', 'can-i', 'list', 'configmaps', '--as=bob');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope/);
  });

  it('can-i --list shows the rules granted in the namespace', async () => {
    const out = ok(await alice('auth', 'can-i', '--list', '-n', 'team'), 'alice can-i --list');
    assert.match(out, /^configmaps\s+\[\]\s+\[\]\s+\[get list\]$/m);
    // The bootstrap policy lets every authenticated user ask about themselves.
    assert.match(out, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    const elsewhere = ok(await alice('auth', 'can-i', '--list', '-n', 'default'), 'alice can-i --list elsewhere');
    assert.doesNotMatch(elsewhere, /^configmaps\s/m);
  });

  it('an admin asks about alice with a SubjectAccessReview', async () => {
    const review = (namespace: string) =>
      JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'alice', groups: ['system:authenticated'], resourceAttributes: { namespace, verb: 'get', resource: 'configmaps' } },
      });
    const allowed = JSON.parse(ok(await admin([...create, '-o', 'json'], review('team')), 'SAR in team')) as { status: { allowed: boolean; reason?: string } };
    assert.equal(allowed.status.allowed, true);
    assert.match(allowed.status.reason ?? '', /RoleBinding "alice-cm\/team"/);
    const denied = JSON.parse(ok(await admin([...create, '-o', 'json'], review('default')), 'SAR in default')) as { status: { allowed: boolean } };
    assert.equal(denied.status.allowed, false);
    const invalid = await admin(create, JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice' } }));
    assert.notEqual(invalid.code, 0);
    assert.match(invalid.stderr, /exactly one of nonResourceAttributes or resourceAttributes must be specified/);
  });

  it("an admin checks alice's token with a TokenReview", async () => {
    const tokenReview = (token: string) => JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    const known = JSON.parse(ok(await admin([...create, '-o', 'json'], tokenReview('alice-token')), 'TokenReview')) as {
      status: { authenticated?: boolean; user: { username?: string; groups?: string[] } };
    };
    assert.deepEqual(known.status, { authenticated: true, user: { username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'] } });
    const unknown = JSON.parse(ok(await admin([...create, '-o', 'json'], tokenReview('nobody')), 'TokenReview of an unknown token')) as {
      status: { authenticated?: boolean; error?: string };
    };
    assert.deepEqual([unknown.status.authenticated, unknown.status.error], [undefined, 'invalid bearer token']);
  });

  it('alice may not ask about others', async () => {
    const sar = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'bob', nonResourceAttributes: { path: '/', verb: 'get' } },
    };
    const r = await cluster.kubectl(create, { credentials: { token: 'alice-token' }, input: JSON.stringify(sar) });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope/);
  });
});
