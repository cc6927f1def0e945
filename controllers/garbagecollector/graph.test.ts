/**
 * The dependency graph alone: what each informer event and verified absence sends to the queues.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OwnerReference } from '../../shared/api/types.ts';
import { DependencyGraph, referenceDiffs, type GraphSink, type ObjectIdentity } from './graph.ts';

function recording(): { sink: GraphSink; log: string[] } {
  const log: string[] = [];
  return {
    log,
    sink: {
      attemptToDelete: (uid) => log.push(`delete ${uid}`),
      attemptToOrphan: (uid) => log.push(`orphan ${uid}`),
      invalidNamespaceOwnerRef: (dep, owner) => log.push(`invalid ${dep.identity.uid} -> ${owner.uid}`),
    },
  };
}

const id = (uid: string, namespace = 'a', kind = 'ConfigMap'): ObjectIdentity => ({ apiVersion: 'v1', kind, name: uid, uid, namespace });
const ref = (uid: string, blockOwnerDeletion?: boolean): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid, blockOwnerDeletion });

describe('DependencyGraph', () => {
  it('an unseen owner becomes a virtual node to verify; its verified absence sends the dependents', () => {
    const { sink, log } = recording();
    const graph = new DependencyGraph(sink);
    graph.observe({ identity: id('dep'), ownerReferences: [ref('owner')], finalizers: [] });
    assert.deepEqual(log.splice(0), ['delete owner']);
    assert.equal(graph.get('owner')?.observed, false);
    graph.virtualDelete(id('owner'));
    assert.deepEqual(log.splice(0), ['delete dep']);
    assert.equal(graph.get('owner'), undefined);
    assert.equal(graph.isAbsent(id('owner')), true);
  });

  it('a dependent naming its owner by other coordinates keeps the virtual node, under those coordinates', () => {
    const { sink, log } = recording();
    const graph = new DependencyGraph(sink);
    graph.observe({ identity: id('d1'), ownerReferences: [ref('owner')], finalizers: [] });
    graph.observe({ identity: id('d2'), ownerReferences: [{ ...ref('owner'), name: 'other-name' }], finalizers: [] });
    log.splice(0);
    graph.virtualDelete(id('owner'));
    assert.deepEqual(log.splice(0), ['delete d1', 'delete owner']);
    assert.equal(graph.get('owner')?.identity.name, 'other-name');
  });

  it('foregroundDeletion marks the owner deleting its dependents and sends them; orphan sends the owner to attemptToOrphan', () => {
    const { sink, log } = recording();
    const graph = new DependencyGraph(sink);
    graph.observe({ identity: id('owner'), ownerReferences: [], finalizers: [] });
    graph.observe({ identity: id('dep'), ownerReferences: [ref('owner', true)], finalizers: [] });
    assert.deepEqual(log.splice(0), []);
    graph.observe({ identity: id('owner'), ownerReferences: [], finalizers: ['foregroundDeletion'], deletionTimestamp: 't' });
    assert.deepEqual(log.splice(0), ['delete dep', 'delete owner']);
    assert.equal(graph.get('owner')?.deletingDependents, true);
    // The blocking reference dropped: the owner is looked at again.
    graph.observe({ identity: id('dep'), ownerReferences: [], finalizers: [] });
    assert.deepEqual(log.splice(0), ['delete owner']);
    graph.observe({ identity: id('o2'), ownerReferences: [], finalizers: ['orphan'], deletionTimestamp: 't' });
    assert.deepEqual(log.splice(0), ['orphan o2']);
  });

  it('a namespaced owner seen in another namespace than its dependent is reported', () => {
    const { sink, log } = recording();
    const graph = new DependencyGraph(sink);
    graph.observe({ identity: id('owner', 'a'), ownerReferences: [], finalizers: [] });
    graph.observe({ identity: id('dep', 'b'), ownerReferences: [ref('owner')], finalizers: [] });
    assert.deepEqual(log, ['invalid dep -> owner', 'delete dep']);
  });

  it('referenceDiffs tells added, removed and changed references apart by UID', () => {
    const diff = referenceDiffs([ref('a'), ref('b', true)], [ref('b'), ref('c')]);
    assert.deepEqual(
      diff.added.map((r) => r.uid),
      ['c'],
    );
    assert.deepEqual(
      diff.removed.map((r) => r.uid),
      ['a'],
    );
    assert.deepEqual(
      diff.changed.map((c) => [c.before.blockOwnerDeletion, c.after.blockOwnerDeletion]),
      [[true, undefined]],
    );
  });
});
