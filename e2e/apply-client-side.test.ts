/**
 * Client-side `kubectl apply` and `kubectl patch --type strategic` against one replica: both send
 * strategic merge patches, built by kubectl from the patch strategies and merge keys the server's
 * OpenAPI publishes. Three applies per manifest (create, then additions and removals, which the
 * last-applied-configuration annotation drives), with a change by another writer in between that
 * apply must keep; then every directive through `kubectl patch`, and upstream's errors.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { failed, startCluster, succeeded, type Cluster, type CommandResult } from './harness.ts';

const NS = 'apply';
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

type Json = Record<string, unknown>;

const metadataOf = (obj: Json): Json => obj.metadata as Json;
const annotationsOf = (obj: Json): Record<string, string> => (metadataOf(obj).annotations ?? {}) as Record<string, string>;
const names = (list: unknown): unknown[] => ((list ?? []) as Json[]).map((item) => item.name ?? item.type);

describe('client-side apply and strategic merge patch', () => {
  let cluster: Cluster;
  const kubectl = (args: string[], input?: string): Promise<CommandResult> => cluster.kubectl(args, input === undefined ? {} : { input });
  const getJson = async (args: string[]): Promise<Json> => JSON.parse(succeeded(await kubectl(['get', ...args, '-o', 'json']))) as Json;
  const apply = async (manifest: Json): Promise<string> => succeeded(await kubectl(['apply', '-f', '-'], JSON.stringify(manifest)));
  const patch = async (args: string[], body: Json): Promise<Json> =>
    JSON.parse(succeeded(await kubectl(['patch', ...args, '--type', 'strategic', '-p', JSON.stringify(body), '-o', 'json']))) as Json;
  const patchFails = async (args: string[], body: Json): Promise<string> =>
    failed(await kubectl(['patch', ...args, '--type', 'strategic', '-p', JSON.stringify(body)]));

  /** The object as last applied: what apply stores in the annotation, compared as JSON. */
  const assertLastApplied = (obj: Json, manifest: Json): void => {
    const stored = annotationsOf(obj)[lastApplied];
    assert.ok(stored, 'apply stores the last-applied-configuration annotation');
    const applied = JSON.parse(stored) as Json;
    const { annotations, ...meta } = applied.metadata as Json;
    assert.deepEqual(annotations, {});
    assert.deepEqual({ ...applied, metadata: meta }, manifest);
  };

  before(
    async () => {
      cluster = await startCluster();
      succeeded(await kubectl(['create', 'namespace', NS]));
    },
    { timeout: 120_000 },
  );
  after(async () => {
    await cluster?.stop();
  });

  describe('apply of a ConfigMap, three times', () => {
    const manifest = (labels: Record<string, string>, data: Record<string, string>): Json => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied', namespace: NS, labels },
      data,
    });
    const get = (): Promise<Json> => getJson(['configmap', 'applied', '-n', NS]);

    it('creates it', async () => {
      const first = manifest({ a: '1', b: '2' }, { one: '1', two: '2' });
      assert.equal(await apply(first), 'configmap/applied created\n');
      const cm = await get();
      assert.deepEqual(metadataOf(cm).labels, { a: '1', b: '2' });
      assert.deepEqual(cm.data, { one: '1', two: '2' });
      assertLastApplied(cm, first);
    });

    it('adds, changes and removes what the manifest does, keeping what another writer set', async () => {
      succeeded(await kubectl(['label', 'configmap', 'applied', '-n', NS, 'other=kept']));
      const second = manifest({ a: '1', c: '3' }, { one: '10', three: '3' });
      assert.equal(await apply(second), 'configmap/applied configured\n');
      const cm = await get();
      assert.deepEqual(metadataOf(cm).labels, { a: '1', c: '3', other: 'kept' });
      assert.deepEqual(cm.data, { one: '10', three: '3' });
      assertLastApplied(cm, second);
    });

    it('removes fields the manifest no longer has, as a whole', async () => {
      const third = manifest({}, { three: '3' });
      delete (third.metadata as Json).labels;
      assert.equal(await apply(third), 'configmap/applied configured\n');
      const cm = await get();
      // kubectl sends `labels: null` for a map the manifest dropped, taking the other writer's label too.
      assert.equal(metadataOf(cm).labels, undefined);
      assert.deepEqual(cm.data, { three: '3' });
      assertLastApplied(cm, third);
    });

    it('changes nothing when applied again', async () => {
      const third = manifest({}, { three: '3' });
      delete (third.metadata as Json).labels;
      const before = await get();
      assert.equal(await apply(third), 'configmap/applied unchanged\n');
      assert.equal(metadataOf(await get()).resourceVersion, metadataOf(before).resourceVersion);
    });
  });

  describe('apply of a Node, three times', () => {
    const manifest = (labels: Record<string, string>, finalizers: string[], taints: Json[]): Json => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'applied-node', labels, finalizers },
      spec: { taints },
    });
    const get = (): Promise<Json> => getJson(['node', 'applied-node']);
    const taint = (key: string): Json => ({ effect: 'NoSchedule', key });

    it('creates it', async () => {
      const first = manifest({ a: '1' }, ['example.com/x', 'example.com/y'], [taint('k1'), taint('k2')]);
      assert.equal(await apply(first), 'node/applied-node created\n');
      const node = await get();
      assert.deepEqual(metadataOf(node).finalizers, ['example.com/x', 'example.com/y']);
      assertLastApplied(node, first);
    });

    it('merges finalizers as a set in the manifest order, and replaces taints', async () => {
      succeeded(
        await kubectl(['patch', 'node', 'applied-node', '--type', 'strategic', '-p', JSON.stringify({ metadata: { finalizers: ['example.com/other'] } })]),
      );
      const second = manifest({ b: '2' }, ['example.com/z', 'example.com/x'], [taint('k3')]);
      assert.equal(await apply(second), 'node/applied-node configured\n');
      const node = await get();
      assert.deepEqual(metadataOf(node).labels, { b: '2' });
      // y was applied before and is gone; z is new and first; the other writer's finalizer stays before x.
      assert.deepEqual(metadataOf(node).finalizers, ['example.com/z', 'example.com/other', 'example.com/x']);
      assert.deepEqual((node.spec as Json).taints, [taint('k3')]);
      assertLastApplied(node, second);
    });

    it('removes what the manifest dropped', async () => {
      const third = manifest({ b: '2' }, ['example.com/x'], [taint('k3')]);
      delete (third.spec as Json).taints;
      assert.equal(await apply(third), 'node/applied-node configured\n');
      const node = await get();
      assert.deepEqual(metadataOf(node).finalizers, ['example.com/other', 'example.com/x']);
      assert.equal((node.spec as Json | undefined)?.taints, undefined);
      assertLastApplied(node, third);
    });
  });

  describe('apply of a CSINode, three times', () => {
    const driver = (name: string): Json => ({ name, nodeID: 'applied-node', topologyKeys: ['zone'] });
    const manifest = (...drivers: string[]): Json => ({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: { name: 'applied-node' },
      spec: { drivers: drivers.map(driver) },
    });
    const drivers = async (): Promise<unknown[]> => names(((await getJson(['csinode', 'applied-node'])).spec as Json).drivers);

    it('creates it', async () => {
      assert.equal(await apply(manifest('d1.csi', 'd2.csi')), 'csinode.storage.k8s.io/applied-node created\n');
      assert.deepEqual(await drivers(), ['d1.csi', 'd2.csi']);
    });

    it('adds and removes drivers by name', async () => {
      assert.equal(await apply(manifest('d3.csi', 'd1.csi')), 'csinode.storage.k8s.io/applied-node configured\n');
      assert.deepEqual(await drivers(), ['d3.csi', 'd1.csi']);
      const csinode = await getJson(['csinode', 'applied-node']);
      assertLastApplied(csinode, manifest('d3.csi', 'd1.csi'));
    });

    it('reorders the applied drivers around one another writer added', async () => {
      const patched = await patch(['csinode', 'applied-node'], { spec: { drivers: [driver('d9.csi')] } });
      assert.deepEqual(names((patched.spec as Json).drivers), ['d9.csi', 'd3.csi', 'd1.csi']);
      assert.equal(await apply(manifest('d1.csi', 'd3.csi')), 'csinode.storage.k8s.io/applied-node configured\n');
      assert.deepEqual(await drivers(), ['d9.csi', 'd1.csi', 'd3.csi']);
    });
  });

  describe('kubectl patch --type strategic', () => {
    const node = ['node', 'patched-node'];
    const status = [...node, '--subresource=status'];
    const condition = (type: string, value = 'False'): Json => ({ type, status: value });
    const conditionTypes = (obj: Json): unknown[] => names((obj.status as Json).conditions);

    before(async () => {
      succeeded(
        await kubectl(
          ['create', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'Node',
            metadata: { name: 'patched-node', labels: { a: '1', b: '2' }, finalizers: ['example.com/a', 'example.com/b'] },
          }),
        ),
      );
    });

    it('merges a list by its merge key', async () => {
      let obj = await patch(status, { status: { conditions: [condition('Ready', 'True'), condition('DiskPressure')] } });
      assert.deepEqual(conditionTypes(obj), ['Ready', 'DiskPressure']);
      obj = await patch(status, { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletDown' }] } });
      assert.deepEqual((obj.status as Json).conditions, [{ type: 'Ready', status: 'False', reason: 'KubeletDown' }, condition('DiskPressure')]);
    });

    it('$patch: delete removes a list item', async () => {
      const obj = await patch(status, { status: { conditions: [condition('MemoryPressure'), { type: 'Ready', $patch: 'delete' }] } });
      assert.deepEqual(conditionTypes(obj), ['MemoryPressure', 'DiskPressure']);
    });

    it('$setElementOrder orders a list', async () => {
      const obj = await patch(status, { status: { '$setElementOrder/conditions': [{ type: 'DiskPressure' }, { type: 'MemoryPressure' }] } });
      assert.deepEqual(conditionTypes(obj), ['DiskPressure', 'MemoryPressure']);
    });

    it('$patch: replace in a list replaces it', async () => {
      const obj = await patch(status, { status: { conditions: [condition('PIDPressure'), { $patch: 'replace' }] } });
      assert.deepEqual((obj.status as Json).conditions, [condition('PIDPressure')]);
    });

    it('merges a list of scalars as a set', async () => {
      const obj = await patch(node, { metadata: { finalizers: ['example.com/c', 'example.com/a'] } });
      assert.deepEqual(metadataOf(obj).finalizers, ['example.com/c', 'example.com/a', 'example.com/b']);
    });

    it('$deleteFromPrimitiveList removes scalars', async () => {
      const obj = await patch(node, { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a', 'example.com/c'] } });
      assert.deepEqual(metadataOf(obj).finalizers, ['example.com/b']);
    });

    it('$patch: replace in a map replaces it', async () => {
      const obj = await patch(node, { metadata: { labels: { $patch: 'replace', c: '3' } } });
      assert.deepEqual(metadataOf(obj).labels, { c: '3' });
    });

    it('$patch: delete in a map empties it', async () => {
      const obj = await patch(node, { metadata: { labels: { $patch: 'delete' } } });
      assert.equal(metadataOf(obj).labels, undefined);
    });

    it('$retainKeys clears the fields it does not name', async () => {
      await patch(node, { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } });
      const obj = await patch(node, { spec: { $retainKeys: ['unschedulable'], unschedulable: true } });
      assert.deepEqual(obj.spec, { unschedulable: true });
    });

    it('replaces a list without a merge strategy', async () => {
      await patch(node, { spec: { taints: [{ key: 'k1', effect: 'NoSchedule' }] } });
      const obj = await patch(node, { spec: { taints: [{ key: 'k2', effect: 'NoExecute' }] } });
      assert.deepEqual((obj.spec as Json).taints, [{ key: 'k2', effect: 'NoExecute' }]);
    });

    it('answers malformed directives with 400', async () => {
      assert.equal(
        await patchFails(node, { metadata: { $deleteFromPrimitiveList: ['x'] } }),
        'Error from server (BadRequest): invalid patch format of primitive list\n',
      );
      assert.equal(
        await patchFails(node, { spec: { $retainKeys: ['taints'], unschedulable: false } }),
        'Error from server (BadRequest): invalid patch format of retainKeys\n',
      );
      assert.equal(
        await patchFails(node, { status: { $setElementOrder: [] } }),
        'Error from server (BadRequest): invalid patch format of setElementOrder list\n',
      );
    });

    // Upstream answers these with 500 (plain Go errors); they are the patch's fault, so corral says 400.
    it('answers other patch errors with 400 and upstream messages', async () => {
      assert.equal(
        await patchFails(status, { status: { conditions: [{ status: 'True' }] } }),
        'Error from server (BadRequest): map: map[status:True] does not contain declared merge key: type\n',
      );
      assert.equal(
        await patchFails(node, { metadata: { $patch: 'merge' } }),
        'Error from server (BadRequest): unknown patch type: merge in map: map[$patch:merge]\n',
      );
    });
  });
});
