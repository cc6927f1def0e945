/**
 * The authorization matrix, with real kubectl against a real API server under its default modes
 * (system:masters, then RBAC, with the bootstrap policy): every identity below tries every action
 * and each allow and each deny is asserted, with upstream's messages where they are shown.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueClientCertificate, loadCA } from '../shared/pki/certificates.ts';
import { httpsCall, startCluster, type Cluster, type CommandResult } from './harness.ts';

const tokens = ['alice-token,alice,uid-alice', 'bob-token,bob,uid-bob,"devs"', 'carol-token,carol,uid-carol'];

describe('authorization with RBAC', { timeout: 240_000 }, () => {
  let cluster: Cluster;
  /** kubectl as a token user (no client certificate), or anonymous with token ''. */
  const as = (token: string, args: readonly string[], input?: string) =>
    cluster.kubectl(args, { credentials: { token }, ...(input === undefined ? {} : { input }) });
  const admin = (args: readonly string[], input?: string) => cluster.kubectl(args, input === undefined ? {} : { input });

  before(async () => {
    cluster = await startCluster({ tokens, apiserverArgs: ['--enable-bootstrap-token-auth=true'] });
    for (const ns of ['team', 'other']) await admin(['create', 'namespace', ns]);
    await admin(['create', 'role', 'cm-editor', '-n', 'team', '--verb=get,list,watch,create,update,patch,delete', '--resource=configmaps']);
    await admin(['create', 'rolebinding', 'alice-cm', '-n', 'team', '--role=cm-editor', '--user=alice']);
    await admin(['create', 'clusterrolebinding', 'devs-view', '--clusterrole=view', '--group=devs']);
    await admin(['create', 'rolebinding', 'carol-ghost', '-n', 'team', '--role=does-not-exist', '--user=carol']);
    await admin(['create', 'configmap', 'seed', '-n', 'team', '--from-literal=a=1']);
    await admin(['create', 'secret', 'generic', 'hidden', '-n', 'team', '--from-literal=a=1']);
  });
  after(async () => cluster?.stop());

  const allowed = (r: CommandResult, what: string): void => assert.equal(r.code, 0, `${what} should be allowed:\n${r.stderr}`);
  const denied = (r: CommandResult, what: string, message?: string): void => {
    assert.notEqual(r.code, 0, `${what} should be denied:\n${r.stdout}`);
    assert.match(r.stderr, /Forbidden|forbidden/, what);
    if (message) assert.ok(r.stderr.includes(message), `${what}: expected ${JSON.stringify(message)} in\n${r.stderr}`);
  };

  it('lets system:masters do anything', async () => {
    allowed(await admin(['get', 'secrets', '-A']), 'admin lists secrets');
    allowed(await admin(['delete', 'configmap', 'seed', '-n', 'team', '--dry-run=server']), 'admin deletes');
    allowed(await admin(['get', '--raw', '/metrics']), 'admin reads /metrics');
  });

  it('gives a token user exactly what their namespaced Role grants', async () => {
    const alice = (...args: string[]) => as('alice-token', args);
    allowed(await alice('get', 'configmaps', '-n', 'team'), 'alice lists configmaps in team');
    allowed(await alice('create', 'configmap', 'mine', '-n', 'team', '--from-literal=k=v'), 'alice creates a configmap in team');
    allowed(await alice('patch', 'configmap', 'mine', '-n', 'team', '-p', '{"data":{"k":"w"}}'), 'alice patches it');
    allowed(await alice('delete', 'configmap', 'mine', '-n', 'team'), 'alice deletes it');
    denied(
      await alice('get', 'configmaps', '-n', 'other'),
      'alice lists configmaps elsewhere',
      'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "other"',
    );
    denied(
      await alice('get', 'secrets', '-n', 'team'),
      'alice lists secrets',
      'User "alice" cannot list resource "secrets" in API group "" in the namespace "team"',
    );
    denied(await alice('get', 'configmaps', '-A'), 'alice lists configmaps everywhere', 'at the cluster scope');
    denied(await alice('get', 'nodes'), 'alice lists nodes', 'User "alice" cannot list resource "nodes" in API group "" at the cluster scope');
    denied(await alice('delete', 'namespace', 'team'), 'alice deletes the namespace');
    denied(
      await alice('create', 'role', 'x', '-n', 'team', '--verb=get', '--resource=configmaps'),
      'alice writes RBAC',
      'cannot create resource "roles" in API group "rbac.authorization.k8s.io"',
    );
  });

  it('gives a group the aggregated view ClusterRole everywhere, and nothing it lacks', async () => {
    const bob = (...args: string[]) => as('bob-token', args);
    allowed(await bob('get', 'configmaps', '-n', 'team'), 'bob (devs) reads configmaps');
    allowed(await bob('get', 'configmaps', '-A'), 'bob reads configmaps in all namespaces');
    denied(await bob('get', 'secrets', '-n', 'team'), 'bob reads secrets (view excludes them)');
    denied(await bob('create', 'configmap', 'x', '-n', 'team'), 'bob writes');
    denied(await bob('get', 'clusterroles'), 'bob reads RBAC (view excludes it)');
  });

  it('grants nothing through a binding to a missing role, and says why', async () => {
    denied(
      await as('carol-token', ['get', 'configmaps', '-n', 'team']),
      'carol through a dangling binding',
      'User "carol" cannot list resource "configmaps" in API group "" in the namespace "team": RBAC: role.rbac.authorization.k8s.io "does-not-exist" not found',
    );
  });

  it('lets any authenticated user discover the API, ask whoami and can-i, but read nothing else', async () => {
    allowed(await as('carol-token', ['api-resources', '--api-group=rbac.authorization.k8s.io']), 'carol discovers');
    allowed(await as('carol-token', ['version']), 'carol reads the version');
    allowed(await as('carol-token', ['auth', 'whoami']), 'carol asks who she is');
    const canI = await as('carol-token', ['auth', 'can-i', 'list', 'namespaces']);
    assert.deepEqual([canI.code, canI.stdout.trim()], [1, 'no'], 'carol may ask what she may do');
    denied(await as('carol-token', ['get', 'namespaces']), 'carol lists namespaces');
  });

  it('lets anonymous requests read health and version only', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) {
      const res = await cluster.request({ path, authenticate: false });
      assert.equal(res.status, 200, `${path} anonymously`);
    }
    const api = await cluster.request({ path: '/api', authenticate: false });
    assert.equal(api.status, 403);
    assert.equal((api.json() as { message: string }).message, 'forbidden: User "system:anonymous" cannot get path "/api"');
    const cms = await cluster.request({ path: '/api/v1/namespaces/team/configmaps', authenticate: false });
    assert.equal(cms.status, 403);
    assert.equal(
      (cms.json() as { message: string }).message,
      'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "team"',
    );
    const bad = await cluster.request({ path: '/api/v1/namespaces', authenticate: false, headers: { authorization: 'Bearer nobody' } });
    assert.equal(bad.status, 401, 'an unknown token is never anonymous');
  });

  /** kubectl with a client certificate the cluster CA signs for `commonName` in `organizations`. */
  async function withCertificate(
    commonName: string,
    organizations: string[],
  ): Promise<((args: readonly string[]) => Promise<CommandResult>) & { certFile: string; keyFile: string }> {
    const pki = join(cluster.dataDir, 'pki');
    const ca = await loadCA(readFileSync(join(pki, 'ca.crt'), 'utf8'), readFileSync(join(pki, 'ca.key'), 'utf8'));
    const issued = await issueClientCertificate(ca, { commonName, organizations });
    const certFile = join(cluster.dir, `${commonName.replaceAll(':', '_')}.crt`);
    const keyFile = join(cluster.dir, `${commonName.replaceAll(':', '_')}.key`);
    writeFileSync(certFile, issued.certPem);
    writeFileSync(keyFile, issued.keyPem);
    const kubectl = (args: readonly string[]) => cluster.kubectl(args, { credentials: { certFile, keyFile } });
    return Object.assign(kubectl, { certFile, keyFile });
  }

  it('lets a node (client certificate) touch only its own Node, Lease and what nodes need', async () => {
    const nodeA = await withCertificate('system:node:node-a', ['system:nodes']);
    const node = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
    const lease = (name: string) =>
      JSON.stringify({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace: 'kube-node-lease' },
        spec: { holderIdentity: name, leaseDurationSeconds: 40 },
      });
    const nodeCreate = async (body: string) => {
      const file = join(cluster.dir, `manifest-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, body);
      return nodeA(['create', '-f', file]);
    };
    allowed(await nodeCreate(node('node-a')), 'node-a registers itself');
    allowed(await admin(['create', '-f', '-'], node('node-b')), 'the admin registers node-b');
    allowed(await nodeA(['get', 'node', 'node-a']), 'node-a reads itself');
    allowed(await nodeA(['label', 'node', 'node-a', 'kubelet.kubernetes.io/ready=yes']), 'node-a sets a kubelet label');
    allowed(await nodeCreate(lease('node-a')), 'node-a creates its lease');
    denied(await nodeA(['create', 'configmap', 'x', '-n', 'team']), 'node-a creates a configmap');
    denied(await nodeA(['get', 'node', 'node-b']), 'node-a reads node-b', "node 'node-a' cannot read 'node-b', only its own Node object");
    denied(await nodeA(['get', 'nodes']), 'node-a lists nodes', "node 'node-a' cannot read all nodes, only its own Node object");
    // kubectl reads before it patches, which node-a may not: the patch goes out raw.
    const patch = await httpsCall(
      cluster.urls[0] ?? '',
      { ca: cluster.caPem, cert: readFileSync(nodeA.certFile, 'utf8'), key: readFileSync(nodeA.keyFile, 'utf8') },
      {
        method: 'PATCH',
        path: '/api/v1/nodes/node-b',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: '{"metadata":{"labels":{"x":"y"}}}',
      },
    );
    assert.equal(patch.status, 403);
    assert.equal((patch.json() as { message: string }).message, 'nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"');
    denied(
      await nodeA(['label', 'node', 'node-a', 'node-role.kubernetes.io/control-plane=']),
      'node-a makes itself control plane',
      'is not allowed to modify labels: node-role.kubernetes.io/control-plane',
    );
    denied(await nodeCreate(node('node-c')), 'node-a registers node-c', 'node "node-a" is not allowed to modify node "node-c"');
    denied(await nodeCreate(lease('node-b')), "node-a takes node-b's lease", 'can only access node lease with the same name as the requesting node');
    denied(await nodeA(['get', 'secret', 'hidden', '-n', 'team']), 'node-a reads a secret', "no relationship found between node 'node-a' and this object");
    denied(await nodeA(['delete', 'namespace', 'team']), 'node-a deletes a namespace');
  });

  it('authenticates bootstrap tokens, which may create CSRs and nothing more', async () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' },
      type: 'bootstrap.kubernetes.io/token',
      stringData: {
        'token-id': 'abcdef',
        'token-secret': '0123456789abcdef',
        'usage-bootstrap-authentication': 'true',
        'auth-extra-groups': 'system:bootstrappers:worker',
      },
    };
    allowed(await admin(['create', '-f', '-'], JSON.stringify(secret)), 'the admin creates a bootstrap token');
    const joiner = (...args: string[]) => as('abcdef.0123456789abcdef', args);
    const whoami = await cluster.request({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      headers: { authorization: 'Bearer abcdef.0123456789abcdef', 'content-type': 'application/json' },
      body: '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}',
      authenticate: false,
    });
    assert.equal(whoami.status, 201, whoami.text);
    assert.deepEqual((whoami.json() as { status: { userInfo: unknown } }).status.userInfo, {
      username: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:worker', 'system:authenticated'],
    });
    allowed(await joiner('get', 'csr'), 'a bootstrap token lists CSRs');
    denied(
      await joiner('get', 'configmaps', '-n', 'team'),
      'a bootstrap token reads configmaps',
      'User "system:bootstrap:abcdef" cannot list resource "configmaps"',
    );
    const wrong = await as('abcdef.0123456789abcdee', ['get', 'csr']);
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /Unauthorized/, 'a wrong secret is 401, not anonymous');
    await admin(['delete', 'secret', 'bootstrap-token-abcdef', '-n', 'kube-system']);
    const gone = await joiner('get', 'csr');
    assert.match(gone.stderr, /Unauthorized/, 'a deleted token no longer authenticates');
  });

  it('lets --as act as another user only with the impersonate verb', async () => {
    allowed(await admin(['get', 'configmaps', '-n', 'team', '--as=alice']), 'the admin as alice reads configmaps');
    denied(await admin(['get', 'secrets', '-n', 'team', '--as=alice']), 'the admin as alice reads secrets', 'User "alice" cannot list resource "secrets"');
    denied(
      await as('alice-token', ['get', 'configmaps', '-n', 'team', '--as=bob']),
      'alice as bob',
      'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'impersonate-bob' },
      rules: [
        { verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['bob'] },
        { verbs: ['impersonate'], apiGroups: [''], resources: ['groups'], resourceNames: ['devs'] },
      ],
    };
    allowed(await admin(['create', '-f', '-'], JSON.stringify(role)), 'the admin creates an impersonation role');
    await admin(['create', 'clusterrolebinding', 'carol-impersonates-bob', '--clusterrole=impersonate-bob', '--user=carol']);
    // Impersonation asks for the groups too: bob alone is not in devs.
    denied(
      await as('carol-token', ['get', 'configmaps', '-n', 'team', '--as=bob']),
      'carol as bob without groups',
      'User "bob" cannot list resource "configmaps"',
    );
    allowed(await as('carol-token', ['get', 'configmaps', '-n', 'team', '--as=bob', '--as-group=devs']), 'carol as bob in devs reads what devs read');
    denied(
      await as('carol-token', ['get', 'configmaps', '-n', 'team', '--as=bob', '--as-group=system:masters']),
      'carol as bob in system:masters',
      'groups "system:masters" is forbidden: User "carol" cannot impersonate resource "groups"',
    );
  });
});

describe('RBAC escalation prevention', { timeout: 240_000 }, () => {
  let cluster: Cluster;
  const alice = (args: readonly string[]) => cluster.kubectl(args, { credentials: { token: 'alice-token' } });

  before(async () => {
    cluster = await startCluster({ tokens: ['alice-token,alice,uid-alice'] });
    await cluster.kubectl(['create', 'namespace', 'team']);
    await cluster.kubectl(['create', 'rolebinding', 'alice-admin', '-n', 'team', '--clusterrole=admin', '--user=alice']);
  });
  after(async () => cluster?.stop());

  it('lets a namespace admin grant what they hold', async () => {
    const r = await alice(['create', 'role', 'reader', '-n', 'team', '--verb=get,list', '--resource=configmaps,secrets']);
    assert.equal(r.code, 0, r.stderr);
    const b = await alice(['create', 'rolebinding', 'reader', '-n', 'team', '--role=reader', '--user=bob']);
    assert.equal(b.code, 0, b.stderr);
    const v = await alice(['create', 'rolebinding', 'viewers', '-n', 'team', '--clusterrole=view', '--group=viewers']);
    assert.equal(v.code, 0, v.stderr);
  });

  it("refuses roles and bindings that grant more, with upstream's message, and changes nothing", async () => {
    const r = await alice(['create', 'role', 'nodes', '-n', 'team', '--verb=get', '--resource=nodes']);
    assert.notEqual(r.code, 0);
    assert.ok(
      r.stderr.includes(
        'roles.rbac.authorization.k8s.io "nodes" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}',
      ),
      r.stderr,
    );
    const b = await alice(['create', 'rolebinding', 'root', '-n', 'team', '--clusterrole=cluster-admin', '--user=alice']);
    assert.notEqual(b.code, 0);
    assert.match(
      b.stderr,
      /rolebindings.rbac.authorization.k8s.io "root" is forbidden: user "alice" .* is attempting to grant RBAC permissions not currently held/,
    );
    const c = await alice(['create', 'clusterrolebinding', 'root', '--clusterrole=view', '--user=alice']);
    assert.notEqual(c.code, 0, 'a namespace admin writes no ClusterRoleBinding');
    const list = await cluster.kubectl(['get', 'roles,rolebindings', '-n', 'team', '-o', 'name']);
    assert.doesNotMatch(list.stdout, /role.rbac.authorization.k8s.io\/nodes|rolebinding.rbac.authorization.k8s.io\/root/);
  });

  it('lets `bind` and `escalate` stand in for holding the permissions', async () => {
    await cluster.kubectl(['create', 'clusterrole', 'binder', '--verb=bind', '--resource=clusterroles', '--resource-name=cluster-admin']);
    await cluster.kubectl(['create', 'rolebinding', 'alice-binder', '-n', 'team', '--clusterrole=binder', '--user=alice']);
    const b = await alice(['create', 'rolebinding', 'root', '-n', 'team', '--clusterrole=cluster-admin', '--user=carol']);
    assert.equal(b.code, 0, b.stderr);
    await cluster.kubectl(['create', 'clusterrole', 'escalator', '--verb=escalate', '--resource=roles']);
    await cluster.kubectl(['create', 'rolebinding', 'alice-escalator', '-n', 'team', '--clusterrole=escalator', '--user=alice']);
    const r = await alice(['create', 'role', 'nodes', '-n', 'team', '--verb=get', '--resource=nodes']);
    assert.equal(r.code, 0, r.stderr);
  });

  it('keeps roleRef immutable and accepts verbs it does not know, as upstream does', async () => {
    const patch = await cluster.kubectl(['patch', 'rolebinding', 'reader', '-n', 'team', '--type=merge', '-p', '{"roleRef":{"name":"other"}}']);
    assert.notEqual(patch.code, 0);
    assert.match(patch.stderr, /roleRef: Invalid value: .*: cannot change roleRef/);
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'frob' },
      rules: [{ verbs: ['frobnicate'], apiGroups: [''], resources: ['configmaps'] }],
    };
    const custom = await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(role) });
    assert.equal(custom.code, 0, custom.stderr);
  });
});
