/**
 * Discovery documents, all derived from the registry: the legacy ones (/api, /api/v1, /apis,
 * /apis/<group>, /apis/<group>/<version>) and aggregated discovery (apidiscovery.k8s.io/v2 and
 * v2beta1 APIGroupDiscoveryList), which kubectl asks for first.
 */
import { createHash } from 'node:crypto';
import { pathNotFound } from '../../shared/api/errors.ts';
import type { ResourceDefinition } from '../registry/definition.ts';
import type { GroupVersion, Registry } from '../registry/registry.ts';
import { groupVersionString } from '../registry/registry.ts';
import { parseMediaType } from './negotiation.ts';

/** Version order upstream uses: GA before beta before alpha, higher numbers first. */
function versionPriority(version: string): [number, number, number] {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (!m) return [0, 0, 0];
  const level = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  return [level, Number(m[1]), Number(m[3] ?? 0)];
}

function compareVersions(a: string, b: string): number {
  const pa = versionPriority(a);
  const pb = versionPriority(b);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pb[i] ?? 0) - (pa[i] ?? 0);
  return 0;
}

/** Groups in registration order with their versions, preferred first. */
function groups(registry: Registry): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const gv of registry.groupVersions()) {
    if (!gv.group) continue;
    const versions = out.get(gv.group) ?? [];
    versions.push(gv.version);
    out.set(gv.group, versions);
  }
  for (const versions of out.values()) versions.sort(compareVersions);
  return out;
}

function storageVersionHash(def: ResourceDefinition): string {
  return createHash('sha256').update(`${def.group}/${def.version}/${def.kind}`).digest('base64').slice(0, 11);
}

function apiGroup(group: string, versions: string[]): Record<string, unknown> {
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

function apiResourceList(registry: Registry, gv: GroupVersion): Record<string, unknown> {
  const resources: Record<string, unknown>[] = [];
  for (const { definition: def } of registry.resourcesOf(gv)) {
    resources.push({
      name: def.plural,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: [...def.verbs],
      ...(def.shortNames?.length ? { shortNames: [...def.shortNames] } : {}),
      ...(def.categories?.length ? { categories: [...def.categories] } : {}),
      ...(def.computed || def.review ? {} : { storageVersionHash: storageVersionHash(def) }),
    });
    for (const [name, sub] of Object.entries(def.subresources ?? {})) {
      resources.push({ name: `${def.plural}/${name}`, singularName: '', namespaced: def.namespaced, kind: def.kind, verbs: [...sub.verbs] });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersionString(gv), resources };
}

function discoveryResources(registry: Registry, gv: GroupVersion): Record<string, unknown>[] {
  return registry.resourcesOf(gv).map(({ definition: def }) => {
    const responseKind = { group: def.group, version: def.version, kind: def.kind };
    const subresources = Object.entries(def.subresources ?? {}).map(([name, sub]) => ({ subresource: name, responseKind, verbs: [...sub.verbs] }));
    return {
      resource: def.plural,
      responseKind,
      scope: def.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: def.singular,
      verbs: [...def.verbs],
      ...(def.shortNames?.length ? { shortNames: [...def.shortNames] } : {}),
      ...(def.categories?.length ? { categories: [...def.categories] } : {}),
      ...(subresources.length ? { subresources } : {}),
    };
  });
}

function aggregated(registry: Registry, core: boolean, version: string): Record<string, unknown> {
  const items: Record<string, unknown>[] = [];
  if (core) {
    const versions = registry.groupVersions().filter((gv) => !gv.group);
    if (versions.length) {
      items.push({
        metadata: { creationTimestamp: null },
        versions: versions.map((gv) => ({ version: gv.version, resources: discoveryResources(registry, gv), freshness: 'Current' })),
      });
    }
  } else {
    for (const [group, versions] of groups(registry)) {
      items.push({
        metadata: { name: group, creationTimestamp: null },
        versions: versions.map((v) => ({ version: v, resources: discoveryResources(registry, { group, version: v }), freshness: 'Current' })),
      });
    }
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

/** The aggregated discovery version the Accept header asks for first, if any. */
function aggregatedVersion(accept: string | undefined): string | undefined {
  for (const part of (accept ?? '').split(',')) {
    const range = parseMediaType(part);
    if (!range || range.params.get('as') !== 'APIGroupDiscoveryList' || range.params.get('g') !== 'apidiscovery.k8s.io') continue;
    const v = range.params.get('v');
    if (v === 'v2' || v === 'v2beta1') return v;
  }
  return undefined;
}

export interface DiscoveryResponse {
  body: unknown;
  contentType: string;
}

/** Answers a discovery path, or returns undefined when the path is not a discovery path. */
export function discovery(registry: Registry, path: string, accept: string | undefined, serverAddress: string): DiscoveryResponse | undefined {
  const segments = path.split('/').filter(Boolean);
  const json = (body: unknown): DiscoveryResponse => ({ body, contentType: 'application/json' });
  if (segments[0] === 'api' && segments.length === 1) {
    const version = aggregatedVersion(accept);
    if (version)
      return { body: aggregated(registry, true, version), contentType: `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList` };
    return json({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] });
  }
  if (segments[0] === 'api' && segments.length === 2) {
    const gv = { group: '', version: segments[1] ?? '' };
    if (!registry.resourcesOf(gv).length) throw pathNotFound();
    return json(apiResourceList(registry, gv));
  }
  if (segments[0] !== 'apis') return undefined;
  if (segments.length === 1) {
    const version = aggregatedVersion(accept);
    if (version)
      return { body: aggregated(registry, false, version), contentType: `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList` };
    return json({ kind: 'APIGroupList', apiVersion: 'v1', groups: [...groups(registry)].map(([group, versions]) => apiGroup(group, versions)) });
  }
  const versions = groups(registry).get(segments[1] ?? '');
  if (!versions) throw pathNotFound();
  if (segments.length === 2) return json({ kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(segments[1] ?? '', versions) });
  if (segments.length === 3) {
    const gv = { group: segments[1] ?? '', version: segments[2] ?? '' };
    if (!versions.includes(gv.version)) throw pathNotFound();
    return json(apiResourceList(registry, gv));
  }
  return undefined;
}
