/**
 * Objects that exist before a fuzz run and must be exactly as they were after it: two namespaces
 * the fuzzer never names (`keep-a`, `keep-b`), and in each a ConfigMap, a Secret, a Lease and an
 * events.k8s.io Event. Their snapshot is each object as read back (resourceVersion included), so
 * any write that reached them, even one that changed nothing else, shows.
 */
import { isDeepStrictEqual } from 'node:util';
import { fixtureKey, fixtures } from '../../apiserver/registry/conformance-fixtures.ts';
import type { Transport } from './transport.ts';

export const fixtureNamespaces = ['keep-a', 'keep-b'] as const;

/** Namespaced kinds created in each fixture namespace: [fixture key, URL of its collection in `ns`]. */
const kinds: readonly [string, (ns: string) => string][] = [
  [fixtureKey({ group: '', version: 'v1', plural: 'configmaps' }), (ns) => `/api/v1/namespaces/${ns}/configmaps`],
  [fixtureKey({ group: '', version: 'v1', plural: 'secrets' }), (ns) => `/api/v1/namespaces/${ns}/secrets`],
  [fixtureKey({ group: 'coordination.k8s.io', version: 'v1', plural: 'leases' }), (ns) => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`],
  [fixtureKey({ group: 'events.k8s.io', version: 'v1', plural: 'events' }), (ns) => `/apis/events.k8s.io/v1/namespaces/${ns}/events`],
];

/** Each fixture's URL and its state as read back after creation. */
export type Snapshot = ReadonlyMap<string, unknown>;

async function call(transport: Transport, method: string, target: string, body?: unknown): Promise<{ status: number; value: unknown; text: string }> {
  const reply = await transport.send({
    protocol: 'http1',
    credentials: 'admin',
    method,
    target,
    headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? Buffer.from(JSON.stringify(body)) : undefined,
  });
  if (reply.kind !== 'reply') throw new Error(`${method} ${target}: ${reply.error}`);
  const text = reply.body.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = text;
  }
  return { status: reply.status, value, text };
}

/** Creates the fixtures; returns their snapshot. */
export async function createFixtures(transport: Transport): Promise<Snapshot> {
  const snapshot = new Map<string, unknown>();
  for (const ns of fixtureNamespaces) {
    const created = await call(transport, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns, labels: { fuzz: 'keep' } },
    });
    if (created.status !== 201) throw new Error(`creating namespace ${ns}: ${created.status} ${created.text}`);
    for (const [key, collection] of kinds) {
      const fixture = fixtures[key];
      if (!fixture || fixture.readOnly) throw new Error(`no conformance fixture for ${key}`);
      const object = fixture.valid(`keep-${ns}`, ns);
      object.metadata.labels = { ...object.metadata.labels, fuzz: 'keep' };
      const res = await call(transport, 'POST', collection(ns), object);
      if (res.status !== 201) throw new Error(`creating ${key} in ${ns}: ${res.status} ${res.text}`);
    }
  }
  for (const url of fixtureUrls()) {
    const read = await call(transport, 'GET', url);
    if (read.status !== 200) throw new Error(`reading ${url}: ${read.status} ${read.text}`);
    snapshot.set(url, read.value);
  }
  return snapshot;
}

function fixtureUrls(): string[] {
  const urls: string[] = [];
  for (const ns of fixtureNamespaces) {
    urls.push(`/api/v1/namespaces/${ns}`);
    for (const [, collection] of kinds) urls.push(`${collection(ns)}/keep-${ns}`);
  }
  return urls;
}

/** What differs from the snapshot, one line per changed object; empty when nothing does. */
export async function compareFixtures(transport: Transport, snapshot: Snapshot): Promise<string[]> {
  const changes: string[] = [];
  for (const [url, before] of snapshot) {
    const now = await call(transport, 'GET', url);
    if (now.status !== 200) changes.push(`${url}: now ${now.status} ${now.text.slice(0, 300)}`);
    else if (!isDeepStrictEqual(now.value, before)) changes.push(`${url} changed:\n  before ${JSON.stringify(before)}\n  after  ${JSON.stringify(now.value)}`);
  }
  return changes;
}
