/**
 * The OpenAPI documents of a registry, in the shape kube-apiserver serves them: the /openapi/v3
 * index, one OpenAPI 3.0 document per index entry (kubectl explains fields and checks for the
 * fieldValidation parameter with them), and one Swagger 2.0 document for /openapi/v2, as JSON and
 * in gnostic's protobuf form (the only form client-go asks /openapi/v2 for). A registry never
 * changes while a server runs, so each document is built once, on first use, and frozen.
 */
import { createHash } from 'node:crypto';
import type { GroupVersion, Registry } from '../../registry/registry.ts';
import { discoveryDocumentComponents, resourceComponents } from './components.ts';
import { groupVersionKey } from './naming.ts';
import { addCoreDiscovery, addGroupDiscovery, addGroupsDiscovery, addGroupVersionDiscovery, addResourceOperations, addVersion, PathSet } from './operations.ts';
import { v2Document, v3Document, type JsonObject } from './render.ts';
import { openApiV2Protobuf } from './v2-protobuf.ts';

/** Groups in registration order with their served versions. */
function servedGroups(registry: Registry): Map<string, GroupVersion[]> {
  const out = new Map<string, GroupVersion[]>();
  for (const gv of registry.groupVersions()) {
    if (gv.group === '') continue;
    out.set(gv.group, [...(out.get(gv.group) ?? []), gv]);
  }
  return out;
}

function groupVersionDocument(registry: Registry, gv: GroupVersion): JsonObject {
  const definitions = registry.resourcesOf(gv).map((r) => r.definition);
  const paths = new PathSet();
  addGroupVersionDiscovery(paths, gv);
  for (const def of definitions) addResourceOperations(paths, def);
  return v3Document(paths, resourceComponents(registry, definitions, 'v3'));
}

/** Builds the document of a key that v3Keys lists. */
function buildV3Document(registry: Registry, key: string): JsonObject {
  const paths = new PathSet();
  const [root, group = '', version] = key.split('/');
  if (key === 'api') addCoreDiscovery(paths);
  else if (key === 'apis') addGroupsDiscovery(paths);
  else if (key === 'version') addVersion(paths);
  else if (root === 'api') return groupVersionDocument(registry, { group: '', version: group });
  else if (version !== undefined) return groupVersionDocument(registry, { group, version });
  else addGroupDiscovery(paths, group);
  return v3Document(paths, discoveryDocumentComponents());
}

function buildV2Document(registry: Registry): JsonObject {
  const paths = new PathSet();
  addCoreDiscovery(paths);
  addGroupsDiscovery(paths);
  addVersion(paths);
  for (const [group] of servedGroups(registry)) addGroupDiscovery(paths, group);
  for (const gv of registry.groupVersions()) {
    addGroupVersionDiscovery(paths, gv);
    for (const { definition } of registry.resourcesOf(gv)) addResourceOperations(paths, definition);
  }
  return v2Document(
    paths,
    resourceComponents(
      registry,
      registry.resources.map((r) => r.definition),
      'v2',
    ),
  );
}

interface DocumentCache {
  v3Keys: ReadonlySet<string>;
  v3: Map<string, object>;
  v3Index?: { paths: Record<string, { serverRelativeURL: string }> };
  v2?: object;
  v2Protobuf?: Buffer;
}

const caches = new WeakMap<Registry, DocumentCache>();

/** The /openapi/v3 keys of a registry: discovery documents, every served group version, version. */
function v3Keys(registry: Registry): string[] {
  const keys = [
    'api',
    'apis',
    'version',
    ...registry
      .groupVersions()
      .filter((gv) => gv.group === '')
      .map(groupVersionKey),
  ];
  for (const [group, versions] of servedGroups(registry)) keys.push(`apis/${group}`, ...versions.map(groupVersionKey));
  return keys.sort();
}

function cacheOf(registry: Registry): DocumentCache {
  let cache = caches.get(registry);
  if (!cache) {
    cache = { v3Keys: new Set(v3Keys(registry)), v3: new Map() };
    caches.set(registry, cache);
  }
  return cache;
}

/** Documents are frozen: their JSON text and hash are computed once and must stay true. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * The OpenAPI 3.0 document of one /openapi/v3 key (`api/v1`, `apis/storage.k8s.io/v1`, `apis`,
 * `apis/<group>`, `api`, `version`), or undefined when the registry serves no such key. The same
 * frozen object is returned on every call.
 */
export function openApiV3Document(registry: Registry, key: string): object | undefined {
  const cache = cacheOf(registry);
  if (!cache.v3Keys.has(key)) return undefined;
  let doc = cache.v3.get(key);
  if (!doc) {
    doc = deepFreeze(buildV3Document(registry, key));
    cache.v3.set(key, doc);
  }
  return doc;
}

/** The /openapi/v3 index: each key's server-relative URL carries the hash of the document it names. */
export function openApiV3Index(registry: Registry): { paths: Record<string, { serverRelativeURL: string }> } {
  const cache = cacheOf(registry);
  if (!cache.v3Index) {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const key of cache.v3Keys) {
      const doc = openApiV3Document(registry, key);
      if (doc) paths[key] = { serverRelativeURL: v3Url(key, openApiHash(doc)) };
    }
    cache.v3Index = deepFreeze({ paths });
  }
  return cache.v3Index;
}

export const v3Url = (key: string, hash: string): string => `/openapi/v3/${key}?hash=${hash}`;

/** The Swagger 2.0 document of everything served (/openapi/v2). The same frozen object on every call. */
export function openApiV2Document(registry: Registry): object {
  const cache = cacheOf(registry);
  cache.v2 ??= deepFreeze(buildV2Document(registry));
  return cache.v2;
}

const serialized = new WeakMap<object, string>();
const hashes = new WeakMap<object, string>();

/** The JSON text of a document, computed once; the bytes served are the bytes hashed. */
export function openApiJson(doc: object): string {
  let text = serialized.get(doc);
  if (text === undefined) {
    text = JSON.stringify(doc);
    serialized.set(doc, text);
  }
  return text;
}

/** Upstream's document hash and ETag: the SHA-512 of the JSON text, upper-case hex. */
export function openApiHash(doc: object): string {
  let hash = hashes.get(doc);
  if (hash === undefined) {
    hash = createHash('sha512').update(openApiJson(doc)).digest('hex').toUpperCase();
    hashes.set(doc, hash);
  }
  return hash;
}

/** The protobuf form of a registry's v2 document, computed once. */
export function openApiV2ProtobufOf(registry: Registry): Buffer {
  const cache = cacheOf(registry);
  cache.v2Protobuf ??= openApiV2Protobuf(openApiV2Document(registry));
  return cache.v2Protobuf;
}
