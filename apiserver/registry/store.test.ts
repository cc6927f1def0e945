/**
 * The generic store in process, on the in-memory etcd (testing/memory-etcd.ts), without a watch
 * cache: the order of its steps, what it writes (and that a dry run or a refused write writes
 * nothing: the storage revision does not move), optimistic concurrency, deletion with
 * preconditions and finalizers, generation counting, paging, and the translation of storage errors.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../shared/api/types.ts';
import { AdmissionChain, type AdmissionPlugin } from '../admission/admission.ts';
import { StorageError } from '../storage/etcd/errors.ts';
import { MemoryEtcd } from '../testing/memory-etcd.ts';
import { rejection } from '../testing/rejection.ts';
import { configMapDefinition } from './core/configmap.ts';
import type { RequestContext, ResourceDefinition } from './definition.ts';
import { createFieldManager } from './managed-fields.ts';
import { everything, GenericStore, type ListFilter, type WriteOptions } from './store.ts';
import { csiDriverDefinition } from './volumes/csidriver.ts';

const now = new Date('2024-05-06T07:08:09Z');
const ctx: RequestContext = { user: { username: 'admin', groups: ['system:masters'] }, now };
const write: WriteOptions = { dryRun: false, manager: 'test' };
const dryRun: WriteOptions = { dryRun: true, manager: 'test' };

interface Setup {
  storage: MemoryEtcd;
  store: GenericStore;
}

function setup(definition: ResourceDefinition = configMapDefinition, plugins: AdmissionPlugin[] = []): Setup {
  const storage = new MemoryEtcd();
  return { storage, store: new GenericStore(definition, storage, new AdmissionChain(plugins), createFieldManager()) };
}

const configMap = (name: string, data: Record<string, string> = { a: '1' }): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
const csiDriver = (name: string, spec: Record<string, unknown> = { attachRequired: true }): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSIDriver',
  metadata: { name },
  spec,
});
/** A merge of `data` into a ConfigMap, as a patch's transform. */
const withData =
  (data: Record<string, string>) =>
  (current: KubeObject | null): KubeObject => ({ ...(current ?? configMap('x')), data: { ...(current?.['data'] as object), ...data } });

describe('GenericStore create and get', () => {
  it('stores a new object with system metadata, its resourceVersion the storage revision', async () => {
    const { storage, store } = setup();
    const sent = configMap('one');
    sent.metadata = { ...sent.metadata, uid: 'client-uid', resourceVersion: '77', namespace: 'default' };
    const created = await store.create('default', sent, ctx, write);
    assert.equal(created.metadata.namespace, 'default');
    assert.match(created.metadata.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.notEqual(created.metadata.uid, 'client-uid');
    assert.equal(created.metadata.creationTimestamp, '2024-05-06T07:08:09Z');
    assert.equal(created.metadata.resourceVersion, String(await storage.currentRevision()));
    assert.deepEqual(
      created.metadata.managedFields?.map((e) => [e.manager, e.operation]),
      [['test', 'Update']],
    );
    assert.deepEqual(await store.get('default', 'one'), created);
    const stored = await storage.get(storage.key('configmaps', 'default', 'one'));
    assert.equal(stored?.modRevision, Number(created.metadata.resourceVersion));
  });

  it('refuses an existing name with 409 AlreadyExists and writes nothing', async () => {
    const { storage, store } = setup();
    await store.create('default', configMap('taken'), ctx, write);
    const revision = await storage.currentRevision();
    const err = await rejection(store.create('default', configMap('taken'), ctx, write));
    assert.equal(err.status.code, 409);
    assert.equal(err.status.reason, 'AlreadyExists');
    assert.equal(err.status.message, 'configmaps "taken" already exists');
    assert.equal(await storage.currentRevision(), revision);
  });

  it('answers a missing object with 404 NotFound, in its namespace only', async () => {
    const { store } = setup();
    await store.create('default', configMap('here'), ctx, write);
    const err = await rejection(store.get('other', 'here'));
    assert.equal(err.status.code, 404);
    assert.equal(err.status.message, 'configmaps "here" not found');
  });

  it('generates a name from generateName', async () => {
    const { store } = setup();
    const created = await store.create('default', { ...configMap(''), metadata: { generateName: 'gen-' } }, ctx, write);
    assert.match(created.metadata.name ?? '', /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal((await store.get('default', created.metadata.name ?? '')).metadata.uid, created.metadata.uid);
  });

  it('rejects a body namespace that differs from the path with 400', async () => {
    const { store } = setup();
    const err = await rejection(store.create('default', { ...configMap('ns'), metadata: { name: 'ns', namespace: 'other' } }, ctx, write));
    assert.equal(err.status.code, 400);
  });
});

describe('GenericStore admission', () => {
  /** Records the phases it is called in, and breaks every CREATE's labels in the mutating one. */
  function recorder(calls: string[], breaks: boolean): AdmissionPlugin {
    return {
      name: 'Recorder',
      async admit(a) {
        calls.push(`admit ${a.operation} uid=${a.object?.metadata.uid ?? a.oldObject?.metadata.uid ?? '-'}`);
        if (breaks && a.object) a.object.metadata.labels = { 'not a key!': 'v' };
      },
      async validate(a) {
        calls.push(`validate ${a.operation} uid=${a.object?.metadata.uid ? 'set' : '-'}`);
      },
    };
  }

  it("validates what a mutating plugin did with the kind's validation (422) and writes nothing", async () => {
    const calls: string[] = [];
    const { storage, store } = setup(configMapDefinition, [recorder(calls, true)]);
    const revision = await storage.currentRevision();
    const err = await rejection(store.create('default', configMap('broken'), ctx, write));
    assert.equal(err.status.code, 422);
    assert.equal(err.status.reason, 'Invalid');
    assert.deepEqual(
      err.status.details?.causes?.map((c) => c.field),
      ['metadata.labels'],
    );
    assert.deepEqual(calls, ['admit CREATE uid=-'], 'mutating admission ran before system metadata; validating never');
    assert.equal(await storage.currentRevision(), revision);
  });

  it('runs mutating admission before system metadata and validating admission on the final object; both on DELETE', async () => {
    const calls: string[] = [];
    const { store } = setup(configMapDefinition, [recorder(calls, false)]);
    const created = await store.create('default', configMap('ordered'), ctx, write);
    await store.delete('default', 'ordered', ctx, { dryRun: false });
    assert.deepEqual(calls, ['admit CREATE uid=-', 'validate CREATE uid=set', `admit DELETE uid=${created.metadata.uid ?? ''}`, 'validate DELETE uid=-']);
  });
});

describe('GenericStore update', () => {
  it('writes a change at a new revision and keeps what the client may not change', async () => {
    const { store } = setup();
    const created = await store.create('default', configMap('upd'), ctx, write);
    const sent = { ...structuredClone(created), data: { a: '2' } };
    delete sent.metadata.uid;
    sent.metadata.creationTimestamp = '2000-01-01T00:00:00Z';
    const { object, created: wasCreated } = await store.update('default', 'upd', '', { replacement: () => sent }, ctx, write);
    assert.equal(wasCreated, false);
    assert.deepEqual(object['data'], { a: '2' });
    assert.ok(Number(object.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
    assert.equal(object.metadata.uid, created.metadata.uid);
    assert.equal(object.metadata.creationTimestamp, created.metadata.creationTimestamp);
  });

  it('refuses a stale resourceVersion with 409 Conflict in upstream words', async () => {
    const { storage, store } = setup();
    const created = await store.create('default', configMap('stale'), ctx, write);
    await store.update('default', 'stale', '', withData({ b: '1' }), ctx, write);
    const revision = await storage.currentRevision();
    const stale = { ...structuredClone(created), data: { a: 'stale' } };
    const err = await rejection(store.update('default', 'stale', '', { replacement: () => stale }, ctx, write));
    assert.equal(err.status.code, 409);
    assert.equal(
      err.status.message,
      'Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again',
    );
    assert.equal(await storage.currentRevision(), revision);
  });

  it('applies a transform again on the fresh object after losing a race', async () => {
    const { store } = setup();
    await store.create('default', configMap('race'), ctx, write);
    let calls = 0;
    const racing = async (current: KubeObject | null): Promise<KubeObject> => {
      calls++;
      // Another writer wins between this read and the compare-and-swap (once).
      if (calls === 1) await store.update('default', 'race', '', withData({ other: 'won' }), ctx, write);
      return withData({ mine: 'too' })(current);
    };
    const { object } = await store.update('default', 'race', '', racing, ctx, write);
    assert.equal(calls, 2);
    assert.deepEqual(object['data'], { a: '1', other: 'won', mine: 'too' });
    assert.deepEqual((await store.get('default', 'race'))['data'], object['data']);
  });

  it('writes nothing for an update that changes nothing', async () => {
    const { storage, store } = setup();
    const created = await store.create('default', configMap('same'), ctx, write);
    const revision = await storage.currentRevision();
    const { object } = await store.update('default', 'same', '', withData({ a: '1' }), ctx, write);
    assert.equal(object.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(await storage.currentRevision(), revision);
  });

  it('answers an update of a missing object with 404 when the kind does not create on update', async () => {
    const { store } = setup();
    const err = await rejection(store.update('default', 'absent', '', { replacement: () => configMap('absent') }, ctx, write));
    assert.equal(err.status.code, 404);
  });

  it('requires a resourceVersion where the kind forbids unconditional updates (422)', async () => {
    const { store } = setup(csiDriverDefinition);
    await store.create('', csiDriver('uncond.example.com'), ctx, write);
    const err = await rejection(
      store.update(
        '',
        'uncond.example.com',
        '',
        { replacement: () => csiDriver('uncond.example.com', { attachRequired: true, podInfoOnMount: true }) },
        ctx,
        write,
      ),
    );
    assert.equal(err.status.code, 422);
    assert.equal(
      err.status.message,
      'csidrivers.storage.k8s.io "uncond.example.com" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });

  it('counts generation on spec changes only, for a kind that tracks it', async () => {
    const { store } = setup(csiDriverDefinition);
    const created = await store.create('', { ...csiDriver('gen.example.com'), metadata: { name: 'gen.example.com', generation: 9 } }, ctx, write);
    assert.equal(created.metadata.generation, 1);
    const changeSpec = (current: KubeObject | null): KubeObject => ({
      ...(current ?? created),
      spec: { ...(current?.['spec'] as object), podInfoOnMount: true },
    });
    const specChanged = await store.update('', 'gen.example.com', '', changeSpec, ctx, write);
    assert.equal(specChanged.object.metadata.generation, 2);
    const annotate = (current: KubeObject | null): KubeObject => ({
      ...(current ?? created),
      metadata: { ...current?.metadata, annotations: { only: 'metadata' } },
    });
    const metadataOnly = await store.update('', 'gen.example.com', '', annotate, ctx, write);
    assert.equal(metadataOnly.object.metadata.generation, 2);
    assert.notEqual(metadataOnly.object.metadata.resourceVersion, specChanged.object.metadata.resourceVersion);
  });
});

describe('GenericStore delete', () => {
  it('checks the uid and resourceVersion preconditions (409) before removing', async () => {
    const { store } = setup();
    const created = await store.create('default', configMap('pre'), ctx, write);
    const byUid = await rejection(store.delete('default', 'pre', ctx, { dryRun: false, preconditions: { uid: 'wrong' } }));
    assert.equal(byUid.status.code, 409);
    assert.equal(
      byUid.status.message,
      `Operation cannot be fulfilled on configmaps "pre": Precondition failed: UID in precondition: wrong, UID in object meta: ${created.metadata.uid ?? ''}`,
    );
    const byVersion = await rejection(store.delete('default', 'pre', ctx, { dryRun: false, preconditions: { resourceVersion: '1' } }));
    assert.equal(byVersion.status.code, 409);
    assert.match(byVersion.status.message ?? '', /ResourceVersion in precondition: 1, ResourceVersion in object meta: \d+$/);
    const outcome = await store.delete('default', 'pre', ctx, {
      dryRun: false,
      preconditions: { uid: created.metadata.uid ?? '', resourceVersion: created.metadata.resourceVersion ?? '' },
    });
    assert.equal(outcome.deleted, true);
    assert.equal(outcome.object.metadata.uid, created.metadata.uid);
    assert.equal((await rejection(store.get('default', 'pre'))).status.code, 404);
    assert.equal((await rejection(store.delete('default', 'pre', ctx, { dryRun: false }))).status.code, 404);
  });

  it('marks an object with finalizers, keeps it until the last one goes, then removes it', async () => {
    const { storage, store } = setup();
    await store.create('default', { ...configMap('fin'), metadata: { name: 'fin', finalizers: ['example.com/f'] } }, ctx, write);
    const marked = await store.delete('default', 'fin', ctx, { dryRun: false });
    assert.equal(marked.deleted, false);
    assert.equal(marked.object.metadata.deletionTimestamp, '2024-05-06T07:08:09Z');
    assert.equal(marked.object.metadata.deletionGracePeriodSeconds, 0);
    assert.equal(marked.object.metadata.resourceVersion, String(await storage.currentRevision()));
    // A second delete changes nothing while the finalizer is there.
    const revision = await storage.currentRevision();
    const again = await store.delete('default', 'fin', ctx, { dryRun: false });
    assert.equal(again.deleted, false);
    assert.equal(await storage.currentRevision(), revision);
    // Removing the last finalizer removes the object.
    const dropFinalizers = (current: KubeObject | null): KubeObject => ({
      ...(current ?? configMap('fin')),
      metadata: { ...current?.metadata, finalizers: [] },
    });
    await store.update('default', 'fin', '', dropFinalizers, ctx, write);
    assert.equal((await rejection(store.get('default', 'fin'))).status.code, 404);
  });

  it('moves a counted generation when it marks an object for deletion', async () => {
    const { store } = setup(csiDriverDefinition);
    await store.create('', { ...csiDriver('fin.example.com'), metadata: { name: 'fin.example.com', finalizers: ['example.com/f'] } }, ctx, write);
    const marked = await store.delete('', 'fin.example.com', ctx, { dryRun: false });
    assert.equal(marked.object.metadata.generation, 2);
    assert.equal((await store.get('', 'fin.example.com')).metadata.generation, 2);
  });

  it('deletes the selected objects of a collection', async () => {
    const { store } = setup();
    for (const name of ['dc-a', 'dc-b', 'keep']) await store.create('default', configMap(name), ctx, write);
    const selected: ListFilter = { selective: true, matches: (obj) => obj.metadata.name?.startsWith('dc-') ?? false };
    const deleted = await store.deleteCollection('default', { filter: selected }, ctx, { dryRun: false });
    assert.deepEqual(
      deleted.map((o) => o.metadata.name),
      ['dc-a', 'dc-b'],
    );
    assert.deepEqual(
      (await store.list('default', { filter: everything })).items.map((o) => o.metadata.name),
      ['keep'],
    );
  });
});

describe('GenericStore dry run', () => {
  it('runs every step of create, update and delete but writes nothing', async () => {
    const { storage, store } = setup();
    const created = await store.create('default', configMap('dry'), ctx, write);
    const revision = await storage.currentRevision();
    const dryCreated = await store.create('default', configMap('dry-new'), ctx, dryRun);
    assert.equal(dryCreated.metadata.resourceVersion, undefined);
    assert.match(dryCreated.metadata.uid ?? '', /^[0-9a-f-]{36}$/);
    const dryUpdated = await store.update('default', 'dry', '', withData({ a: 'dry' }), ctx, dryRun);
    assert.deepEqual(dryUpdated.object['data'], { a: 'dry' });
    const dryDeleted = await store.delete('default', 'dry', ctx, { dryRun: true });
    assert.equal(dryDeleted.deleted, true);
    assert.equal(await storage.currentRevision(), revision);
    assert.deepEqual(await store.get('default', 'dry'), created);
    assert.equal((await rejection(store.get('default', 'dry-new'))).status.code, 404);
  });

  it('refuses a dry-run create of an existing object as the real one (409)', async () => {
    const { store } = setup();
    await store.create('default', configMap('exists'), ctx, write);
    assert.equal((await rejection(store.create('default', configMap('exists'), ctx, dryRun))).status.reason, 'AlreadyExists');
  });
});

describe('GenericStore list', () => {
  it('pages one snapshot with limit and continue, counting what remains', async () => {
    const { store } = setup();
    for (const name of ['p1', 'p2', 'p3']) await store.create('default', configMap(name), ctx, write);
    await store.create('other', configMap('elsewhere'), ctx, write);
    const first = await store.list('default', { filter: everything, limit: 2 });
    assert.deepEqual(
      first.items.map((o) => o.metadata.name),
      ['p1', 'p2'],
    );
    assert.equal(first.items[0]?.kind, undefined, 'list items carry no kind');
    assert.equal(first.metadata.remainingItemCount, 1);
    assert.ok(first.metadata.continue);
    // Written after the first page: not in the snapshot the pages walk.
    await store.create('default', configMap('p4'), ctx, write);
    await store.update('default', 'p3', '', withData({ a: 'later' }), ctx, write);
    const second = await store.list('default', { filter: everything, limit: 2, continueToken: first.metadata.continue });
    assert.deepEqual(
      second.items.map((o) => [o.metadata.name, o['data']]),
      [['p3', { a: '1' }]],
    );
    assert.equal(second.metadata.resourceVersion, first.metadata.resourceVersion);
    assert.equal(second.metadata.continue, undefined);
    assert.equal(second.metadata.remainingItemCount, undefined);
    const all = await store.list('', { filter: everything });
    assert.deepEqual(
      all.items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`),
      ['default/p1', 'default/p2', 'default/p3', 'default/p4', 'other/elsewhere'],
    );
  });

  it('fills a page through a selector and omits remainingItemCount', async () => {
    const { store } = setup();
    for (const name of ['a1', 'b1', 'a2', 'b2', 'a3']) await store.create('default', configMap(name), ctx, write);
    const onlyA: ListFilter = { selective: true, matches: (obj) => obj.metadata.name?.startsWith('a') ?? false };
    const page = await store.list('default', { filter: onlyA, limit: 2 });
    assert.deepEqual(
      page.items.map((o) => o.metadata.name),
      ['a1', 'a2'],
    );
    assert.equal(page.metadata.remainingItemCount, undefined);
    const rest = await store.list('default', { filter: onlyA, limit: 2, continueToken: page.metadata.continue });
    assert.deepEqual(
      rest.items.map((o) => o.metadata.name),
      ['a3'],
    );
  });

  it('answers a compacted continue token and Exact version with 410 Expired, a future version with 504', async () => {
    const { storage, store } = setup();
    for (const name of ['c1', 'c2']) await store.create('default', configMap(name), ctx, write);
    const first = await store.list('default', { filter: everything, limit: 1 });
    await store.update('default', 'c1', '', withData({ a: '2' }), ctx, write);
    const old = first.metadata.resourceVersion ?? '';
    assert.deepEqual((await store.list('default', { filter: everything, resourceVersion: old, resourceVersionMatch: 'Exact' })).items[0]?.['data'], { a: '1' });
    storage.compact();
    const token = await rejection(store.list('default', { filter: everything, limit: 1, continueToken: first.metadata.continue }));
    assert.equal(token.status.code, 410);
    assert.equal(token.status.reason, 'Expired');
    const exact = await rejection(store.list('default', { filter: everything, resourceVersion: old, resourceVersionMatch: 'Exact' }));
    assert.equal(exact.status.code, 410);
    const future = await rejection(store.list('default', { filter: everything, resourceVersion: '999', resourceVersionMatch: 'Exact' }));
    assert.equal(future.status.code, 504);
    assert.match(future.status.message ?? '', /^Timeout: Too large resource version: 999, current: \d+$/);
  });
});

describe('GenericStore storage errors', () => {
  it('translates an unreachable etcd into 504 and writes nothing', async () => {
    const { storage, store } = setup();
    storage.failNextWrite(new StorageError('Unavailable', '', 'etcdserver: leader changed'));
    const err = await rejection(store.create('default', configMap('down'), ctx, write));
    assert.equal(err.status.code, 504);
    assert.equal(err.status.message, 'Timeout: request did not complete within requested timeout - etcdserver: leader changed');
    assert.equal((await rejection(store.get('default', 'down'))).status.code, 404);
  });

  it('writes a create etcd refuses as too large again without managedFields', async () => {
    const { storage, store } = setup();
    storage.failNextWrite(new StorageError('TooLarge', '', 'etcdserver: request is too large'));
    const created = await store.create('default', configMap('large'), ctx, write);
    assert.equal(created.metadata.managedFields, undefined);
    assert.deepEqual((await store.get('default', 'large'))['data'], { a: '1' });
  });
});
