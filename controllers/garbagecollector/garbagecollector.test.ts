/**
 * The garbage collector in process: a fake API answering discovery and live GETs from a map of
 * objects, informers filled by hand, and the exact writes it makes for each propagation mode, for
 * dangling owners, for owners of another scope, for kinds it does not know and for kinds served later.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject, OwnerReference } from '../../shared/api/types.ts';
import { settle, testContext, type TestContext } from '../framework/testing.ts';
import { discoveryPeriodMs, startGarbageCollector } from './garbagecollector.ts';

type Config = { concurrentGcSyncs: number };

interface Kind {
  resource: string;
  kind: string;
  namespaced: boolean;
  group: string;
}

const configMaps: Kind = { resource: 'configmaps', kind: 'ConfigMap', namespaced: true, group: '' };
const secrets: Kind = { resource: 'secrets', kind: 'Secret', namespaced: true, group: '' };
const namespaces: Kind = { resource: 'namespaces', kind: 'Namespace', namespaced: false, group: '' };
const events: Kind = { resource: 'events', kind: 'Event', namespaced: true, group: '' };
const clusterRoles: Kind = { resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, group: 'rbac.authorization.k8s.io' };

const apiVersion = (kind: Kind): string => (kind.group ? `${kind.group}/v1` : 'v1');

function pathOf(kind: Kind, name: string, namespace = ''): string {
  const base = kind.group ? `/apis/${kind.group}/v1` : '/api/v1';
  return `${base}${kind.namespaced ? `/namespaces/${namespace}` : ''}/${kind.resource}/${name}`;
}

function object(kind: Kind, name: string, uid: string, namespace: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: apiVersion(kind),
    kind: kind.kind,
    metadata: { name, uid, resourceVersion: '10', ...(kind.namespaced ? { namespace } : {}), ...extra },
  };
}

function ref(kind: Kind, name: string, uid: string, blockOwnerDeletion?: boolean): OwnerReference {
  return { apiVersion: apiVersion(kind), kind: kind.kind, name, uid, ...(blockOwnerDeletion !== undefined ? { blockOwnerDeletion } : {}) };
}

/** A fake cluster: the live objects the API answers GETs from, the kinds discovery serves, and the informers. */
class Cluster {
  readonly ctx: TestContext<Config> = testContext<Config>({ concurrentGcSyncs: 2 });
  private readonly live = new Map<string, { kind: Kind; obj: KubeObject }>();

  constructor(public served: Kind[] = [configMaps, secrets, namespaces, events]) {
    this.ctx.api.react((action) => {
      if (action.verb === 'delete') {
        // As the API server: Foreground and Orphan mark the object with their finalizer, Background
        // removes it; the watch event follows at once.
        const found = this.live.get(action.path);
        const policy = (action.body as { propagationPolicy?: string } | undefined)?.propagationPolicy;
        if (found && (policy === 'Foreground' || policy === 'Orphan')) {
          const finalizer = policy === 'Foreground' ? 'foregroundDeletion' : 'orphan';
          const meta = found.obj.metadata;
          this.add(found.kind, {
            ...found.obj,
            metadata: { ...meta, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [...(meta.finalizers ?? []), finalizer] },
          });
        } else if (found) {
          this.remove(found.kind, found.obj);
        }
        return undefined;
      }
      if (action.verb === 'patch' && action.patchType === 'merge') {
        // The finalizer patch: the last finalizer of a deleted object removes it.
        const found = this.live.get(action.path);
        const finalizers = (action.body as { metadata: { finalizers: string[] | null } }).metadata.finalizers ?? [];
        if (found && finalizers.length === 0 && found.obj.metadata.deletionTimestamp) this.remove(found.kind, found.obj);
        else if (found) this.add(found.kind, { ...found.obj, metadata: { ...found.obj.metadata, finalizers } });
        return undefined;
      }
      if (action.verb !== 'get') return undefined;
      if (action.path === '/apis') {
        const groups = [...new Set(this.served.map((k) => k.group).filter((g) => g))];
        return { kind: 'APIGroupList', metadata: {}, groups: groups.map((name) => ({ name, preferredVersion: { version: 'v1' } })) };
      }
      const list = this.served.filter((k) => action.path === (k.group ? `/apis/${k.group}/v1` : '/api/v1'));
      if (list.length > 0 || action.path === '/api/v1') {
        const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
        return { kind: 'APIResourceList', metadata: {}, resources: list.map((k) => ({ name: k.resource, namespaced: k.namespaced, kind: k.kind, verbs })) };
      }
      return this.live.get(action.path)?.obj;
    });
  }

  /** An object that exists: live for GETs, and in its informer. */
  add(kind: Kind, obj: KubeObject): void {
    this.live.set(pathOf(kind, obj.metadata.name ?? '', obj.metadata.namespace), { kind, obj });
    this.ctx.informers.of<KubeObject>(kind.resource).set(obj);
  }

  /** An object that exists but no informer has seen. */
  addUnseen(kind: Kind, obj: KubeObject): void {
    this.live.set(pathOf(kind, obj.metadata.name ?? '', obj.metadata.namespace), { kind, obj });
  }

  remove(kind: Kind, obj: KubeObject): void {
    this.live.delete(pathOf(kind, obj.metadata.name ?? '', obj.metadata.namespace));
    this.ctx.informers
      .of<KubeObject>(kind.resource)
      .remove(obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name ?? ''}` : (obj.metadata.name ?? ''));
  }

  start(): void {
    startGarbageCollector(this.ctx);
  }

  /** The calls but discovery's, as `VERB path`. */
  calls(): string[] {
    return this.ctx.api.actions.filter((a) => !/^\/apis?(\/[^/]+\/v1|\/v1)?$/.test(a.path)).map((a) => `${a.verb.toUpperCase()} ${a.path}`);
  }

  bodyOf(verb: string, path: string): unknown {
    return this.ctx.api.actions.find((a) => a.verb === verb && a.path === path)?.body;
  }
}

describe('garbage collector', () => {
  it('deletes a dependent whose owner never existed (Background), after verifying the owner with a live GET', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    cluster.add(secrets, object(secrets, 's1', 'uid-s1', 'a', { ownerReferences: [ref(configMaps, 'gone', 'uid-gone')] }));
    cluster.start();
    await settle();
    assert.deepEqual(cluster.calls(), [`GET ${pathOf(configMaps, 'gone', 'a')}`, `GET ${pathOf(secrets, 's1', 'a')}`, `DELETE ${pathOf(secrets, 's1', 'a')}`]);
    assert.deepEqual(cluster.bodyOf('delete', pathOf(secrets, 's1', 'a')), {
      preconditions: { uid: 'uid-s1', resourceVersion: '10' },
      propagationPolicy: 'Background',
    });
  });

  it('leaves a dependent of a live owner alone, and deletes it once the owner is deleted', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    const owner = object(configMaps, 'owner', 'uid-cm', 'a');
    cluster.add(configMaps, owner);
    cluster.add(secrets, object(secrets, 's1', 'uid-s1', 'a', { ownerReferences: [ref(configMaps, 'owner', 'uid-cm')] }));
    cluster.start();
    await settle();
    assert.deepEqual(cluster.calls(), []);
    cluster.remove(configMaps, owner);
    await settle();
    // The owner's removal is known from the graph: no GET of it is needed.
    assert.deepEqual(cluster.calls(), [`GET ${pathOf(secrets, 's1', 'a')}`, `DELETE ${pathOf(secrets, 's1', 'a')}`]);
  });

  it('a reference whose UID does not match the live owner is dangling', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    cluster.add(secrets, object(secrets, 's1', 'uid-s1', 'a', { ownerReferences: [ref(configMaps, 'owner', 'uid-old')] }));
    cluster.addUnseen(configMaps, object(configMaps, 'owner', 'uid-new', 'a'));
    cluster.start();
    await settle();
    assert.deepEqual(cluster.calls(), [`GET ${pathOf(configMaps, 'owner', 'a')}`, `GET ${pathOf(secrets, 's1', 'a')}`, `DELETE ${pathOf(secrets, 's1', 'a')}`]);
  });

  it('keeps a dependent with one live owner, removing only its dangling reference', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    cluster.add(configMaps, object(configMaps, 'alive', 'uid-alive', 'a'));
    cluster.add(
      secrets,
      object(secrets, 's1', 'uid-s1', 'a', { ownerReferences: [ref(configMaps, 'alive', 'uid-alive'), ref(configMaps, 'gone', 'uid-gone')] }),
    );
    cluster.start();
    await settle();
    const secret = pathOf(secrets, 's1', 'a');
    assert.deepEqual(cluster.calls(), [
      `GET ${pathOf(configMaps, 'gone', 'a')}`,
      `GET ${secret}`,
      `GET ${pathOf(configMaps, 'alive', 'a')}`,
      `PATCH ${secret}`,
    ]);
    assert.deepEqual(cluster.bodyOf('patch', secret), { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'uid-gone' }], uid: 'uid-s1' } });
  });

  it('Foreground: deletes the dependents, then removes the finalizer once no blocking dependent is left', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    const owner = object(configMaps, 'owner', 'uid-cm', 'a');
    const blocking = object(secrets, 'blocking', 'uid-b', 'a', { ownerReferences: [ref(configMaps, 'owner', 'uid-cm', true)] });
    const free = object(secrets, 'free', 'uid-f', 'a', { ownerReferences: [ref(configMaps, 'owner', 'uid-cm')] });
    cluster.add(configMaps, owner);
    cluster.add(secrets, blocking);
    cluster.add(secrets, free);
    cluster.start();
    await settle();
    assert.deepEqual(cluster.calls(), []);
    // kubectl delete --cascade=foreground: the API server marks the owner.
    cluster.add(
      configMaps,
      object(configMaps, 'owner', 'uid-cm', 'a', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'], resourceVersion: '20' }),
    );
    await settle();
    const writes = cluster.ctx.api.writes();
    assert.deepEqual(writes.slice(0, 2).sort(), [`DELETE ${pathOf(secrets, 'blocking', 'a')}`, `DELETE ${pathOf(secrets, 'free', 'a')}`]);
    assert.equal((cluster.bodyOf('delete', pathOf(secrets, 'free', 'a')) as { propagationPolicy: string }).propagationPolicy, 'Background');
    // Once the blocking dependent is gone, the finalizer goes.
    assert.deepEqual(writes.slice(2), [`PATCH ${pathOf(configMaps, 'owner', 'a')}`]);
    const patch = cluster.ctx.api.actions.at(-1);
    assert.equal(patch?.patchType, 'merge');
    assert.deepEqual(patch?.body, { metadata: { resourceVersion: '20', finalizers: null } });
  });

  it('Foreground: the owner waits while a blocking dependent remains', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    const stuck = object(secrets, 'stuck', 'uid-s', 'a', { ownerReferences: [ref(configMaps, 'owner', 'uid-cm', true)], finalizers: ['example.com/hold'] });
    cluster.add(configMaps, object(configMaps, 'owner', 'uid-cm', 'a'));
    cluster.add(secrets, stuck);
    cluster.start();
    await settle();
    // The dependent is being deleted but held by a finalizer of its own: it stays, and so does the owner's finalizer.
    cluster.add(secrets, { ...stuck, metadata: { ...stuck.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    cluster.add(configMaps, object(configMaps, 'owner', 'uid-cm', 'a', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] }));
    await settle();
    assert.deepEqual(cluster.ctx.api.writes(), []);
    cluster.remove(secrets, stuck);
    await settle();
    assert.deepEqual(cluster.ctx.api.writes(), [`PATCH ${pathOf(configMaps, 'owner', 'a')}`]);
  });

  it('Foreground: a dependent that has dependents of its own is deleted in Foreground too', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    cluster.add(configMaps, object(configMaps, 'top', 'uid-top', 'a', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] }));
    cluster.add(configMaps, object(configMaps, 'middle', 'uid-mid', 'a', { ownerReferences: [ref(configMaps, 'top', 'uid-top', true)] }));
    cluster.add(secrets, object(secrets, 'leaf', 'uid-leaf', 'a', { ownerReferences: [ref(configMaps, 'middle', 'uid-mid', true)] }));
    cluster.start();
    await settle();
    const middle = pathOf(configMaps, 'middle', 'a');
    // middle is marked, its own dependent goes first, then middle's finalizer, then top's.
    assert.deepEqual(cluster.ctx.api.writes(), [
      `DELETE ${middle}`,
      `DELETE ${pathOf(secrets, 'leaf', 'a')}`,
      `PATCH ${middle}`,
      `PATCH ${pathOf(configMaps, 'top', 'a')}`,
    ]);
    assert.equal((cluster.bodyOf('delete', middle) as { propagationPolicy: string }).propagationPolicy, 'Foreground');
  });

  it('Orphan: removes the owner from each dependent, then the orphan finalizer', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    cluster.add(secrets, object(secrets, 's1', 'uid-s1', 'a', { ownerReferences: [ref(configMaps, 'owner', 'uid-cm')] }));
    cluster.add(
      configMaps,
      object(configMaps, 'owner', 'uid-cm', 'a', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['orphan', 'example.com/keep'] }),
    );
    cluster.start();
    await settle();
    const owner = pathOf(configMaps, 'owner', 'a');
    assert.deepEqual(cluster.ctx.api.writes(), [`PATCH ${pathOf(secrets, 's1', 'a')}`, `PATCH ${owner}`]);
    assert.deepEqual(cluster.bodyOf('patch', pathOf(secrets, 's1', 'a')), {
      metadata: { ownerReferences: [{ $patch: 'delete', uid: 'uid-cm' }], uid: 'uid-s1' },
    });
    assert.deepEqual(cluster.bodyOf('patch', owner), { metadata: { resourceVersion: '10', finalizers: ['example.com/keep'] } });
  });

  it('a namespaced dependent may have a cluster-scoped owner', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    const ns = object(namespaces, 'owner-ns', 'uid-ns', '');
    cluster.add(namespaces, ns);
    cluster.add(configMaps, object(configMaps, 'c1', 'uid-c1', 'a', { ownerReferences: [ref(namespaces, 'owner-ns', 'uid-ns')] }));
    cluster.start();
    await settle();
    // Depending on which informer lists first, the owner may be verified once with a GET; it is never acted on.
    assert.deepEqual(cluster.ctx.api.writes(), []);
    cluster.remove(namespaces, ns);
    await settle();
    assert.deepEqual(cluster.ctx.api.writes(), [`DELETE ${pathOf(configMaps, 'c1', 'a')}`]);
  });

  it('a namespaced owner in another namespace: Warning OwnerRefInvalidNamespace, and the dependent is collected', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    cluster.add(configMaps, object(configMaps, 'owner', 'uid-cm', 'a'));
    cluster.add(secrets, object(secrets, 's1', 'uid-s1', 'b', { ownerReferences: [ref(configMaps, 'owner', 'uid-cm')] }));
    cluster.start();
    await settle();
    assert.deepEqual(cluster.ctx.events.events, [
      {
        key: 'b/s1',
        type: 'Warning',
        reason: 'OwnerRefInvalidNamespace',
        message: 'ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: uid-cm] does not exist in namespace "b"',
      },
    ]);
    assert.deepEqual(cluster.ctx.api.writes(), [`DELETE ${pathOf(secrets, 's1', 'b')}`]);
  });

  it('a cluster-scoped dependent naming a namespaced owner: Warning Event, never deleted for it', async (t) => {
    const cluster = new Cluster([configMaps, namespaces, clusterRoles]);
    t.after(() => cluster.ctx.stop());
    cluster.add(clusterRoles, object(clusterRoles, 'role', 'uid-role', '', { ownerReferences: [ref(configMaps, 'owner', 'uid-cm')] }));
    cluster.start();
    await settle();
    // The owner cannot be looked up without a namespace: nothing is deleted, nothing retried.
    assert.deepEqual(cluster.calls(), []);
    cluster.add(configMaps, object(configMaps, 'owner', 'uid-cm', 'a'));
    await settle();
    assert.deepEqual(
      cluster.ctx.events.events.map((e) => [e.key, e.reason, e.message]),
      [['role', 'OwnerRefInvalidNamespace', 'ownerRef [v1/ConfigMap, namespace: , name: owner, uid: uid-cm] does not exist in namespace ""']],
    );
    assert.deepEqual(cluster.ctx.api.writes(), []);
    assert.equal(cluster.ctx.clock.pending > 0, true, 'the re-discovery timer');
  });

  it('an owner of a kind the API does not serve is retried with back-off, never acted on', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    cluster.add(
      secrets,
      object(secrets, 's1', 'uid-s1', 'a', { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'uid-w' }] }),
    );
    cluster.start();
    await settle();
    assert.deepEqual(cluster.calls(), []);
    cluster.ctx.clock.step(1000);
    await settle();
    assert.deepEqual(cluster.calls(), []);
  });

  it('kinds served later are watched after the next discovery', async (t) => {
    const cluster = new Cluster([configMaps]);
    t.after(() => cluster.ctx.stop());
    cluster.start();
    await settle();
    cluster.served = [configMaps, clusterRoles];
    cluster.ctx.clock.step(discoveryPeriodMs);
    await settle();
    cluster.add(clusterRoles, object(clusterRoles, 'orphaned', 'uid-r', '', { ownerReferences: [ref(clusterRoles, 'gone', 'uid-gone')] }));
    await settle();
    assert.deepEqual(cluster.ctx.api.writes(), [`DELETE ${pathOf(clusterRoles, 'orphaned')}`]);
  });

  it('does not watch Events', async (t) => {
    const cluster = new Cluster();
    t.after(() => cluster.ctx.stop());
    cluster.start();
    await settle();
    cluster.add(events, object(events, 'e1', 'uid-e1', 'a', { ownerReferences: [ref(configMaps, 'gone', 'uid-gone')] }));
    await settle();
    assert.deepEqual(cluster.calls(), []);
  });
});
