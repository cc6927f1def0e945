/**
 * The real kubectl against one API server replica: discovery (api-resources), create/get/delete of
 * one object of every kind, the edit verbs on a ConfigMap, CSR approval, namespace termination and
 * the error texts kubectl prints from the server's Status. `--validate=false` wherever kubectl would
 * download OpenAPI for client-side validation.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { formatTimeOf } from '../shared/go/time.ts';
import { x509 } from '../shared/go/x509.ts';
import { generateKeyPair } from '../shared/pki/certificates.ts';
import { failed, startCluster, succeeded, type Cluster, type CommandResult } from './harness.ts';

const NS = 'e2e';

type Manifest = Record<string, unknown> & { metadata: { name: string; namespace?: string } };

interface KindCase {
  kind: string;
  apiVersion: string;
  /** The resource argument kubectl resolves unambiguously (core events and events.k8s.io share `events`). */
  resource: string;
  /** How kubectl names objects of the kind in `<display>/<name> created`. */
  display: string;
  manifest(): Manifest;
}

/** `configmaps`, `csidrivers.storage.k8s.io`: how a NotFound message names the kind's resource. */
function qualified(k: KindCase): string {
  const plural = k.resource.split('.')[0] ?? k.resource;
  const group = k.apiVersion.includes('/') ? k.apiVersion.split('/')[0] : '';
  return group ? `${plural}.${group}` : plural;
}

/** A PKCS#10 request (PEM) for CN=e2e-user, O=e2e, signed with a fresh P-256 key. */
async function certificateRequestPem(): Promise<string> {
  const keys = await generateKeyPair();
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'CN=e2e-user, O=e2e',
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
  });
  return request.toString('pem');
}

let csrPem = '';

const kinds: KindCase[] = [
  {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    resource: 'configmaps',
    display: 'configmap',
    manifest: () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kind-cm', namespace: NS }, data: { key: 'value' } }),
  },
  {
    kind: 'Secret',
    apiVersion: 'v1',
    resource: 'secrets',
    display: 'secret',
    manifest: () => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'kind-secret', namespace: NS },
      type: 'Opaque',
      data: { password: Buffer.from('hunter2').toString('base64') },
    }),
  },
  {
    kind: 'Namespace',
    apiVersion: 'v1',
    resource: 'namespaces',
    display: 'namespace',
    manifest: () => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kind-ns' } }),
  },
  {
    kind: 'Node',
    apiVersion: 'v1',
    resource: 'nodes',
    display: 'node',
    manifest: () => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'kind-node', labels: { 'kubernetes.io/hostname': 'kind-node' } },
      spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'] },
    }),
  },
  {
    kind: 'Event',
    apiVersion: 'v1',
    resource: 'events',
    display: 'event',
    manifest: () => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'kind-core-event', namespace: NS },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'kind-cm', namespace: NS },
      reason: 'Testing',
      message: 'created by the e2e tests',
      type: 'Normal',
      source: { component: 'e2e' },
      count: 1,
      firstTimestamp: '2024-01-01T00:00:00Z',
      lastTimestamp: '2024-01-01T00:00:00Z',
    }),
  },
  {
    kind: 'Event',
    apiVersion: 'events.k8s.io/v1',
    resource: 'events.events.k8s.io',
    display: 'event.events.k8s.io',
    manifest: () => ({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'kind-event', namespace: NS },
      eventTime: '2024-01-01T00:00:00.000000Z',
      reportingController: 'example.com/e2e',
      reportingInstance: 'e2e-1',
      action: 'Testing',
      reason: 'Testing',
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'kind-cm', namespace: NS },
      note: 'created by the e2e tests',
      type: 'Normal',
    }),
  },
  {
    kind: 'CSIDriver',
    apiVersion: 'storage.k8s.io/v1',
    resource: 'csidrivers',
    display: 'csidriver.storage.k8s.io',
    manifest: () => ({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIDriver',
      metadata: { name: 'e2e.csi.example.com' },
      spec: { attachRequired: true, podInfoOnMount: false },
    }),
  },
  {
    kind: 'CSINode',
    apiVersion: 'storage.k8s.io/v1',
    resource: 'csinodes',
    display: 'csinode.storage.k8s.io',
    manifest: () => ({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: { name: 'kind-node' },
      spec: { drivers: [{ name: 'e2e.csi.example.com', nodeID: 'kind-node', topologyKeys: ['topology.example.com/zone'] }] },
    }),
  },
  {
    kind: 'CSIStorageCapacity',
    apiVersion: 'storage.k8s.io/v1',
    resource: 'csistoragecapacities',
    display: 'csistoragecapacity.storage.k8s.io',
    manifest: () => ({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIStorageCapacity',
      metadata: { name: 'kind-capacity', namespace: NS },
      storageClassName: 'standard',
      capacity: '10Gi',
    }),
  },
  {
    kind: 'VolumeAttachment',
    apiVersion: 'storage.k8s.io/v1',
    resource: 'volumeattachments',
    display: 'volumeattachment.storage.k8s.io',
    manifest: () => ({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'kind-attachment' },
      spec: { attacher: 'e2e.csi.example.com', nodeName: 'kind-node', source: { persistentVolumeName: 'pv-1' } },
    }),
  },
  {
    kind: 'CertificateSigningRequest',
    apiVersion: 'certificates.k8s.io/v1',
    resource: 'certificatesigningrequests',
    display: 'certificatesigningrequest.certificates.k8s.io',
    manifest: () => ({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'kind-csr' },
      spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
    }),
  },
  {
    kind: 'Lease',
    apiVersion: 'coordination.k8s.io/v1',
    resource: 'leases',
    display: 'lease.coordination.k8s.io',
    manifest: () => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'kind-lease', namespace: NS },
      spec: { holderIdentity: 'e2e', leaseDurationSeconds: 15 },
    }),
  },
  {
    kind: 'Role',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    resource: 'roles',
    display: 'role.rbac.authorization.k8s.io',
    manifest: () => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'kind-role', namespace: NS },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
    }),
  },
  {
    kind: 'ClusterRoleBinding',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    resource: 'clusterrolebindings',
    display: 'clusterrolebinding.rbac.authorization.k8s.io',
    manifest: () => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kind-crb' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'e2e' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    }),
  },
  {
    kind: 'ClusterCIDR',
    apiVersion: 'networking.k8s.io/v1alpha1',
    resource: 'clustercidrs',
    display: 'clustercidr.networking.k8s.io',
    manifest: () => ({
      apiVersion: 'networking.k8s.io/v1alpha1',
      kind: 'ClusterCIDR',
      metadata: { name: 'kind-cidr' },
      spec: { perNodeHostBits: 8, ipv4: '10.96.0.0/16' },
    }),
  },
];

interface ApiResourceRow {
  name: string;
  shortNames: string;
  apiVersion: string;
  namespaced: string;
  kind: string;
}

/** Parses `kubectl api-resources` by the header's column offsets (SHORTNAMES may be empty). */
function parseApiResources(stdout: string): ApiResourceRow[] {
  const [header = '', ...lines] = stdout.trimEnd().split('\n');
  const starts = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'].map((c) => header.indexOf(c));
  assert.ok(
    starts.every((s) => s >= 0),
    `unexpected header: ${header}`,
  );
  const cell = (line: string, i: number): string => line.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined).trim();
  return lines.map((line) => ({ name: cell(line, 0), shortNames: cell(line, 1), apiVersion: cell(line, 2), namespaced: cell(line, 3), kind: cell(line, 4) }));
}

describe('kubectl against one replica', () => {
  let cluster: Cluster;
  const kubectl = (args: string[], input?: string): Promise<CommandResult> => cluster.kubectl(args, input === undefined ? {} : { input });
  const getJson = async (args: string[]): Promise<Record<string, unknown>> =>
    JSON.parse(succeeded(await kubectl(['get', ...args, '-o', 'json']))) as Record<string, unknown>;
  const createFrom = (manifest: Manifest): Promise<CommandResult> => kubectl(['create', '--validate=false', '-f', '-'], JSON.stringify(manifest));

  before(
    async () => {
      [cluster, csrPem] = await Promise.all([startCluster({ apiserverArgs: ['--runtime-config=networking.k8s.io/v1alpha1=true'] }), certificateRequestPem()]);
      succeeded(await createFrom({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }));
    },
    { timeout: 120_000 },
  );
  after(async () => {
    await cluster?.stop();
  });

  describe('api-resources', () => {
    let rows: ApiResourceRow[] = [];
    before(async () => {
      rows = parseApiResources(succeeded(await kubectl(['api-resources'])));
    });
    const expected: ApiResourceRow[] = [
      { name: 'configmaps', shortNames: 'cm', apiVersion: 'v1', namespaced: 'true', kind: 'ConfigMap' },
      { name: 'namespaces', shortNames: 'ns', apiVersion: 'v1', namespaced: 'false', kind: 'Namespace' },
      { name: 'nodes', shortNames: 'no', apiVersion: 'v1', namespaced: 'false', kind: 'Node' },
      { name: 'pods', shortNames: 'po', apiVersion: 'v1', namespaced: 'true', kind: 'Pod' },
      { name: 'secrets', shortNames: '', apiVersion: 'v1', namespaced: 'true', kind: 'Secret' },
      { name: 'services', shortNames: 'svc', apiVersion: 'v1', namespaced: 'true', kind: 'Service' },
      { name: 'endpoints', shortNames: 'ep', apiVersion: 'v1', namespaced: 'true', kind: 'Endpoints' },
      { name: 'endpointslices', shortNames: '', apiVersion: 'discovery.k8s.io/v1', namespaced: 'true', kind: 'EndpointSlice' },
      { name: 'events', shortNames: 'ev', apiVersion: 'v1', namespaced: 'true', kind: 'Event' },
      { name: 'componentstatuses', shortNames: 'cs', apiVersion: 'v1', namespaced: 'false', kind: 'ComponentStatus' },
      { name: 'events', shortNames: 'ev', apiVersion: 'events.k8s.io/v1', namespaced: 'true', kind: 'Event' },
      { name: 'certificatesigningrequests', shortNames: 'csr', apiVersion: 'certificates.k8s.io/v1', namespaced: 'false', kind: 'CertificateSigningRequest' },
      { name: 'leases', shortNames: '', apiVersion: 'coordination.k8s.io/v1', namespaced: 'true', kind: 'Lease' },
      { name: 'csidrivers', shortNames: '', apiVersion: 'storage.k8s.io/v1', namespaced: 'false', kind: 'CSIDriver' },
      { name: 'csinodes', shortNames: '', apiVersion: 'storage.k8s.io/v1', namespaced: 'false', kind: 'CSINode' },
      { name: 'csistoragecapacities', shortNames: '', apiVersion: 'storage.k8s.io/v1', namespaced: 'true', kind: 'CSIStorageCapacity' },
      { name: 'volumeattachments', shortNames: '', apiVersion: 'storage.k8s.io/v1', namespaced: 'false', kind: 'VolumeAttachment' },
      { name: 'clustercidrs', shortNames: '', apiVersion: 'networking.k8s.io/v1alpha1', namespaced: 'false', kind: 'ClusterCIDR' },
      { name: 'clusterrolebindings', shortNames: '', apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: 'false', kind: 'ClusterRoleBinding' },
      { name: 'clusterroles', shortNames: '', apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: 'false', kind: 'ClusterRole' },
      { name: 'rolebindings', shortNames: '', apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: 'true', kind: 'RoleBinding' },
      { name: 'roles', shortNames: '', apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: 'true', kind: 'Role' },
      { name: 'selfsubjectreviews', shortNames: '', apiVersion: 'authentication.k8s.io/v1', namespaced: 'false', kind: 'SelfSubjectReview' },
      { name: 'tokenreviews', shortNames: '', apiVersion: 'authentication.k8s.io/v1', namespaced: 'false', kind: 'TokenReview' },
      { name: 'localsubjectaccessreviews', shortNames: '', apiVersion: 'authorization.k8s.io/v1', namespaced: 'true', kind: 'LocalSubjectAccessReview' },
      { name: 'selfsubjectaccessreviews', shortNames: '', apiVersion: 'authorization.k8s.io/v1', namespaced: 'false', kind: 'SelfSubjectAccessReview' },
      { name: 'selfsubjectrulesreviews', shortNames: '', apiVersion: 'authorization.k8s.io/v1', namespaced: 'false', kind: 'SelfSubjectRulesReview' },
      { name: 'subjectaccessreviews', shortNames: '', apiVersion: 'authorization.k8s.io/v1', namespaced: 'false', kind: 'SubjectAccessReview' },
    ];
    for (const row of expected) {
      it(`lists ${row.name} (${row.apiVersion})`, () => {
        const found = rows.find((r) => r.name === row.name && r.apiVersion === row.apiVersion);
        assert.deepEqual(found, row, `kubectl api-resources has no ${row.name} in ${row.apiVersion}`);
      });
    }
    it('lists nothing else', () => {
      const unexpected = rows.filter((r) => !expected.some((e) => e.name === r.name && e.apiVersion === r.apiVersion));
      assert.deepEqual(unexpected, []);
    });
  });

  describe('create -f, get -o json / -o yaml and delete of every kind', () => {
    for (const k of kinds) {
      it(`${k.kind} (${k.apiVersion})`, async () => {
        const manifest = k.manifest();
        const { name, namespace } = manifest.metadata;
        const nsArgs = namespace ? ['-n', namespace] : [];
        assert.equal(succeeded(await createFrom(manifest)), `${k.display}/${name} created\n`);

        const json = await getJson([k.resource, name, ...nsArgs]);
        assert.equal(json.apiVersion, k.apiVersion);
        assert.equal(json.kind, k.kind);
        const meta = json.metadata as Record<string, unknown>;
        assert.equal(meta.name, name);
        assert.equal(meta.namespace, namespace);
        assert.match(String(meta.uid), /^[0-9a-f-]{36}$/);
        assert.match(String(meta.resourceVersion), /^\d+$/);
        assert.match(String(meta.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

        const yaml = parseYaml(succeeded(await kubectl(['get', k.resource, name, ...nsArgs, '-o', 'yaml']))) as Record<string, unknown>;
        assert.deepEqual(yaml, json);

        const listed = succeeded(await kubectl(['get', k.resource, ...(namespace ? ['-A'] : []), '-o', 'name']));
        assert.ok(listed.split('\n').includes(`${k.display}/${name}`), `get -o name lists ${name}:\n${listed}`);

        // --wait=false: a namespace stays Terminating (no namespace controller runs), and kubectl would wait for it.
        assert.equal(succeeded(await kubectl(['delete', k.resource, name, ...nsArgs, '--wait=false'])), `${k.display} "${name}" deleted\n`);
        if (k.kind !== 'Namespace') {
          assert.equal(failed(await kubectl(['get', k.resource, name, ...nsArgs])), `Error from server (NotFound): ${qualified(k)} "${name}" not found\n`);
        }
      });
    }
  });

  describe('editing a ConfigMap', () => {
    const name = 'edited';
    before(async () => {
      succeeded(await createFrom({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { a: '1' } }));
    });

    it('get -A lists it with its namespace', async () => {
      const out = succeeded(await kubectl(['get', 'configmaps', '-A']));
      const [header = '', ...rows] = out.trimEnd().split('\n');
      assert.match(header, /^NAMESPACE\s+NAME\s/);
      assert.ok(
        rows.some((r) => new RegExp(`^${NS}\\s+${name}\\s`).test(r)),
        out,
      );
    });

    it('get -A prints upstream ConfigMap columns', async () => {
      const out = succeeded(await kubectl(['get', 'configmaps', '-A']));
      assert.match(out.split('\n')[0] ?? '', /^NAMESPACE\s+NAME\s+DATA\s+AGE$/);
    });

    it('label', async () => {
      assert.equal(succeeded(await kubectl(['label', 'configmap', name, '-n', NS, 'app=web'])), `configmap/${name} labeled\n`);
      const meta = (await getJson(['configmap', name, '-n', NS])).metadata as { labels?: Record<string, string> };
      assert.deepEqual(meta.labels, { app: 'web' });
    });

    it('annotate', async () => {
      assert.equal(succeeded(await kubectl(['annotate', 'configmap', name, '-n', NS, 'example.com/note=hello'])), `configmap/${name} annotated\n`);
      const meta = (await getJson(['configmap', name, '-n', NS])).metadata as { annotations?: Record<string, string> };
      assert.equal(meta.annotations?.['example.com/note'], 'hello');
    });

    it('patch --type merge', async () => {
      assert.equal(
        succeeded(await kubectl(['patch', 'configmap', name, '-n', NS, '--type', 'merge', '-p', '{"data":{"b":"2","a":null}}'])),
        `configmap/${name} patched\n`,
      );
      assert.deepEqual((await getJson(['configmap', name, '-n', NS])).data, { b: '2' });
    });

    it('patch --type json', async () => {
      const patch = JSON.stringify([
        { op: 'add', path: '/data/c', value: '3' },
        { op: 'replace', path: '/data/b', value: 'two' },
      ]);
      assert.equal(succeeded(await kubectl(['patch', 'configmap', name, '-n', NS, '--type', 'json', '-p', patch])), `configmap/${name} patched\n`);
      assert.deepEqual((await getJson(['configmap', name, '-n', NS])).data, { b: 'two', c: '3' });
    });

    it('patch --type json with a failing test operation is refused and changes nothing', async () => {
      const before = await getJson(['configmap', name, '-n', NS]);
      const patch = JSON.stringify([
        { op: 'test', path: '/data/b', value: 'nope' },
        { op: 'remove', path: '/data/b' },
      ]);
      const stderr = failed(await kubectl(['patch', 'configmap', name, '-n', NS, '--type', 'json', '-p', patch]));
      assert.match(stderr, /^The request is invalid/);
      assert.deepEqual(await getJson(['configmap', name, '-n', NS]), before);
    });

    it('replace', async () => {
      const current = await getJson(['configmap', name, '-n', NS]);
      const replaced = { ...current, data: { replaced: 'yes' } };
      assert.equal(succeeded(await kubectl(['replace', '--validate=false', '-f', '-'], JSON.stringify(replaced))), `configmap/${name} replaced\n`);
      const after = await getJson(['configmap', name, '-n', NS]);
      assert.deepEqual(after.data, { replaced: 'yes' });
      assert.deepEqual((after.metadata as { labels?: unknown }).labels, { app: 'web' });
    });

    it('replace with a stale resourceVersion is a conflict', async () => {
      const current = await getJson(['configmap', name, '-n', NS]);
      const meta = current.metadata as Record<string, unknown>;
      const stale = { ...current, metadata: { ...meta, resourceVersion: '1' }, data: { stale: 'yes' } };
      const stderr = failed(await kubectl(['replace', '--validate=false', '-f', '-'], JSON.stringify(stale)));
      assert.equal(
        stderr,
        `Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again\n`,
      );
    });

    it('create of an existing name is AlreadyExists', async () => {
      const stderr = failed(await createFrom({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS } }));
      assert.equal(stderr, `Error from server (AlreadyExists): error when creating "STDIN": configmaps "${name}" already exists\n`);
    });

    it('delete, then get is NotFound', async () => {
      assert.equal(succeeded(await kubectl(['delete', 'configmap', name, '-n', NS])), `configmap "${name}" deleted\n`);
      assert.equal(failed(await kubectl(['get', 'configmap', name, '-n', NS])), `Error from server (NotFound): configmaps "${name}" not found\n`);
    });
  });

  it('an invalid object is refused with the field error', async () => {
    const stderr = failed(await createFrom({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad', namespace: NS }, data: { 'a b': 'x' } }));
    assert.equal(
      stderr,
      `The ConfigMap "bad" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')\n`,
    );
    failed(await kubectl(['get', 'configmap', 'bad', '-n', NS]));
  });

  it('several field errors are listed one per line', async () => {
    const stderr = failed(await createFrom({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name', namespace: NS }, data: { 'a b': 'x' } }));
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines[0], 'The ConfigMap "Bad_Name" is invalid: ');
    assert.match(
      lines[1] ?? '',
      /^\* metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters/,
    );
    assert.match(lines[2] ?? '', /^\* data\[a b\]: Invalid value: "a b": a valid config key must consist of alphanumeric characters/);
    assert.equal(lines.length, 3);
  });

  it('kubectl create namespace (typed client, protobuf body)', async () => {
    assert.equal(succeeded(await kubectl(['create', 'namespace', 'typed-ns'])), 'namespace/typed-ns created\n');
  });

  it('kubectl create configmap (typed client, protobuf body)', async () => {
    assert.equal(succeeded(await kubectl(['create', 'configmap', 'typed-cm', '-n', NS, '--from-literal=a=b'])), 'configmap/typed-cm created\n');
  });

  describe('CSR approval', () => {
    const csrNamed = (name: string): Manifest => {
      const manifest = kinds.find((k) => k.kind === 'CertificateSigningRequest')!.manifest();
      manifest.metadata.name = name;
      return manifest;
    };
    const approvedCondition = async (name: string): Promise<Record<string, unknown> | undefined> => {
      const csr = await getJson(['csr', name]);
      const conditions = (csr.status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions ?? [];
      assert.equal(conditions.length, 1, JSON.stringify(csr.status));
      // The spec (the request and who made it) is untouched by approval.
      assert.equal((csr.spec as { username?: string }).username, 'kubernetes-admin');
      return conditions[0];
    };

    it('the approval subresource takes the condition kubectl certificate approve adds (JSON body)', async () => {
      const name = 'approve-json';
      assert.equal(succeeded(await createFrom(csrNamed(name))), `certificatesigningrequest.certificates.k8s.io/${name} created\n`);
      const csr = await getJson(['csr', name]);
      const condition = {
        type: 'Approved',
        status: 'True',
        reason: 'KubectlApprove',
        message: 'This CSR was approved by kubectl certificate approve.',
        lastUpdateTime: formatTimeOf(new Date()),
      };
      const res = await cluster.request({
        method: 'PUT',
        path: `/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}/approval`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...csr, status: { conditions: [condition] } }),
      });
      assert.equal(res.status, 200, res.text);
      const stored = await approvedCondition(name);
      // The server fills lastTransitionTime of a new condition, as upstream's CSR strategy does.
      assert.match(String(stored?.lastTransitionTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual({ ...stored, lastTransitionTime: undefined }, { ...condition, lastTransitionTime: undefined });
    });

    it('kubectl certificate approve', async () => {
      const name = 'approve-kubectl';
      succeeded(await createFrom(csrNamed(name)));
      assert.equal(succeeded(await kubectl(['certificate', 'approve', name])), `certificatesigningrequest.certificates.k8s.io/${name} approved\n`);
      const approved = await approvedCondition(name);
      assert.equal(approved?.type, 'Approved');
      assert.equal(approved?.status, 'True');
      assert.equal(approved?.reason, 'KubectlApprove');
      assert.equal(approved?.message, 'This CSR was approved by kubectl certificate approve.');
      assert.match(String(approved?.lastUpdateTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });
  });

  it('get componentstatuses reports etcd with the deprecation warning', async () => {
    const result = await kubectl(['get', 'componentstatuses']);
    const out = succeeded(result);
    assert.match(out, /^etcd-0\s/m);
    assert.match(result.stderr, /^Warning: v1 ComponentStatus is deprecated in v1\.19\+$/m);
  });

  describe('--sort-by (Table rows with includeObject=Object)', () => {
    const sorted = 'sorted';
    /** The rows kubectl printed, header first; fails on an empty row or an `<unknown>` cell. */
    const rowsOf = (out: string): string[][] => {
      const rows = out
        .trimEnd()
        .split('\n')
        .map((line) => line.trim().split(/\s{2,}/));
      for (const row of rows) assert.ok(row.join('') !== '' && !row.includes('<unknown>'), out);
      return rows;
    };
    const coreEvent = (name: string, lastTimestamp: string, message: string): Manifest => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: sorted },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', namespace: sorted },
      reason: 'Sorting',
      message,
      type: 'Normal',
      source: { component: 'e2e' },
      count: 1,
      firstTimestamp: '2024-01-01T00:00:00Z',
      lastTimestamp,
    });

    before(async () => {
      succeeded(await createFrom({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: sorted } }));
      for (const name of ['c', 'a', 'b'])
        succeeded(await createFrom({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: sorted }, data: { k: name } }));
      // Times in other offsets and with fractions: stored in UTC to the second, they sort as instants.
      succeeded(await createFrom(coreEvent('ev-late', '2024-01-03T00:00:00Z', 'third')));
      succeeded(await createFrom(coreEvent('ev-early', '2024-01-02T01:30:00.9+02:00', 'first')));
      succeeded(await createFrom(coreEvent('ev-mid', '2024-01-02T00:00:00-01:00', 'second')));
    });

    it('get configmaps --sort-by=.metadata.name prints every row, in name order', async () => {
      const [header, ...rows] = rowsOf(succeeded(await kubectl(['get', 'configmaps', '-n', sorted, '--sort-by=.metadata.name'])));
      assert.deepEqual(header, ['NAME', 'DATA', 'AGE']);
      assert.deepEqual(
        rows.map((row) => row[0]).filter((name) => name !== 'kube-root-ca.crt'),
        ['a', 'b', 'c'],
      );
    });

    it('get events --sort-by=.lastTimestamp prints every row, oldest first', async () => {
      const [header, ...rows] = rowsOf(succeeded(await kubectl(['get', 'events', '-n', sorted, '--sort-by=.lastTimestamp'])));
      assert.deepEqual(header, ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
      assert.deepEqual(
        rows.map((row) => row[row.length - 1]),
        ['first', 'second', 'third'],
      );
    });

    it('times are served in UTC to the second, as written in another offset', async () => {
      const early = await getJson(['event', 'ev-early', '-n', sorted]);
      assert.equal(early.lastTimestamp, '2024-01-01T23:30:00Z');
      const mid = await getJson(['event', 'ev-mid', '-n', sorted]);
      assert.equal(mid.lastTimestamp, '2024-01-02T01:00:00Z');
    });

    it('a time Go cannot parse is refused with its parse error', async () => {
      const stderr = failed(await createFrom(coreEvent('ev-bad', 'yesterday', 'never')));
      assert.equal(
        stderr,
        'Error from server (BadRequest): error when creating "STDIN": Event in version "v1" cannot be handled as a Event: ' +
          'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"\n',
      );
    });
  });

  describe('namespace lifecycle', () => {
    const doomed = 'doomed';
    before(async () => {
      succeeded(await createFrom({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: doomed } }));
      succeeded(await createFrom({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inside', namespace: doomed } }));
    });

    it('delete sets the namespace Terminating', async () => {
      assert.equal(succeeded(await kubectl(['delete', 'namespace', doomed, '--wait=false'])), `namespace "${doomed}" deleted\n`);
      const ns = await getJson(['namespace', doomed]);
      assert.equal((ns.status as { phase?: string }).phase, 'Terminating');
      assert.ok((ns.metadata as { deletionTimestamp?: string }).deletionTimestamp);
      assert.deepEqual((ns.spec as { finalizers?: string[] }).finalizers, ['kubernetes']);
    });

    it('creating in a terminating namespace is forbidden', async () => {
      const stderr = failed(await createFrom({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late', namespace: doomed } }));
      assert.equal(
        stderr,
        `Error from server (Forbidden): error when creating "STDIN": configmaps "late" is forbidden: unable to create new content in namespace ${doomed} because it is being terminated\n`,
      );
    });

    it('objects already inside stay readable and updatable', async () => {
      succeeded(await kubectl(['label', 'configmap', 'inside', '-n', doomed, 'still=here']));
      const cm = await getJson(['configmap', 'inside', '-n', doomed]);
      assert.deepEqual((cm.metadata as { labels?: unknown }).labels, { still: 'here' });
    });

    it('creating in a missing namespace is NotFound', async () => {
      const stderr = failed(await createFrom({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'orphan', namespace: 'no-such-namespace' } }));
      assert.equal(stderr, `Error from server (NotFound): error when creating "STDIN": namespaces "no-such-namespace" not found\n`);
    });
  });
});
