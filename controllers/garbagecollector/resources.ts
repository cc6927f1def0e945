/**
 * The kinds the garbage collector watches and acts on (upstream's GetDeletableResources and its REST
 * mapper): every served resource whose verbs include delete, list and watch, but Events (upstream's
 * DefaultIgnoredResources: they take no part in garbage collection). Owner references name a kind by
 * apiVersion and kind; they are resolved by group and kind to the group's served version, so a
 * reference written against another version of the group still resolves.
 */
import type { ServedResource } from '../framework/discovery.ts';
import { groupOf } from './graph.ts';

/** Upstream's DefaultIgnoredResources. */
const ignoredResources: ReadonlySet<string> = new Set(['/events', 'events.k8s.io/events']);

export function isCollectable(resource: ServedResource): boolean {
  return ['delete', 'list', 'watch'].every((verb) => resource.verbs.includes(verb)) && !ignoredResources.has(`${resource.group}/${resource.resource}`);
}

/** The served kinds by group and kind, refreshed by each discovery. */
export class ResourceMap {
  private byKind = new Map<string, ServedResource>();

  /** Replaces the map with `resources`: every served one, since owners may be of kinds not collected. */
  update(resources: readonly ServedResource[]): void {
    this.byKind = new Map(resources.map((resource) => [kindKey(resource.group, resource.kind), resource]));
  }

  /** The resource serving `kind` of `apiVersion`'s group; undefined when the API does not serve it. */
  resolve(apiVersion: string, kind: string): ServedResource | undefined {
    return this.byKind.get(kindKey(groupOf(apiVersion), kind));
  }
}

function kindKey(group: string, kind: string): string {
  return `${group}/${kind}`;
}
