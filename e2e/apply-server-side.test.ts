/**
 * Server-side apply against one replica: the real kubectl (`apply --server-side`, conflicts and
 * `--force-conflicts`, `--subresource=status`, `--dry-run=server`, and the Update entries of its
 * other commands) and raw HTTPS for what kubectl hides (the exact 409 and 422 Status bodies, the
 * manager derived from the User-Agent). Every kind the server stores is applied to once, with its
 * status subresource where it has one, from the conformance fixtures.
 *
 * Expectations are upstream kube-apiserver 1.32's: managedFields entries (manager, operation,
 * apiVersion, time, fieldsType, fieldsV1, subresource), conflict messages and causes, and the
 * list-type and map-type markers of the schemas (Node status.conditions and status.addresses keyed
 * by type, CSINode spec.drivers keyed by name, CSIDriver spec.tokenRequests atomic and
 * spec.volumeLifecycleModes a set).
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, ManagedFieldsEntry } from '../shared/api/types.ts';
import { fixtures, type StoredFixture } from '../apiserver/registry/conformance-fixtures.ts';
import { failed, kubectlEnv, run, startCluster, succeeded, type Cluster, type CommandResult, type HttpResponse } from './harness.ts';

const NS = 'ssa';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

type Json = Record<string, unknown>;

/** metav1.Time as the API writes it: UTC, whole seconds. */
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** The first line of kubectl's error output (conflict errors go on with advice on how to resolve them). */
function failedWith(result: CommandResult): string {
  return failed(result).split('\n', 1)[0] ?? '';
}

function ok(res: HttpResponse, code = 200): KubeObject {
  assert.equal(res.status, code, res.text);
  return res.json() as KubeObject;
}

const managedFields = (obj: KubeObject): ManagedFieldsEntry[] => obj.metadata.managedFields ?? [];

/** The entry of `manager` (through `subresource`, '' for the main resource); fails when there is none or more than one. */
function entryOf(obj: KubeObject, manager: string, subresource = ''): ManagedFieldsEntry {
  const found = managedFields(obj).filter((e) => e.manager === manager && (e.subresource ?? '') === subresource);
  assert.equal(found.length, 1, `one entry of ${manager}${subresource ? `/${subresource}` : ''} in ${JSON.stringify(managedFields(obj))}`);
  return found[0]!;
}

/** Every entry's fieldsV1 by manager (`manager/subresource` for subresource entries). */
function ownership(obj: KubeObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of managedFields(obj)) out[`${e.manager}${e.subresource ? `/${e.subresource}` : ''}`] = e.fieldsV1;
  return out;
}

/** A well-formed entry of a manager that changed the object: upstream's fields in upstream's order, a second-precision time. */
function assertEntry(
  entry: ManagedFieldsEntry,
  expected: { manager: string; operation: 'Apply' | 'Update'; apiVersion: string; fieldsV1?: Json; subresource?: string },
): void {
  const keys = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', ...(expected.subresource ? ['subresource'] : [])];
  assert.deepEqual(Object.keys(entry), keys, JSON.stringify(entry));
  assert.equal(entry.manager, expected.manager);
  assert.equal(entry.operation, expected.operation);
  assert.equal(entry.apiVersion, expected.apiVersion);
  assert.equal(entry.fieldsType, 'FieldsV1');
  assert.match(entry.time ?? '', rfc3339);
  if (expected.fieldsV1) assert.deepEqual(entry.fieldsV1, expected.fieldsV1);
  assert.equal(entry.subresource, expected.subresource);
}

/** `actual` has everything `expected` has: the same scalars, lists of the same length, maps with at least its keys. */
function assertContains(actual: unknown, expected: unknown, path = ''): void {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${path}: ${JSON.stringify(actual)} has the items of ${JSON.stringify(expected)}`);
    expected.forEach((item, i) => assertContains((actual as unknown[])[i], item, `${path}[${i}]`));
  } else if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object' && !Array.isArray(actual), `${path}: ${JSON.stringify(actual)} is an object`);
    for (const [k, v] of Object.entries(expected)) assertContains((actual as Json)[k], v, `${path}.${k}`);
  } else {
    assert.equal(actual, expected, path);
  }
}

/** upstream's order of entries: Apply before Update, then by time, manager, API version and subresource. */
function assertSorted(obj: KubeObject): void {
  const text = (v: string | undefined): string => v ?? '';
  const key = (e: ManagedFieldsEntry): string[] => [text(e.operation), text(e.time), text(e.manager), text(e.apiVersion), text(e.subresource)];
  const order = (a: ManagedFieldsEntry, b: ManagedFieldsEntry): number => {
    const [p, q] = [key(a), key(b)];
    for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) return p[i]! < q[i]! ? -1 : 1;
    return 0;
  };
  const entries = managedFields(obj);
  assert.deepEqual(entries, [...entries].sort(order));
}

const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>): Json => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, ...(labels ? { labels } : {}) },
  data,
});

describe('server-side apply', () => {
  let cluster: Cluster;
  const kubectl = (args: string[], input?: string): Promise<CommandResult> => cluster.kubectl(args, input === undefined ? {} : { input });
  /** `kubectl apply --server-side` of one manifest, with extra flags. */
  const ssa = (manifest: Json, ...flags: string[]): Promise<CommandResult> =>
    kubectl(['apply', '--server-side', ...flags, '-f', '-'], JSON.stringify(manifest));
  const get = async (path: string): Promise<KubeObject> => ok(await cluster.request({ path }));
  /** A raw apply; `query` after `?`, without the leading `?`. */
  const applyRaw = (path: string, query: string, body: Json | string, headers: Record<string, string> = {}): Promise<HttpResponse> =>
    cluster.request({
      method: 'PATCH',
      path: `${path}${query ? `?${query}` : ''}`,
      headers: { ...APPLY, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  before(
    async () => {
      cluster = await startCluster({ apiserverArgs: ['--runtime-config=api/all=true'] });
      succeeded(await kubectl(['create', 'namespace', NS]));
    },
    { timeout: 120_000 },
  );
  after(async () => {
    await cluster?.stop();
  });

  describe('kubectl apply --server-side of a ConfigMap', () => {
    const path = `${CM}/applied`;

    it('creates the object; the applier owns exactly what it applied', async () => {
      assert.equal(succeeded(await ssa(configMap('applied', { a: '1', b: '2' }))), 'configmap/applied serverside-applied\n');
      const cm = await get(path);
      assert.deepEqual(cm.data, { a: '1', b: '2' });
      assert.equal(managedFields(cm).length, 1);
      assertEntry(entryOf(cm, 'kubectl'), { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } });
    });

    it('applied again with a change: the applied value wins, still one entry', async () => {
      const before = await get(path);
      assert.equal(succeeded(await ssa(configMap('applied', { a: '1', b: '3' }))), 'configmap/applied serverside-applied\n');
      const cm = await get(path);
      assert.deepEqual(cm.data, { a: '1', b: '3' });
      assert.notEqual(cm.metadata.resourceVersion, before.metadata.resourceVersion);
      assert.deepEqual(ownership(cm), { kubectl: { 'f:data': { 'f:a': {}, 'f:b': {} } } });
    });

    it('applied again unchanged: no write', async () => {
      const before = await get(path);
      succeeded(await ssa(configMap('applied', { a: '1', b: '3' })));
      const cm = await get(path);
      assert.equal(cm.metadata.resourceVersion, before.metadata.resourceVersion);
      assert.deepEqual(cm.metadata.managedFields, before.metadata.managedFields);
    });

    it('another manager applying a different value conflicts, and nothing changes', async () => {
      const before = await get(path);
      const result = await ssa(configMap('applied', { b: '9', c: '1' }), '--field-manager=other');
      assert.equal(failedWith(result), 'error: Apply failed with 1 conflict: conflict with "kubectl": .data.b');
      const cm = await get(path);
      assert.equal(cm.metadata.resourceVersion, before.metadata.resourceVersion);
      assert.deepEqual(cm.data, { a: '1', b: '3' });
    });

    it('--force-conflicts takes the field over', async () => {
      succeeded(await ssa(configMap('applied', { b: '9', c: '1' }), '--field-manager=other', '--force-conflicts'));
      const cm = await get(path);
      assert.deepEqual(cm.data, { a: '1', b: '9', c: '1' });
      assert.deepEqual(ownership(cm), { kubectl: { 'f:data': { 'f:a': {} } }, other: { 'f:data': { 'f:b': {}, 'f:c': {} } } });
      // The first applier now conflicts in turn.
      assert.equal(failedWith(await ssa(configMap('applied', { a: '1', b: '3' }))), 'error: Apply failed with 1 conflict: conflict with "other": .data.b');
    });

    it('applying the value another manager set shares the field without conflict', async () => {
      succeeded(await ssa(configMap('applied', { a: '1', b: '9' })));
      const cm = await get(path);
      assert.deepEqual(cm.data, { a: '1', b: '9', c: '1' });
      assert.deepEqual(ownership(cm), { kubectl: { 'f:data': { 'f:a': {}, 'f:b': {} } }, other: { 'f:data': { 'f:b': {}, 'f:c': {} } } });
    });

    it('a field no longer applied is removed, unless another manager owns it', async () => {
      succeeded(await ssa(configMap('applied', { d: '4' })));
      const cm = await get(path);
      // a was kubectl's alone: gone; b is shared with other: kept, now other's alone.
      assert.deepEqual(cm.data, { b: '9', c: '1', d: '4' });
      assert.deepEqual(ownership(cm), { other: { 'f:data': { 'f:b': {}, 'f:c': {} } }, kubectl: { 'f:data': { 'f:d': {} } } });
      assertSorted(cm);
    });

    it('a map entry owned by an updater stays when the applier that shared it drops it', async () => {
      succeeded(await kubectl(['patch', 'configmap', 'applied', '-n', NS, '-p', JSON.stringify({ data: { p: 'patched' } })]));
      succeeded(await ssa(configMap('applied', { d: '4', p: 'patched' })));
      assert.deepEqual(entryOf(await get(path), 'kubectl').fieldsV1, { 'f:data': { 'f:d': {}, 'f:p': {} } });
      succeeded(await ssa(configMap('applied', { d: '4' })));
      const cm = await get(path);
      assert.equal((cm.data as Json).p, 'patched');
      assert.deepEqual(entryOf(cm, 'kubectl-patch').fieldsV1, { 'f:data': { 'f:p': {} } });
    });

    it('labels: map entries are removed like data keys', async () => {
      succeeded(await ssa(configMap('applied', { d: '4' }, { x: '1', y: '2' })));
      succeeded(await ssa(configMap('applied', { d: '4' }, { y: '2' })));
      const cm = await get(path);
      assert.deepEqual(cm.metadata.labels, { y: '2' });
      assert.deepEqual(entryOf(cm, 'kubectl').fieldsV1, { 'f:data': { 'f:d': {} }, 'f:metadata': { 'f:labels': { 'f:y': {} } } });
    });

    it('updates never conflict: an update takes the field from the applier', async () => {
      succeeded(await kubectl(['patch', 'configmap', 'applied', '-n', NS, '-p', JSON.stringify({ data: { d: 'changed' } })]));
      const cm = await get(path);
      assert.equal((cm.data as Json).d, 'changed');
      assert.deepEqual(entryOf(cm, 'kubectl').fieldsV1, { 'f:metadata': { 'f:labels': { 'f:y': {} } } });
      assert.deepEqual(entryOf(cm, 'kubectl-patch').fieldsV1, { 'f:data': { 'f:d': {}, 'f:p': {} } });
      assert.equal(
        failedWith(await ssa(configMap('applied', { d: '4' }, { y: '2' }))),
        'error: Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.d',
      );
      assertSorted(await get(path));
    });
  });

  describe('kubectl apply --server-side: validation and client-side apply', () => {
    it("an apply the kind's validation rejects: 422 with upstream's message, nothing changes", async () => {
      succeeded(await ssa(configMap('validated', { a: '1' })));
      const before = await get(`${CM}/validated`);
      const cause = (fixtures['v1/configmaps'] as StoredFixture).invalid('validated', NS).causes[0]!;
      const result = await ssa(configMap('validated', { a: '1', 'a b': '2' }));
      assert.equal(failedWith(result), `The ConfigMap "validated" is invalid: ${cause.field}: ${cause.message}`);
      assert.deepEqual(await get(`${CM}/validated`), before);
    });

    it('takes over the fields kubectl applied client-side, without conflicts, and keeps the annotation current', async () => {
      const path = `${CM}/migrated`;
      succeeded(await kubectl(['apply', '-f', '-'], JSON.stringify(configMap('migrated', { a: '1' }))));
      assert.deepEqual(
        managedFields(await get(path)).map((e) => `${e.manager} ${e.operation}`),
        ['kubectl-client-side-apply Update'],
      );
      // a changes: owned by kubectl-client-side-apply, but as last applied, so no conflict.
      succeeded(await ssa(configMap('migrated', { a: '2', b: '3' })));
      const cm = await get(path);
      assert.deepEqual(cm.data, { a: '2', b: '3' });
      assert.equal(
        cm.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'],
        `{"apiVersion":"v1","data":{"a":"2","b":"3"},"kind":"ConfigMap","metadata":{"name":"migrated","namespace":"${NS}"}}\n`,
      );
      // kubectl then applies the annotation as kubectl-last-applied and folds its client-side entry into its own.
      assert.deepEqual(ownership(cm), {
        'kubectl-last-applied': { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } },
        kubectl: { 'f:data': { 'f:a': {}, 'f:b': {} } },
      });
    });

    it('a value changed since the client-side apply still conflicts', async () => {
      succeeded(await kubectl(['apply', '-f', '-'], JSON.stringify(configMap('drifted', { a: '1' }))));
      succeeded(await kubectl(['patch', 'configmap', 'drifted', '-n', NS, '-p', JSON.stringify({ data: { a: 'patched' } })]));
      assert.equal(
        failedWith(await ssa(configMap('drifted', { a: '2' }))),
        'error: Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.a',
      );
    });
  });

  describe('kubectl apply --server-side --subresource=status on a Node', () => {
    const path = '/api/v1/nodes/ssa-node';
    const condition = (type: string, status: string, reason?: string): Json => ({ type, status, ...(reason ? { reason } : {}) });
    const nodeStatus = (status: Json, labels?: Record<string, string>): Json => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'ssa-node', ...(labels ? { labels } : {}) },
      status,
    });
    const types = (obj: KubeObject): unknown[] => (((obj.status as Json).conditions ?? []) as Json[]).map((c) => c.type);

    before(async () => {
      succeeded(await kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'ssa-node', labels: { a: '1' } } })));
    });

    it('records an Apply entry with subresource status, conditions and addresses keyed by type', async () => {
      const applied = nodeStatus({
        conditions: [condition('Ready', 'True', 'KubeletReady'), condition('DiskPressure', 'False')],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      });
      assert.equal(succeeded(await ssa(applied, '--subresource=status', '--field-manager=kubelet')), 'node/ssa-node serverside-applied\n');
      const node = await get(path);
      assert.deepEqual(types(node), ['Ready', 'DiskPressure']);
      assertEntry(entryOf(node, 'kubelet', 'status'), {
        manager: 'kubelet',
        operation: 'Apply',
        apiVersion: 'v1',
        subresource: 'status',
        fieldsV1: {
          'f:status': {
            'f:addresses': { 'k:{"type":"InternalIP"}': { '.': {}, 'f:address': {}, 'f:type': {} } },
            'f:conditions': {
              'k:{"type":"DiskPressure"}': { '.': {}, 'f:status': {}, 'f:type': {} },
              'k:{"type":"Ready"}': { '.': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} },
            },
          },
        },
      });
      // The creator's entry (the main resource) is separate.
      assertEntry(entryOf(node, 'kubectl-create'), {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } },
      });
    });

    it('a second manager owns its own condition; a condition it changes conflicts, naming the subresource', async () => {
      succeeded(await ssa(nodeStatus({ conditions: [condition('KernelDeadlock', 'False')] }), '--subresource=status', '--field-manager=npd'));
      let node = await get(path);
      assert.deepEqual(types(node), ['Ready', 'DiskPressure', 'KernelDeadlock']);
      assert.deepEqual(entryOf(node, 'npd', 'status').fieldsV1, {
        'f:status': { 'f:conditions': { 'k:{"type":"KernelDeadlock"}': { '.': {}, 'f:status': {}, 'f:type': {} } } },
      });
      const result = await ssa(
        nodeStatus({ conditions: [condition('KernelDeadlock', 'False'), condition('Ready', 'False')] }),
        '--subresource=status',
        '--field-manager=npd',
      );
      assert.equal(
        failedWith(result),
        'error: Apply failed with 1 conflict: conflict with "kubelet" with subresource "status": .status.conditions[type="Ready"].status',
      );
      node = await get(path);
      assert.equal(((node.status as Json).conditions as Json[])[0]?.status, 'True');
    });

    it("a condition no longer applied is removed; the other manager's stays", async () => {
      succeeded(
        await ssa(
          nodeStatus({ conditions: [condition('Ready', 'True', 'KubeletReady')], addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] }),
          '--subresource=status',
          '--field-manager=kubelet',
        ),
      );
      const node = await get(path);
      assert.deepEqual(types(node), ['Ready', 'KernelDeadlock']);
    });

    it('status applied through the main resource is ignored and not owned', async () => {
      const before = await get(path);
      succeeded(await ssa(nodeStatus({ conditions: [condition('Ready', 'False')] }, { main: 'x' }), '--field-manager=main'));
      const node = await get(path);
      assert.deepEqual(node.status, before.status);
      assert.deepEqual(entryOf(node, 'main').fieldsV1, { 'f:metadata': { 'f:labels': { 'f:main': {} } } });
    });

    it('spec applied through status is ignored and not owned', async () => {
      succeeded(
        await ssa(
          {
            ...nodeStatus({ conditions: [condition('Ready', 'True', 'KubeletReady')], addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] }),
            spec: { unschedulable: true },
          },
          '--subresource=status',
          '--field-manager=kubelet',
        ),
      );
      const node = await get(path);
      assert.equal((node.spec as Json | undefined)?.unschedulable, undefined);
      assert.equal(JSON.stringify(entryOf(node, 'kubelet', 'status').fieldsV1).includes('f:spec'), false);
    });
  });

  describe('CSINode spec.drivers: a list keyed by name', () => {
    const path = '/apis/storage.k8s.io/v1/csinodes/ssa-csinode';
    const driver = (name: string, nodeID: string): Json => ({ name, nodeID, topologyKeys: ['zone'] });
    const csiNode = (...drivers: Json[]): Json => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'ssa-csinode' }, spec: { drivers } });
    const driverNames = (obj: KubeObject): unknown[] => (((obj.spec as Json).drivers ?? []) as Json[]).map((d) => d.name);
    const owned = (name: string): Json => ({
      'f:spec': { 'f:drivers': { [`k:{"name":"${name}"}`]: { '.': {}, 'f:name': {}, 'f:nodeID': {}, 'f:topologyKeys': {} } } },
    });

    it('two managers each own one driver', async () => {
      succeeded(await ssa(csiNode(driver('a.csi.example.com', 'node-a')), '--field-manager=driver-a'));
      succeeded(await ssa(csiNode(driver('b.csi.example.com', 'node-b')), '--field-manager=driver-b'));
      const obj = await get(path);
      assert.deepEqual(driverNames(obj), ['a.csi.example.com', 'b.csi.example.com']);
      assert.deepEqual(ownership(obj), { 'driver-a': owned('a.csi.example.com'), 'driver-b': owned('b.csi.example.com') });
      assertEntry(entryOf(obj, 'driver-a'), { manager: 'driver-a', operation: 'Apply', apiVersion: 'storage.k8s.io/v1' });
    });

    it("a field of the other manager's driver conflicts by key", async () => {
      const result = await ssa(csiNode(driver('b.csi.example.com', 'node-b'), driver('a.csi.example.com', 'elsewhere')), '--field-manager=driver-b');
      assert.equal(failedWith(result), 'error: Apply failed with 1 conflict: conflict with "driver-a": .spec.drivers[name="a.csi.example.com"].nodeID');
    });

    it('a manager dropping its driver removes only that driver', async () => {
      succeeded(await ssa(csiNode(), '--field-manager=driver-a'));
      const obj = await get(path);
      assert.deepEqual(driverNames(obj), ['b.csi.example.com']);
      assert.deepEqual(ownership(obj), { 'driver-b': owned('b.csi.example.com') });
    });
  });

  describe('CSIDriver: tokenRequests atomic, volumeLifecycleModes a set', () => {
    const path = '/apis/storage.k8s.io/v1/csidrivers/ssa.csi.example.com';
    const csiDriver = (spec: Json): Json => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'ssa.csi.example.com' }, spec });

    it('set items are owned one by one; an atomic list as a whole', async () => {
      succeeded(
        await ssa(
          csiDriver({ attachRequired: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'], tokenRequests: [{ audience: 'a' }] }),
          '--field-manager=mgr-a',
        ),
      );
      const obj = await get(path);
      assert.deepEqual(entryOf(obj, 'mgr-a').fieldsV1, {
        'f:spec': { 'f:attachRequired': {}, 'f:tokenRequests': {}, 'f:volumeLifecycleModes': { 'v:"Ephemeral"': {}, 'v:"Persistent"': {} } },
      });
    });

    it('a different atomic list conflicts on the list itself', async () => {
      const result = await ssa(csiDriver({ tokenRequests: [{ audience: 'b' }] }), '--field-manager=mgr-b');
      assert.equal(failedWith(result), 'error: Apply failed with 1 conflict: conflict with "mgr-a": .spec.tokenRequests');
    });

    it('the same atomic list and a subset of the set are shared', async () => {
      succeeded(await ssa(csiDriver({ volumeLifecycleModes: ['Ephemeral'], tokenRequests: [{ audience: 'a' }] }), '--field-manager=mgr-b'));
      const obj = await get(path);
      assert.deepEqual((obj.spec as Json).volumeLifecycleModes, ['Persistent', 'Ephemeral']);
      const entry = entryOf(obj, 'mgr-b');
      assert.deepEqual(entry.fieldsV1, { 'f:spec': { 'f:tokenRequests': {}, 'f:volumeLifecycleModes': { 'v:"Ephemeral"': {} } } });
      // The object did not change, so the new applier's entry carries no time.
      assert.equal(entry.time, undefined);
    });

    it('forcing a different atomic list replaces it whole and takes it from every other owner', async () => {
      succeeded(
        await ssa(
          csiDriver({ volumeLifecycleModes: ['Ephemeral'], tokenRequests: [{ audience: 'b', expirationSeconds: 3600 }] }),
          '--field-manager=mgr-b',
          '--force-conflicts',
        ),
      );
      const obj = await get(path);
      assert.deepEqual((obj.spec as Json).tokenRequests, [{ audience: 'b', expirationSeconds: 3600 }]);
      assert.deepEqual(entryOf(obj, 'mgr-a').fieldsV1, {
        'f:spec': { 'f:attachRequired': {}, 'f:volumeLifecycleModes': { 'v:"Ephemeral"': {}, 'v:"Persistent"': {} } },
      });
    });
  });

  describe('dry run', () => {
    it('an apply with --dry-run=server answers the result and changes nothing', async () => {
      succeeded(await ssa(configMap('dry', { a: '1' })));
      const before = await get(`${CM}/dry`);
      const out = succeeded(await ssa(configMap('dry', { a: '2', b: '3' }), '--dry-run=server', '-o', 'json'));
      const answered = JSON.parse(out) as KubeObject;
      assert.deepEqual(answered.data, { a: '2', b: '3' });
      const after = await get(`${CM}/dry`);
      assert.deepEqual(after, before);
    });

    it('a create by apply with --dry-run=server creates nothing', async () => {
      assert.equal(succeeded(await ssa(configMap('dry-new', { a: '1' }), '--dry-run=server')), 'configmap/dry-new serverside-applied (server dry run)\n');
      assert.equal((await cluster.request({ path: `${CM}/dry-new` })).status, 404);
    });

    it('a conflicting dry-run apply fails like the real one', async () => {
      const result = await ssa(configMap('dry', { a: '9' }), '--dry-run=server', '--field-manager=other');
      assert.equal(failedWith(result), 'error: Apply failed with 1 conflict: conflict with "kubectl": .data.a');
    });
  });

  describe('resetting managedFields', () => {
    const path = `${CM}/reset`;

    it('a JSON patch replacing managedFields with [{}] removes them, and later updates do not track the object', async () => {
      succeeded(await kubectl(['create', 'configmap', 'reset', '-n', NS, '--from-literal=a=1']));
      assert.equal(managedFields(await get(path)).length, 1);
      succeeded(
        await kubectl([
          'patch',
          'configmap',
          'reset',
          '-n',
          NS,
          '--type',
          'json',
          '-p',
          JSON.stringify([{ op: 'replace', path: '/metadata/managedFields', value: [{}] }]),
        ]),
      );
      assert.equal((await get(path)).metadata.managedFields, undefined);
      succeeded(await kubectl(['label', 'configmap', 'reset', '-n', NS, 'l=1']));
      assert.equal((await get(path)).metadata.managedFields, undefined);
    });

    it('the first apply after a reset meets the existing fields, owned by before-first-apply', async () => {
      assert.equal(
        failedWith(await ssa(configMap('reset', { a: '2' }))),
        'error: Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a',
      );
      succeeded(await ssa(configMap('reset', { a: '2' }), '--force-conflicts'));
      const cm = await get(path);
      // The stand-in keeps the data map itself, which it added from nothing.
      assert.deepEqual(ownership(cm), {
        kubectl: { 'f:data': { 'f:a': {} } },
        'before-first-apply': { 'f:data': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } },
      });
      assertEntry(entryOf(cm, 'before-first-apply'), { manager: 'before-first-apply', operation: 'Update', apiVersion: 'v1' });
    });

    it('an empty list resets them too', async () => {
      const res = await cluster.request({
        method: 'PATCH',
        path,
        headers: { 'content-type': 'application/json-patch+json' },
        body: JSON.stringify([{ op: 'replace', path: '/metadata/managedFields', value: [] }]),
      });
      assert.equal(ok(res).metadata.managedFields, undefined);
      assert.equal((await get(path)).metadata.managedFields, undefined);
    });
  });

  describe('Update entries of kubectl commands and raw requests', () => {
    const updates = (obj: KubeObject): Record<string, unknown> => {
      for (const e of managedFields(obj))
        assertEntry(e, { manager: e.manager ?? '', operation: 'Update', apiVersion: 'v1', ...(e.subresource ? { subresource: e.subresource } : {}) });
      return ownership(obj);
    };

    it('kubectl create, patch, label, annotate, edit and replace', async () => {
      const path = `${CM}/updated`;
      succeeded(await kubectl(['create', 'configmap', 'updated', '-n', NS, '--from-literal=a=before-edit']));
      assert.deepEqual(updates(await get(path)), { 'kubectl-create': { 'f:data': { '.': {}, 'f:a': {} } } });
      succeeded(await kubectl(['patch', 'configmap', 'updated', '-n', NS, '-p', JSON.stringify({ data: { b: '2' } })]));
      succeeded(await kubectl(['label', 'configmap', 'updated', '-n', NS, 'l=1']));
      succeeded(await kubectl(['annotate', 'configmap', 'updated', '-n', NS, 'an=1']));
      const editor = join(cluster.dir, 'editor.sh');
      writeFileSync(editor, '#!/bin/sh\nsed -i "s/before-edit/after-edit/" "$1"\n');
      chmodSync(editor, 0o755);
      succeeded(
        await run('kubectl', ['edit', 'configmap', 'updated', '-n', NS], { env: { ...kubectlEnv(cluster.kubeconfigs[0]!, cluster.dir), KUBE_EDITOR: editor } }),
      );
      const edited = await get(path);
      assert.deepEqual(edited.data, { a: 'after-edit', b: '2' });
      const replaced = { ...edited, data: { ...(edited.data as Json), c: '3' } };
      succeeded(await kubectl(['replace', '-f', '-'], JSON.stringify(replaced)));
      assertSorted(await get(path));
      assert.deepEqual(updates(await get(path)), {
        // The edit took data.a from the creator, which keeps the map itself.
        'kubectl-create': { 'f:data': {} },
        'kubectl-patch': { 'f:data': { 'f:b': {} } },
        'kubectl-label': { 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } },
        'kubectl-annotate': { 'f:metadata': { 'f:annotations': { '.': {}, 'f:an': {} } } },
        'kubectl-edit': { 'f:data': { 'f:a': {} } },
        'kubectl-replace': { 'f:data': { 'f:c': {} } },
      });
    });

    it('client-side kubectl apply', async () => {
      succeeded(await kubectl(['apply', '-f', '-'], JSON.stringify(configMap('client-side', { a: '1' }))));
      succeeded(await kubectl(['apply', '-f', '-'], JSON.stringify(configMap('client-side', { a: '2' }))));
      assert.deepEqual(updates(await get(`${CM}/client-side`)), {
        'kubectl-client-side-apply': {
          'f:data': { '.': {}, 'f:a': {} },
          'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
        },
      });
    });

    it('raw requests: the manager is fieldManager, else the User-Agent up to its first "/", else "unknown"', async () => {
      const path = `${CM}/raw`;
      const send = async (method: string, target: string, contentType: string, body: unknown, userAgent?: string): Promise<KubeObject> =>
        ok(
          await cluster.request({
            method,
            path: target,
            headers: { 'content-type': contentType, ...(userAgent ? { 'user-agent': userAgent } : {}) },
            body: JSON.stringify(body),
          }),
          method === 'POST' ? 201 : 200,
        );
      await send('POST', CM, 'application/json', configMap('raw', { a: '1' }), 'my-controller/v1.2.3 (linux/amd64) kubernetes/abcdef');
      const created = await get(path);
      await send('PUT', `${path}?fieldManager=explicit`, 'application/json', { ...created, data: { ...(created.data as Json), b: '2' } }, 'ignored/1.0');
      await send('PATCH', path, 'application/json-patch+json', [{ op: 'add', path: '/data/c', value: '3' }], 'json-patcher/1.0');
      await send('PATCH', path, 'application/merge-patch+json', { data: { d: '4' } }, 'merge-patcher/1.0');
      await send('PATCH', path, 'application/strategic-merge-patch+json', { data: { e: '5' } }, 'strategic-patcher');
      await send('PATCH', path, 'application/merge-patch+json', { data: { f: '6' } });
      assert.deepEqual(updates(await get(path)), {
        'my-controller': { 'f:data': { '.': {}, 'f:a': {} } },
        explicit: { 'f:data': { 'f:b': {} } },
        'json-patcher': { 'f:data': { 'f:c': {} } },
        'merge-patcher': { 'f:data': { 'f:d': {} } },
        'strategic-patcher': { 'f:data': { 'f:e': {} } },
        unknown: { 'f:data': { 'f:f': {} } },
      });
    });

    it("a status write is recorded apart from the same manager's main-resource writes", async () => {
      const path = '/api/v1/nodes/ssa-status-node';
      const agent = { 'content-type': 'application/merge-patch+json', 'user-agent': 'node-agent/1.0' };
      ok(
        await cluster.request({
          method: 'POST',
          path: '/api/v1/nodes',
          headers: { ...agent, 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'ssa-status-node', labels: { a: '1' } } }),
        }),
        201,
      );
      const node = await get(path);
      const status = { conditions: [{ type: 'Ready', status: 'True' }] };
      ok(
        await cluster.request({
          method: 'PUT',
          path: `${path}/status`,
          headers: { ...agent, 'content-type': 'application/json' },
          body: JSON.stringify({ ...node, status }),
        }),
      );
      ok(await cluster.request({ method: 'PATCH', path, headers: agent, body: JSON.stringify({ metadata: { labels: { b: '2' } } }) }));
      const obj = await get(path);
      assert.deepEqual(updates(obj), {
        'node-agent': { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {}, 'f:b': {} } } },
        'node-agent/status': { 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } },
      });
      assert.equal(entryOf(obj, 'node-agent', 'status').subresource, 'status');
    });
  });

  describe('raw apply requests', () => {
    it('create by apply answers 201, a later apply 200', async () => {
      const created = ok(
        await applyRaw(`${CM}/raw-apply`, 'fieldManager=raw', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: raw-apply\ndata:\n  a: "1"\n'),
        201,
      );
      assertEntry(entryOf(created, 'raw'), { manager: 'raw', operation: 'Apply', apiVersion: 'v1', fieldsV1: { 'f:data': { 'f:a': {} } } });
      const applied = ok(await applyRaw(`${CM}/raw-apply`, 'fieldManager=raw', configMap('raw-apply', { a: '2' })));
      assert.deepEqual(applied.data, { a: '2' });
    });

    it("a conflict with an updater: 409 with upstream's message and one FieldManagerConflict cause", async () => {
      ok(
        await cluster.request({
          method: 'POST',
          path: `${CM}?fieldManager=mgr`,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(configMap('conflicted', { key: 'mgr' })),
        }),
        201,
      );
      const res = await applyRaw(`${CM}/conflicted`, 'fieldManager=applier', configMap('conflicted', { key: 'applier' }));
      assert.equal(res.status, 409, res.text);
      assert.deepEqual(res.json(), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Apply failed with 1 conflict: conflict with "mgr" using v1: .data.key',
        reason: 'Conflict',
        details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "mgr" using v1', field: '.data.key' }] },
        code: 409,
      });
    });

    it('several conflicts: the message groups fields by manager, one cause per field', async () => {
      ok(await applyRaw(`${CM}/conflicted`, 'fieldManager=other-applier', configMap('conflicted', { x: '1', y: '1' })));
      ok(
        await cluster.request({
          method: 'PATCH',
          path: `${CM}/conflicted?fieldManager=mgr`,
          headers: { 'content-type': 'application/merge-patch+json' },
          body: JSON.stringify({ data: { z: '1' } }),
        }),
      );
      const res = await applyRaw(`${CM}/conflicted`, 'fieldManager=applier', configMap('conflicted', { key: '2', x: '2', y: '2', z: '2' }));
      assert.equal(res.status, 409, res.text);
      const body = res.json() as Json;
      assert.equal(
        body.message,
        'Apply failed with 4 conflicts: conflicts with "mgr" using v1:\n- .data.key\n- .data.z\nconflicts with "other-applier":\n- .data.x\n- .data.y',
      );
      // Upstream builds the causes from a Go map of managers: their order between managers is not fixed.
      const causes = ((body.details as Json).causes as Json[]).map((c) => `${String(c.field)} ${String(c.message)} ${String(c.reason)}`).sort();
      assert.deepEqual(causes, [
        '.data.key conflict with "mgr" using v1 FieldManagerConflict',
        '.data.x conflict with "other-applier" FieldManagerConflict',
        '.data.y conflict with "other-applier" FieldManagerConflict',
        '.data.z conflict with "mgr" using v1 FieldManagerConflict',
      ]);
    });

    it('force=true takes every conflicting field', async () => {
      const res = ok(await applyRaw(`${CM}/conflicted`, 'fieldManager=applier&force=true', configMap('conflicted', { key: '2', x: '2', y: '2', z: '2' })));
      assert.deepEqual(res.data, { key: '2', x: '2', y: '2', z: '2' });
      // The creator keeps the data map itself; the other applier's entry, left empty, is gone.
      assert.deepEqual(ownership(res), { applier: { 'f:data': { 'f:key': {}, 'f:x': {}, 'f:y': {}, 'f:z': {} } }, mgr: { 'f:data': {} } });
    });

    it('without fieldManager: 422', async () => {
      for (const query of ['', 'fieldManager=']) {
        const res = await applyRaw(`${CM}/raw-apply`, query, configMap('raw-apply', { a: '3' }), { 'user-agent': 'kubectl/v1.32.0' });
        assert.equal(res.status, 422, res.text);
        assert.deepEqual(res.json(), {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
          reason: 'Invalid',
          details: {
            group: 'meta.k8s.io',
            kind: 'PatchOptions',
            causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
          },
          code: 422,
        });
      }
      assert.deepEqual((await get(`${CM}/raw-apply`)).data, { a: '2' });
    });

    it('force on a non-apply patch: 422', async () => {
      const res = await cluster.request({
        method: 'PATCH',
        path: `${CM}/raw-apply?force=true`,
        headers: { 'content-type': 'application/merge-patch+json' },
        body: '{}',
      });
      assert.equal(res.status, 422, res.text);
      assert.equal((res.json() as Json).message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    });

    it('managedFields in the applied object: 400', async () => {
      const body = { ...configMap('raw-apply', { a: '3' }), metadata: { name: 'raw-apply', managedFields: [] } };
      const res = await applyRaw(`${CM}/raw-apply`, 'fieldManager=raw', body);
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.json(), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'metadata.managedFields must be nil',
        reason: 'BadRequest',
        code: 400,
      });
    });

    it('another kind or version: 400', async () => {
      const res = await applyRaw(`${CM}/raw-apply`, 'fieldManager=raw', { ...configMap('raw-apply', { a: '3' }), apiVersion: 'v2' });
      assert.equal(res.status, 400, res.text);
      assert.equal((res.json() as Json).message, 'invalid object type: /v2, Kind=ConfigMap');
    });

    it('a field the schema lacks: 400 with the typed conversion error (upstream: 500, kubernetes#139253)', async () => {
      const res = await applyRaw(`${CM}/raw-apply`, 'fieldManager=raw', { ...configMap('raw-apply', { a: '3' }), extra: 1 });
      assert.equal(res.status, 400, res.text);
      assert.equal(
        (res.json() as Json).message,
        `failed to create typed patch object (${NS}/raw-apply; /v1, Kind=ConfigMap): .extra: field not declared in schema`,
      );
    });

    it('a resourceVersion in the applied object is a precondition: 409 when stale', async () => {
      const body = { ...configMap('raw-apply', { a: '3' }), metadata: { name: 'raw-apply', resourceVersion: '1' } };
      const res = await applyRaw(`${CM}/raw-apply`, 'fieldManager=raw', body);
      assert.equal(res.status, 409, res.text);
      assert.equal(
        (res.json() as Json).message,
        'Operation cannot be fulfilled on configmaps "raw-apply": the object has been modified; please apply your changes to the latest version and try again',
      );
    });

    it('a create by apply naming a uid: 409', async () => {
      const body = { ...configMap('raw-uid', { a: '1' }), metadata: { name: 'raw-uid', uid: 'd7c6b0a4-0000-4000-8000-000000000000' } };
      const res = await applyRaw(`${CM}/raw-uid`, 'fieldManager=raw', body);
      assert.equal(res.status, 409, res.text);
      assert.equal(
        (res.json() as Json).message,
        'Operation cannot be fulfilled on configmaps "raw-uid": uid mismatch: the provided object specified uid d7c6b0a4-0000-4000-8000-000000000000, and no existing object was found',
      );
    });

    it('an apply to the status of a missing object: 404', async () => {
      const res = await applyRaw('/api/v1/nodes/ssa-missing/status', 'fieldManager=raw', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'ssa-missing' } });
      assert.equal(res.status, 404, res.text);
      assert.equal((res.json() as Json).message, 'nodes "ssa-missing" not found');
    });

    it('more than 10 updaters: the oldest are merged into ancient-changes', async () => {
      const path = `${CM}/capped`;
      const managers = Array.from({ length: 12 }, (_, i) => `m${String(i).padStart(2, '0')}`);
      ok(
        await cluster.request({
          method: 'POST',
          path: `${CM}?fieldManager=m00`,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(configMap('capped', { k00: '1' })),
        }),
        201,
      );
      for (const manager of managers.slice(1)) {
        const patch = { data: { [`k${manager.slice(1)}`]: '1' } };
        ok(
          await cluster.request({
            method: 'PATCH',
            path: `${path}?fieldManager=${manager}`,
            headers: { 'content-type': 'application/merge-patch+json' },
            body: JSON.stringify(patch),
          }),
        );
      }
      const obj = await get(path);
      assert.equal(managedFields(obj).length, 10);
      const expected: Record<string, unknown> = { 'ancient-changes': { 'f:data': { '.': {}, 'f:k00': {}, 'f:k01': {}, 'f:k02': {} } } };
      for (const manager of managers.slice(3)) expected[manager] = { 'f:data': { [`f:k${manager.slice(1)}`]: {} } };
      assert.deepEqual(ownership(obj), expected);
      assertEntry(entryOf(obj, 'ancient-changes'), { manager: 'ancient-changes', operation: 'Update', apiVersion: 'v1' });
    });

    describe('duplicate fields in the applied YAML', () => {
      const duplicated = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: raw-dup\ndata:\n  a: "1"\n  a: "2"\n';

      it('are accepted, the last one winning, by default and with fieldValidation=Ignore', async () => {
        for (const query of ['fieldManager=raw', 'fieldManager=raw&fieldValidation=Ignore']) {
          const res = await applyRaw(`${CM}/raw-dup`, query, duplicated);
          assert.ok(res.status === 200 || res.status === 201, res.text);
          assert.deepEqual((res.json() as Json).data, { a: '2' });
        }
      });

      it("Warn: a warning with go-yaml's text", async () => {
        const res = await applyRaw(`${CM}/raw-dup`, 'fieldManager=raw&fieldValidation=Warn', duplicated);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.headers['warning'], '299 - "line 7: key \\"a\\" already set in map"');
      });

      it("Strict: 400 with go-yaml's text", async () => {
        const res = await applyRaw(`${CM}/raw-dup`, 'fieldManager=raw&fieldValidation=Strict', duplicated);
        assert.equal(res.status, 400, res.text);
        assert.equal(
          (res.json() as Json).message,
          'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map',
        );
      });
    });

    it('an atomic struct (Event involvedObject, an ObjectReference) is owned and conflicts as a whole', async () => {
      const path = `/api/v1/namespaces/${NS}/events/ssa-event`;
      const event = (involvedName: string): Json => ({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'ssa-event', namespace: NS },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: NS, name: involvedName },
        reason: 'Started',
        message: 'started',
        type: 'Normal',
        source: { component: 'e2e' },
      });
      const created = ok(await applyRaw(path, 'fieldManager=recorder', event('pod-1')), 201);
      assert.deepEqual(entryOf(created, 'recorder').fieldsV1, {
        'f:involvedObject': {},
        'f:message': {},
        'f:reason': {},
        'f:source': { 'f:component': {} },
        'f:type': {},
      });
      const res = await applyRaw(path, 'fieldManager=other-recorder', {
        ...event('pod-2'),
        reason: undefined,
        message: undefined,
        type: undefined,
        source: undefined,
      });
      assert.equal(res.status, 409, res.text);
      assert.equal((res.json() as Json).message, 'Apply failed with 1 conflict: conflict with "recorder": .involvedObject');
    });

    it('the CSR approval subresource: an Apply entry with subresource approval', async () => {
      const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
      const csr = (fixtures['certificates.k8s.io/v1/certificatesigningrequests'] as StoredFixture).valid('ssa-approved', '');
      ok(await cluster.request({ method: 'POST', path: csrs, headers: { 'content-type': 'application/json' }, body: JSON.stringify(csr) }), 201);
      const approval = {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name: 'ssa-approved' },
        status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'approved by the e2e test' }] },
      };
      const approved = ok(await applyRaw(`${csrs}/ssa-approved/approval`, 'fieldManager=approver', approval));
      assertContains((approved.status as Json).conditions, approval.status.conditions);
      assertEntry(entryOf(approved, 'approver', 'approval'), {
        manager: 'approver',
        operation: 'Apply',
        apiVersion: 'certificates.k8s.io/v1',
        subresource: 'approval',
        fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Approved"}': { '.': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} } } } },
      });
    });

    // Upstream keys such an item by the key field's OpenAPI default: NodeCondition.type, never
    // omitted by Go, defaults to "". (A key field without a default fails with a 500.)
    it("a list item without its key is keyed by the key field's default", async () => {
      ok(
        await cluster.request({
          method: 'POST',
          path: '/api/v1/nodes',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'ssa-keyless' } }),
        }),
        201,
      );
      const res = await applyRaw('/api/v1/nodes/ssa-keyless/status', 'fieldManager=raw', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'ssa-keyless' },
        status: { conditions: [{ status: 'True' }] },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(entryOf(res.json() as KubeObject, 'raw', 'status').fieldsV1, {
        'f:status': { 'f:conditions': { 'k:{"type":""}': { '.': {}, 'f:status': {} } } },
      });
    });
  });

  describe('every stored kind', () => {
    /**
     * Kinds whose status strategy resets what the fixture's status change touches, so that the
     * status applier owns nothing: upstream's CSR status strategy resets status.conditions.
     */
    const statusResetByKind = new Set(['certificates.k8s.io/v1/certificatesigningrequests']);
    const stored = Object.entries(fixtures).filter((entry): entry is [string, StoredFixture] => entry[1].readOnly !== true);
    const base = (key: string, namespaced: boolean): string => {
      const parts = key.split('/');
      const plural = parts.pop()!;
      const prefix = parts.length === 1 ? `/api/${parts[0]}` : `/apis/${parts.join('/')}`;
      return `${prefix}${namespaced ? `/namespaces/${NS}` : ''}/${plural}`;
    };

    for (const [key, fixture] of stored) {
      it(key, async () => {
        const collection = base(key, fixture.namespaced);
        // core/v1 and events.k8s.io/v1 Events are one resource: each kind gets its own name.
        const name = `ssa-${key.replace(/[./]/g, '-')}`;
        const path = `${collection}/${name}`;
        const valid = fixture.valid(name, NS);
        const apiVersion = String(valid.apiVersion);

        // Create by apply. The applier owns what it applied but identity metadata and the fields
        // the kind's strategy resets (a Namespace of a name alone leaves it nothing, hence no entry).
        const created = ok(await applyRaw(path, 'fieldManager=every', valid), 201);
        assert.ok(managedFields(created).length <= 1, JSON.stringify(created.metadata.managedFields));
        for (const entry of managedFields(created)) assertEntry(entry, { manager: 'every', operation: 'Apply', apiVersion });

        // The same configuration again: no write. When the applier owned nothing, the object has no
        // managedFields, and the next apply first records its fields (defaults the strategy set)
        // under before-first-apply, which is a write: only the apply after that changes nothing.
        let previous = created;
        if (managedFields(created).length === 0) {
          previous = ok(await applyRaw(path, 'fieldManager=every', valid));
          for (const e of managedFields(previous)) assert.equal(`${e.manager} ${e.operation}`, 'before-first-apply Update');
        }
        const again = ok(await applyRaw(path, 'fieldManager=every', valid));
        assert.equal(again.metadata.resourceVersion, previous.metadata.resourceVersion);
        assert.deepEqual(again, previous);

        // A change.
        const labelled = { ...valid, metadata: { ...valid.metadata, labels: { ssa: 'one' } } };
        const changed = ok(await applyRaw(path, 'fieldManager=every', labelled));
        assertContains(changed.metadata.labels, { ssa: 'one' });
        assertEntry(entryOf(changed, 'every'), { manager: 'every', operation: 'Apply', apiVersion });
        assert.deepEqual((entryOf(changed, 'every').fieldsV1?.['f:metadata'] as Json | undefined)?.['f:labels'], { 'f:ssa': {} });

        // Another manager's different value conflicts.
        const conflicting = await applyRaw(path, 'fieldManager=every-other', {
          apiVersion,
          kind: valid.kind,
          metadata: { name, ...(fixture.namespaced ? { namespace: NS } : {}), labels: { ssa: 'two' } },
        });
        assert.equal(conflicting.status, 409, conflicting.text);
        assert.equal((conflicting.json() as Json).message, 'Apply failed with 1 conflict: conflict with "every": .metadata.labels.ssa');

        // Dry run: answered, not stored.
        const dry = ok(await applyRaw(path, 'fieldManager=every&dryRun=All', { ...valid, metadata: { ...valid.metadata, labels: { ssa: 'dry' } } }));
        assert.equal(dry.metadata.labels?.['ssa'], 'dry');
        assert.deepEqual(await get(path), changed);

        // Validation: upstream's causes, nothing created.
        const invalidName = `${name}-invalid`;
        const invalid = fixture.invalid(invalidName, NS);
        const rejected = await applyRaw(`${collection}/${invalidName}`, 'fieldManager=every', invalid.object);
        assert.equal(rejected.status, 422, rejected.text);
        const causes = ((rejected.json() as Json).details as Json).causes as Json[];
        assert.deepEqual(
          causes.map((c) => ({ field: c.field, reason: c.reason })),
          invalid.causes.map((c) => ({ field: c.field, reason: c.reason })),
        );
        assert.equal((await cluster.request({ path: `${collection}/${invalidName}` })).status, 404);

        // The status subresource: a separate Apply entry.
        if (fixture.status) {
          const target = structuredClone(changed);
          fixture.status.mutate(target);
          const config = { apiVersion, kind: valid.kind, metadata: { name, ...(fixture.namespaced ? { namespace: NS } : {}) }, status: target.status };
          const statusApplied = ok(await applyRaw(`${path}/status`, 'fieldManager=every-status', config));
          // The strategy may add to what was applied (CSR conditions get their timestamps).
          assertContains(statusApplied.status, target.status);
          if (statusResetByKind.has(key)) {
            assert.equal(
              managedFields(statusApplied).some((e) => e.manager === 'every-status'),
              false,
              JSON.stringify(statusApplied.metadata.managedFields),
            );
          } else {
            const entry = entryOf(statusApplied, 'every-status', 'status');
            assertEntry(entry, { manager: 'every-status', operation: 'Apply', apiVersion, subresource: 'status' });
            assert.deepEqual(Object.keys(entry.fieldsV1 ?? {}), ['f:status']);
          }
          assert.deepEqual(entryOf(statusApplied, 'every').fieldsV1, entryOf(changed, 'every').fieldsV1);
        }
      });
    }
  });
});
