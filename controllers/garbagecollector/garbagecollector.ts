/**
 * The garbage collector (upstream's pkg/controller/garbagecollector): deletes objects whose owners
 * are all gone, and carries out the propagation a DELETE asked for (apiserver/registry/
 * deletion-finalizers.ts):
 * - Background: the owner is removed at once; its dependents, now without a live owner, are deleted;
 * - Foreground (`foregroundDeletion` finalizer on the owner): the dependents are deleted first (those
 *   that have dependents of their own, in Foreground too); once no dependent whose reference has
 *   blockOwnerDeletion remains, the finalizer is removed and the owner goes;
 * - Orphan (`orphan` finalizer): the owner's reference is removed from each dependent, then the
 *   finalizer.
 *
 * Informers over every collectable kind (resources.ts, re-discovered every 30 s so that kinds added
 * later are covered) feed the dependency graph (graph.ts); the graph sends UIDs to two work queues,
 * attemptToDelete and attemptToOrphan, whose reconciles check the live objects with GETs before
 * acting: a reference whose owner is not found, or found with another UID, is dangling. Deletes carry
 * UID and resourceVersion preconditions, so an object recreated or re-owned meanwhile is left alone.
 *
 * Scope rules: a namespaced owner is looked up in its dependent's namespace; a namespaced dependent
 * may have a cluster-scoped owner; a cluster-scoped dependent naming a namespaced kind is invalid:
 * it is never deleted for that reference, and a Warning Event OwnerRefInvalidNamespace says so
 * whenever the owner is seen in a namespace (as for a namespaced owner named from another namespace).
 */
import { isStatusError } from '../../shared/api/errors.ts';
import { apiVersionOf, type KubeObject, type OwnerReference } from '../../shared/api/types.ts';
import { finalizerDeleteDependents, finalizerOrphanDependents } from '../../shared/validation/objectmeta.ts';
import type { ControllerManagerConfig } from '../config.ts';
import { resourcePath } from '../../shared/client/api-client.ts';
import { sleep } from '../../shared/client/clock.ts';
import { newQueue, runWorkers, type ControllerContext } from '../framework/controller.ts';
import { discoveryFailure, servedResources, type ServedResource } from '../framework/discovery.ts';
import type { RegisteredController } from '../registry.ts';
import { describeIdentity, DependencyGraph, identityOfReference, type GraphNode, type ObjectIdentity, type ObservedObject } from './graph.ts';
import { deleteOwnerReferencesPatch, finalizersPatch, unblockOwnerReferencesPatch } from './patches.ts';
import { isCollectable, ResourceMap } from './resources.ts';

/** How often the served kinds are discovered again (upstream's garbage collector resync period). */
export const discoveryPeriodMs = 30_000;
/** How long the first start waits for the informers' first lists before working anyway (upstream: 30 s). */
export const initialSyncTimeoutMs = 30_000;

type Propagation = 'Orphan' | 'Background' | 'Foreground';

/** The reference names a kind the API does not serve (yet): retried, as upstream's restMappingError. */
class RestMappingError extends Error {
  constructor(apiVersion: string, kind: string) {
    super(`unable to get REST mapping for ${kind}/${apiVersion}.`);
  }
}

/** A node that exists but was not yet seen by an informer: looked at again with back-off. */
class NotObservedError extends Error {}

/** Outcomes that end an attempt without a retry. */
type Verdict = 'done' | 'virtualDeleted' | 'invalidScope';

export function startGarbageCollector(ctx: ControllerContext<Pick<ControllerManagerConfig, 'concurrentGcSyncs'>>): void {
  const attemptToDelete = newQueue(ctx, 'garbage_collector_attempt_to_delete');
  const attemptToOrphan = newQueue(ctx, 'garbage_collector_attempt_to_orphan');
  const graph = new DependencyGraph({
    attemptToDelete: (uid) => attemptToDelete.add(uid),
    attemptToOrphan: (uid) => attemptToOrphan.add(uid),
    invalidNamespaceOwnerRef: (dependent, owner) => {
      const invalid = identityOfReference(owner, dependent.identity.namespace);
      ctx.events.event(
        objectFor(dependent.identity),
        'Warning',
        'OwnerRefInvalidNamespace',
        `ownerRef ${describeIdentity(invalid)} does not exist in namespace ${JSON.stringify(dependent.identity.namespace)}`,
      );
    },
  });
  const resources = new ResourceMap();
  const watched = new Set<string>();

  /**
   * The path of the object `identity` names; undefined for a namespaced kind without a namespace,
   * which only a cluster-scoped dependent names an owner by (invalid: never looked up).
   */
  const pathOf = (identity: ObjectIdentity): string | undefined => {
    const resource = resources.resolve(identity.apiVersion, identity.kind);
    if (!resource) throw new RestMappingError(identity.apiVersion, identity.kind);
    if (resource.namespaced && identity.namespace === '') return undefined;
    return resourcePath(resource, identity.namespace, identity.name);
  };

  /** Starts watching the collectable kinds not yet watched, adding their first syncs to `syncs`. */
  const discover = async (syncs: Promise<void>[] = []): Promise<void> => {
    const discovery = await servedResources(ctx.api);
    // As upstream, kinds of groups that could not be discovered are left for the next period.
    const failure = discoveryFailure(discovery);
    if (failure) ctx.logger.warn({ failure }, 'garbage collector discovery incomplete');
    const served = discovery.resources;
    resources.update(served);
    for (const resource of served.filter(isCollectable)) {
      const key = `${resource.group}/${resource.resource}`;
      if (watched.has(key)) continue;
      watched.add(key);
      const informer = ctx.informers.informer<KubeObject>(resource);
      const observe = (obj: KubeObject): void => {
        const observed = observedObject(resource, obj);
        if (observed) graph.observe(observed);
      };
      informer.on({
        add: observe,
        update: observe,
        delete: (obj) => {
          const observed = observedObject(resource, obj);
          if (observed) graph.removeObserved(observed.identity);
        },
      });
      syncs.push(informer.synced());
    }
  };

  const deleteObject = async (identity: ObjectIdentity, latest: KubeObject, policy: Propagation): Promise<void> => {
    const path = pathOf(identity);
    if (path === undefined) return;
    const resourceVersion = latest.metadata.resourceVersion;
    const options = (withVersion: boolean): Record<string, unknown> => ({
      preconditions: { uid: identity.uid, ...(withVersion && resourceVersion ? { resourceVersion } : {}) },
      propagationPolicy: policy,
    });
    try {
      await ctx.api.delete(path, options(true));
    } catch (err) {
      if (!isStatusError(err, 'Conflict') || !resourceVersion) throw err;
      // Only the resourceVersion moved and the owners are the same: delete without it, so that
      // frequent unrelated updates do not starve the collector.
      let live: KubeObject;
      try {
        live = await ctx.api.get<KubeObject>(path);
      } catch (getErr) {
        if (isStatusError(getErr, 'NotFound')) return;
        throw err;
      }
      const sameOwners = JSON.stringify(live.metadata.ownerReferences ?? []) === JSON.stringify(latest.metadata.ownerReferences ?? []);
      if (live.metadata.uid !== identity.uid || live.metadata.resourceVersion === resourceVersion || !sameOwners) throw err;
      await ctx.api.delete(path, options(false));
    }
  };

  /** Removes `finalizer` from the live object; gone or already without it counts as done. */
  const removeFinalizer = async (identity: ObjectIdentity, finalizer: string): Promise<void> => {
    const path = pathOf(identity);
    if (path === undefined) return;
    let live: KubeObject;
    try {
      live = await ctx.api.get<KubeObject>(path);
    } catch (err) {
      if (isStatusError(err, 'NotFound')) return;
      throw new Error(
        `cannot finalize owner ${describeIdentity(identity)}, because cannot get it: ${err instanceof Error ? err.message : String(err)}. The garbage collector will retry later`,
      );
    }
    const finalizers = live.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return;
    await ctx.api.patch(
      path,
      'merge',
      finalizersPatch(
        live.metadata.resourceVersion ?? '',
        finalizers.filter((f) => f !== finalizer),
      ),
    );
  };

  /** A reference whose owner is not found, or found with another UID, is dangling; otherwise the owner as it is. */
  const isDangling = async (ref: OwnerReference, item: GraphNode): Promise<{ dangling: true } | { dangling: false; owner: KubeObject } | 'invalidScope'> => {
    const owner = identityOfReference(ref, item.identity.namespace);
    if (graph.isAbsent({ ...owner, namespace: '' }) || graph.isAbsent(owner)) return { dangling: true };
    const resource = resources.resolve(ref.apiVersion, ref.kind);
    if (!resource) throw new RestMappingError(ref.apiVersion, ref.kind);
    if (item.identity.namespace === '' && resource.namespaced) return 'invalidScope';
    const absent = resource.namespaced ? owner : { ...owner, namespace: '' };
    try {
      const live = await ctx.api.get<KubeObject>(resourcePath(resource, item.identity.namespace, ref.name));
      if (live.metadata.uid === ref.uid) return { dangling: false, owner: live };
    } catch (err) {
      if (!isStatusError(err, 'NotFound')) throw err;
    }
    graph.markAbsent(absent);
    return { dangling: true };
  };

  const processDeletingDependents = async (item: GraphNode): Promise<void> => {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      ctx.logger.debug({ item: describeIdentity(item.identity) }, 'removing the foregroundDeletion finalizer');
      await removeFinalizer(item.identity, finalizerDeleteDependents);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) attemptToDelete.add(dep.identity.uid);
  };

  const attemptToDeleteItem = async (item: GraphNode): Promise<Verdict> => {
    // Being deleted is a one-way trip: its dependents are looked at once it is gone.
    if (item.beingDeleted && !item.deletingDependents) return 'done';
    const path = pathOf(item.identity);
    if (path === undefined) return 'invalidScope';
    let latest: KubeObject;
    try {
      latest = await ctx.api.get<KubeObject>(path);
    } catch (err) {
      if (!isStatusError(err, 'NotFound')) throw err;
      graph.virtualDelete(item.identity);
      return 'virtualDeleted';
    }
    if (latest.metadata.uid !== item.identity.uid) {
      graph.virtualDelete(item.identity);
      return 'virtualDeleted';
    }
    if (item.deletingDependents) {
      await processDeletingDependents(item);
      return 'done';
    }
    const references = latest.metadata.ownerReferences ?? [];
    if (references.length === 0) return 'done';
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of references) {
      const verdict = await isDangling(ref, item);
      if (verdict === 'invalidScope') {
        ctx.logger.info({ item: describeIdentity(item.identity), owner: ref }, 'item is cluster-scoped, but refers to a namespaced owner');
        return 'invalidScope';
      }
      if (verdict.dangling) dangling.push(ref);
      else if (verdict.owner.metadata.deletionTimestamp && (verdict.owner.metadata.finalizers ?? []).includes(finalizerDeleteDependents)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return 'done';
      // References to owners waiting for their dependents go too, or those owners would wait forever.
      const uids = [...dangling, ...waiting].map((ref) => ref.uid);
      await ctx.api.patch(path, 'strategic', deleteOwnerReferencesPatch(item.identity.uid, uids));
      return 'done';
    }
    if (waiting.length > 0 && item.dependents.size > 0) {
      if ([...item.dependents].some((dep) => dep.deletingDependents)) {
        // A possible cycle of foreground deletions: this item stops blocking its owners first.
        await ctx.api.patch(path, 'strategic', unblockOwnerReferencesPatch(item.identity.uid, item.owners));
      }
      return deleteOrVirtual(item, latest, 'Foreground');
    }
    const finalizers = latest.metadata.finalizers ?? [];
    const policy: Propagation = finalizers.includes(finalizerOrphanDependents)
      ? 'Orphan'
      : finalizers.includes(finalizerDeleteDependents)
        ? 'Foreground'
        : 'Background';
    ctx.logger.info({ item: describeIdentity(item.identity), propagationPolicy: policy }, 'deleting item');
    return deleteOrVirtual(item, latest, policy);
  };

  const deleteOrVirtual = async (item: GraphNode, latest: KubeObject, policy: Propagation): Promise<Verdict> => {
    try {
      await deleteObject(item.identity, latest, policy);
    } catch (err) {
      if (!isStatusError(err, 'NotFound')) throw err;
      graph.virtualDelete(item.identity);
      return 'virtualDeleted';
    }
    return 'done';
  };

  const reconcileDelete = async (uid: string): Promise<void> => {
    const item = graph.get(uid);
    if (!item) return;
    const verdict = await attemptToDeleteItem(item);
    // A virtual node that exists is looked at again until an informer sees it (upstream issue 56121).
    if (verdict === 'done' && !item.observed && graph.get(uid) === item)
      throw new NotObservedError(`item ${describeIdentity(item.identity)} hasn't been observed via informer yet`);
  };

  const reconcileOrphan = async (uid: string): Promise<void> => {
    const owner = graph.get(uid);
    if (!owner) return;
    const failures: string[] = [];
    await Promise.all(
      [...owner.dependents].map(async (dep) => {
        try {
          const path = pathOf(dep.identity);
          if (path === undefined) return;
          await ctx.api.patch(path, 'strategic', deleteOwnerReferencesPatch(dep.identity.uid, [owner.identity.uid]));
        } catch (err) {
          if (!isStatusError(err, 'NotFound'))
            failures.push(`orphaning ${describeIdentity(dep.identity)} failed, ${err instanceof Error ? err.message : String(err)}`);
        }
      }),
    );
    if (failures.length > 0) throw new Error(`failed to orphan dependents of owner ${describeIdentity(owner.identity)}, got errors: ${failures.join(', ')}`);
    await removeFinalizer(owner.identity, finalizerOrphanDependents);
  };

  const run = async (): Promise<void> => {
    const syncs: Promise<void>[] = [];
    try {
      await discover(syncs);
    } catch (err) {
      ctx.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'garbage collector discovery failed; retrying at the next period');
    }
    await Promise.race([Promise.all(syncs), sleep(ctx.clock, initialSyncTimeoutMs, ctx.signal)]);
    if (ctx.signal.aborted) return;
    const workers = ctx.config.concurrentGcSyncs;
    void runWorkers(attemptToDelete, workers, reconcileDelete, ctx.logger);
    void runWorkers(attemptToOrphan, workers, reconcileOrphan, ctx.logger);
    // Re-discovery: the one periodic loop, so that kinds served later are collected too.
    for (;;) {
      await sleep(ctx.clock, discoveryPeriodMs, ctx.signal);
      if (ctx.signal.aborted) return;
      try {
        await discover();
      } catch (err) {
        ctx.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'garbage collector discovery failed; retrying at the next period');
      }
    }
  };
  void run();
}

/** What the graph needs of `obj`, as served by `resource`; undefined for an object without UID or name. */
function observedObject(resource: ServedResource, obj: KubeObject): ObservedObject | undefined {
  const { uid, name } = obj.metadata;
  if (!uid || !name) return undefined;
  return {
    identity: { apiVersion: apiVersionOf(resource), kind: resource.kind, name, uid, namespace: resource.namespaced ? (obj.metadata.namespace ?? '') : '' },
    ownerReferences: (obj.metadata.ownerReferences ?? []).filter((ref) => typeof ref.uid === 'string' && ref.uid !== ''),
    ...(obj.metadata.deletionTimestamp ? { deletionTimestamp: obj.metadata.deletionTimestamp } : {}),
    finalizers: obj.metadata.finalizers ?? [],
  };
}

/** The object an Event about `identity` names. */
function objectFor(identity: ObjectIdentity): KubeObject {
  return {
    apiVersion: identity.apiVersion,
    kind: identity.kind,
    metadata: { name: identity.name, uid: identity.uid, ...(identity.namespace ? { namespace: identity.namespace } : {}) },
  };
}

export const garbageCollectorController: RegisteredController = {
  name: 'garbage-collector-controller',
  aliases: ['garbagecollector'],
  enabledByDefault: true,
  serviceAccount: 'generic-garbage-collector',
  start: (ctx) => startGarbageCollector(ctx),
};
