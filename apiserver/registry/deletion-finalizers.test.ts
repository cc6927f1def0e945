/**
 * Deletion propagation: the garbage-collection finalizers a DELETE leaves (the rules alone), and the
 * generic store applying them on the in-memory etcd: Foreground and Orphan keep the object with
 * their finalizer and a deletionTimestamp, Background removes it, a second delete switches the
 * finalizer, Events never get one, and a Namespace follows its own REST Delete's rules.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../shared/api/types.ts';
import { AdmissionChain } from '../admission/admission.ts';
import { MemoryEtcd } from '../testing/memory-etcd.ts';
import { rejection } from '../testing/rejection.ts';
import { configMapDefinition } from './core/configmap.ts';
import { coreEventDefinition } from './core/event.ts';
import { namespaceDefinition } from './core/namespace.ts';
import type { RequestContext, ResourceDefinition } from './definition.ts';
import { deletionFinalizers, namespaceDeletionFinalizers } from './deletion-finalizers.ts';
import { createFieldManager } from './managed-fields.ts';
import { GenericStore, type DeleteOptions, type WriteOptions } from './store.ts';

const now = new Date('2024-05-06T07:08:09Z');
const later = new Date('2024-05-06T08:00:00Z');
const ctx: RequestContext = { user: { username: 'admin', groups: ['system:masters'] }, now };
const write: WriteOptions = { dryRun: false, manager: 'test' };

function setup(definition: ResourceDefinition = configMapDefinition): { storage: MemoryEtcd; store: GenericStore } {
  const storage = new MemoryEtcd();
  return { storage, store: new GenericStore(definition, storage, new AdmissionChain([]), createFieldManager()) };
}

const configMap = (name: string, finalizers?: string[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(finalizers ? { finalizers } : {}) },
  data: { a: '1' },
});

describe('deletionFinalizers (the generic rules)', () => {
  it('adds the finalizer of the policy asked for, none for Background', () => {
    assert.deepEqual(deletionFinalizers([], { propagationPolicy: 'Foreground' }), ['foregroundDeletion']);
    assert.deepEqual(deletionFinalizers([], { propagationPolicy: 'Orphan' }), ['orphan']);
    assert.deepEqual(deletionFinalizers([], { propagationPolicy: 'Background' }), []);
    assert.deepEqual(deletionFinalizers(['example.com/f'], {}), ['example.com/f']);
  });

  it('reads the deprecated orphanDependents: true orphans, false is Background', () => {
    assert.deepEqual(deletionFinalizers([], { orphanDependents: true }), ['orphan']);
    assert.deepEqual(deletionFinalizers(['foregroundDeletion'], { orphanDependents: false }), []);
  });

  it('swaps the opposite finalizer when the policy changes, keeping the others in order', () => {
    assert.deepEqual(deletionFinalizers(['a.io/x', 'orphan', 'b.io/y'], { propagationPolicy: 'Foreground' }), ['a.io/x', 'b.io/y', 'foregroundDeletion']);
    assert.deepEqual(deletionFinalizers(['foregroundDeletion'], { propagationPolicy: 'Orphan' }), ['orphan']);
    assert.deepEqual(deletionFinalizers(['orphan'], { propagationPolicy: 'Background' }), []);
  });

  it('keeps an existing GC finalizer when the request names no policy', () => {
    assert.deepEqual(deletionFinalizers(['orphan', 'a.io/x'], {}), ['orphan', 'a.io/x']);
    assert.deepEqual(deletionFinalizers(['foregroundDeletion'], {}), ['foregroundDeletion']);
  });

  it("follows the kind's default policy, and never adds or keeps one for Unsupported kinds", () => {
    assert.deepEqual(deletionFinalizers([], {}, 'OrphanDependents'), ['orphan']);
    assert.deepEqual(deletionFinalizers([], { propagationPolicy: 'Background' }, 'OrphanDependents'), []);
    assert.deepEqual(deletionFinalizers([], { propagationPolicy: 'Foreground' }, 'Unsupported'), []);
    assert.deepEqual(deletionFinalizers(['orphan', 'a.io/x'], { propagationPolicy: 'Orphan' }, 'Unsupported'), ['a.io/x']);
  });

  it('namespace rules: orphanDependents=false asks for Foreground, no options keep what is there', () => {
    assert.deepEqual(namespaceDeletionFinalizers([], { orphanDependents: false }), ['foregroundDeletion']);
    assert.deepEqual(namespaceDeletionFinalizers(['orphan'], {}), ['orphan']);
    assert.deepEqual(namespaceDeletionFinalizers(['orphan'], { propagationPolicy: 'Foreground' }), ['foregroundDeletion']);
    assert.deepEqual(namespaceDeletionFinalizers([], {}), []);
  });
});

describe('GenericStore deletion propagation', () => {
  const del = (store: GenericStore, name: string, opts: Omit<DeleteOptions, 'dryRun'>, at: RequestContext = ctx) =>
    store.delete('default', name, at, { dryRun: false, ...opts });

  it('Foreground keeps the object with foregroundDeletion and a deletionTimestamp', async () => {
    const { store } = setup();
    await store.create('default', configMap('fg'), ctx, write);
    const outcome = await del(store, 'fg', { propagationPolicy: 'Foreground' });
    assert.equal(outcome.deleted, false);
    const stored = await store.get('default', 'fg');
    assert.deepEqual(stored.metadata.finalizers, ['foregroundDeletion']);
    assert.equal(stored.metadata.deletionTimestamp, '2024-05-06T07:08:09Z');
    assert.equal(stored.metadata.deletionGracePeriodSeconds, 0);
  });

  it('Orphan keeps the object with the orphan finalizer; Background removes it at once', async () => {
    const { store } = setup();
    await store.create('default', configMap('or'), ctx, write);
    await store.create('default', configMap('bg'), ctx, write);
    assert.equal((await del(store, 'or', { propagationPolicy: 'Orphan' })).deleted, false);
    assert.deepEqual((await store.get('default', 'or')).metadata.finalizers, ['orphan']);
    assert.equal((await del(store, 'bg', { propagationPolicy: 'Background' })).deleted, true);
    assert.equal((await rejection(store.get('default', 'bg'))).status.code, 404);
  });

  it('a second delete with another policy swaps the finalizer and keeps the first deletionTimestamp', async () => {
    const { store } = setup();
    await store.create('default', configMap('swap'), ctx, write);
    await del(store, 'swap', { propagationPolicy: 'Orphan' });
    const again = await del(store, 'swap', { propagationPolicy: 'Foreground' }, { ...ctx, now: later });
    assert.equal(again.deleted, false);
    const stored = await store.get('default', 'swap');
    assert.deepEqual(stored.metadata.finalizers, ['foregroundDeletion']);
    assert.equal(stored.metadata.deletionTimestamp, '2024-05-06T07:08:09Z');
  });

  it('a second delete with Background drops the only GC finalizer, so the object goes', async () => {
    const { store } = setup();
    await store.create('default', configMap('drop'), ctx, write);
    await del(store, 'drop', { propagationPolicy: 'Orphan' });
    assert.equal((await del(store, 'drop', { propagationPolicy: 'Background' })).deleted, true);
    assert.equal((await rejection(store.get('default', 'drop'))).status.code, 404);
  });

  it('a repeated delete without a policy writes nothing', async () => {
    const { storage, store } = setup();
    await store.create('default', configMap('same', ['example.com/f']), ctx, write);
    await del(store, 'same', { propagationPolicy: 'Foreground' });
    const revision = await storage.currentRevision();
    const again = await del(store, 'same', {});
    assert.equal(again.deleted, false);
    assert.deepEqual(again.object.metadata.finalizers, ['example.com/f', 'foregroundDeletion']);
    assert.equal(await storage.currentRevision(), revision);
  });

  it('a dry run reports the marked object and writes nothing', async () => {
    const { storage, store } = setup();
    await store.create('default', configMap('dry'), ctx, write);
    const revision = await storage.currentRevision();
    const outcome = await store.delete('default', 'dry', ctx, { dryRun: true, propagationPolicy: 'Foreground' });
    assert.deepEqual(outcome.object.metadata.finalizers, ['foregroundDeletion']);
    assert.equal(await storage.currentRevision(), revision);
    assert.equal((await store.get('default', 'dry')).metadata.finalizers, undefined);
  });

  it('Events take no GC finalizer whatever the policy', async () => {
    const { store } = setup(coreEventDefinition);
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e1', namespace: 'default' },
      involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
      reason: 'R',
      message: 'm',
      type: 'Normal',
    };
    await store.create('default', event, ctx, write);
    assert.equal((await del(store, 'e1', { propagationPolicy: 'Foreground' })).deleted, true);
  });

  it('a Namespace turns Terminating on its first delete, taking the finalizer of the policy', async () => {
    const { store } = setup(namespaceDefinition);
    await store.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } }, ctx, write);
    const outcome = await store.delete('', 'ns1', ctx, { dryRun: false, orphanDependents: false });
    assert.equal(outcome.deleted, false);
    const stored = await store.get('', 'ns1');
    assert.deepEqual(stored.metadata.finalizers, ['foregroundDeletion']);
    assert.equal((stored as { status?: { phase?: string } }).status?.phase, 'Terminating');
    // While spec.finalizers remain, another delete changes nothing.
    await store.delete('', 'ns1', ctx, { dryRun: false, propagationPolicy: 'Orphan' });
    assert.deepEqual((await store.get('', 'ns1')).metadata.finalizers, ['foregroundDeletion']);
  });
});
