/**
 * Empties a terminating namespace and releases it (upstream's namespacedResourcesDeleter,
 * pkg/controller/namespace/deletion/namespaced_resources_deleter.go), against the live API:
 *
 * 1. GET the namespace (gone, or not being deleted: nothing to do); make sure its phase is Terminating;
 * 2. unless spec.finalizers is already empty, delete every namespaced kind the API serves
 *    (discovered each pass, so that kinds added later are covered): deletecollection where the kind
 *    allows it, else list and delete each object, always with propagationPolicy Background (the
 *    namespace controller wants no orphan finalizer on what it deletes); then list what remains;
 * 3. write the status conditions when one changed;
 * 4. content left: objects with finalizers are expected to take a while (an estimate of 15 s),
 *    objects without are an error; otherwise remove the `kubernetes` finalizer through
 *    PUT namespaces/<name>/finalize, after which the API server removes the namespace.
 */
import { isStatusError } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { formatTimeOf } from '../../shared/go/time.ts';
import { kubernetesFinalizer, namespacePhases, type Namespace } from '../../apiserver/registry/core/namespace.ts';
import { resourcePath, type ApiClient, type ResourceRef } from '../../shared/client/api-client.ts';
import type { Clock } from '../../shared/client/clock.ts';
import { discoveryFailure, servedResources, type ServedResource } from '../framework/discovery.ts';
import { NamespaceConditionUpdater, type ContentTotals } from './conditions.ts';

/** How long content with finalizers is given before the next look (upstream's finalizerEstimateSeconds). */
export const finalizerEstimateSeconds = 15;

const namespacesResource: ResourceRef = { group: '', version: 'v1', resource: 'namespaces', namespaced: false };

/** Content remains that should go by itself: look again in about `estimateSeconds`. */
export class ResourcesRemainingError extends Error {
  constructor(readonly estimateSeconds: number) {
    super(`some content remains in the namespace, estimate ${estimateSeconds} seconds before it is removed`);
  }
}

interface ResourceOutcome {
  remaining: number;
  finalizers: Map<string, number>;
  estimateSeconds: number;
}

export class NamespacedResourcesDeleter {
  constructor(
    private readonly api: ApiClient,
    private readonly clock: Clock,
  ) {}

  /** One pass over namespace `name`; throws ResourcesRemainingError while content remains, other errors to retry. */
  async delete(name: string): Promise<void> {
    const path = resourcePath(namespacesResource, undefined, name);
    let namespace: Namespace;
    try {
      namespace = await this.api.get<Namespace>(path);
      if (!namespace.metadata.deletionTimestamp) return;
      if (namespace.status?.phase !== namespacePhases.terminating) {
        namespace = await this.api.update<Namespace>(`${path}/status`, { ...namespace, status: { ...namespace.status, phase: namespacePhases.terminating } });
      }
    } catch (err) {
      if (isStatusError(err, 'NotFound')) return;
      throw err;
    }
    if ((namespace.spec?.finalizers ?? []).length === 0) return;
    const estimate = await this.deleteAllContent(namespace);
    if (estimate > 0) throw new ResourcesRemainingError(estimate);
    const finalizers = [...new Set((namespace.spec?.finalizers ?? []).filter((f) => f !== kubernetesFinalizer))].sort();
    try {
      await this.api.update(`${path}/finalize`, { ...namespace, spec: { ...namespace.spec, finalizers } });
    } catch (err) {
      // Another controller sharing the finalizer may have finished first.
      if (!isStatusError(err, 'NotFound')) throw err;
    }
  }

  /** Deletes what the namespace holds; returns the seconds to wait for what remains, or throws what failed. */
  private async deleteAllContent(namespace: Namespace): Promise<number> {
    const name = namespace.metadata.name ?? '';
    const conditions = new NamespaceConditionUpdater();
    const errors: string[] = [];
    let resources: ServedResource[] = [];
    try {
      // As upstream, an incomplete discovery is reported, and what was discovered is emptied anyway.
      const discovery = await servedResources(this.api);
      resources = discovery.resources.filter((r) => r.namespaced && r.verbs.includes('delete'));
      const failure = discoveryFailure(discovery);
      if (failure) {
        errors.push(failure);
        conditions.discoveryFailed(failure);
      }
    } catch (err) {
      const message = errorMessage(err);
      errors.push(message);
      conditions.discoveryFailed(message);
    }
    const totals: ContentTotals = { remainingByResource: new Map(), remainingByFinalizer: new Map() };
    let estimate = 0;
    for (const resource of resources) {
      try {
        const outcome = await this.deleteAllContentFor(resource, name);
        estimate = Math.max(estimate, outcome.estimateSeconds);
        if (outcome.remaining > 0) {
          totals.remainingByResource.set(`${resource.resource}.${resource.group}`, outcome.remaining);
          for (const [finalizer, n] of outcome.finalizers) totals.remainingByFinalizer.set(finalizer, (totals.remainingByFinalizer.get(finalizer) ?? 0) + n);
        }
      } catch (err) {
        const message = err instanceof RemainingWithoutFinalizers ? err.message : errorMessage(err);
        if (err instanceof RemainingWithoutFinalizers) totals.remainingByResource.set(`${resource.resource}.${resource.group}`, err.remaining);
        errors.push(message);
        conditions.deleteContentFailed(message);
      }
    }
    conditions.contentTotals(totals);
    const { conditions: next, changed } = conditions.update(namespace.status?.conditions ?? [], formatTimeOf(new Date(this.clock.now())));
    if (changed) {
      try {
        const updated = await this.api.update<Namespace>(resourcePath(namespacesResource, undefined, name, 'status'), {
          ...namespace,
          status: { ...namespace.status, conditions: next },
        });
        namespace.metadata.resourceVersion = updated.metadata.resourceVersion;
      } catch {
        // Best effort, as upstream: the next pass writes them again.
      }
    }
    if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
    return estimate;
  }

  private async deleteAllContentFor(resource: ServedResource, namespace: string): Promise<ResourceOutcome> {
    const collection = resourcePath(resource, namespace);
    const background = { propagationPolicy: 'Background' };
    let deletedAsCollection = false;
    if (resource.verbs.includes('deletecollection')) {
      try {
        await this.api.delete(collection, background);
        deletedAsCollection = true;
      } catch (err) {
        if (!isStatusError(err, 'MethodNotAllowed') && !isStatusError(err, 'NotFound')) throw err;
      }
    }
    if (!deletedAsCollection && resource.verbs.includes('list')) {
      for (const item of await this.list(collection)) {
        try {
          await this.api.delete(resourcePath(resource, namespace, item.metadata.name ?? ''), background);
        } catch (err) {
          if (!isStatusError(err, 'NotFound') && !isStatusError(err, 'MethodNotAllowed')) throw err;
        }
      }
    }
    if (!resource.verbs.includes('list')) return { remaining: 0, finalizers: new Map(), estimateSeconds: 0 };
    const remaining = await this.list(collection);
    if (remaining.length === 0) return { remaining: 0, finalizers: new Map(), estimateSeconds: 0 };
    const finalizers = new Map<string, number>();
    for (const item of remaining) for (const f of item.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
    // Finalizers take their time; anything else should have gone.
    if (finalizers.size > 0) return { remaining: remaining.length, finalizers, estimateSeconds: finalizerEstimateSeconds };
    throw new RemainingWithoutFinalizers(namespace, resource, remaining.length);
  }

  private async list(path: string): Promise<KubeObject[]> {
    try {
      return (await this.api.list<KubeObject>(path)).items;
    } catch (err) {
      if (isStatusError(err, 'MethodNotAllowed') || isStatusError(err, 'NotFound')) return [];
      throw err;
    }
  }
}

/** Objects without finalizers survived their deletion: upstream's message, with Go's GroupVersionResource. */
class RemainingWithoutFinalizers extends Error {
  constructor(
    namespace: string,
    resource: ServedResource,
    readonly remaining: number,
  ) {
    const gvr = `${resource.group ? `${resource.group}/${resource.version}` : `/${resource.version}`}, Resource=${resource.resource}`;
    super(`unexpected items still remain in namespace: ${namespace} for gvr: ${gvr}`);
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
