/**
 * What the migration tests share: an embedded store seeded as an API server would leave it (objects
 * of a few kinds, Events with a TTL), and every key of a store read back with its raw value and
 * expiry, to compare a source with its copy.
 */
import { join } from 'node:path';
import type { Etcd3 } from 'etcd3';
import type { KubeObject } from '../../../shared/api/types.ts';
import { EmbeddedStore } from '../embedded/store.ts';
import { prefixEnd } from '../etcd/store.ts';
import type { MigrateConfig, StoreLocation } from './config.ts';

/** A key's stored text and when it expires (ms since the epoch, 0: never). */
export type Dump = Map<string, { value: string; expiresAt: number }>;

export const eventTtlSeconds = 3600;

const configMap = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, uid: `uid-${namespace}-${name}`, labels: { app: name }, creationTimestamp: '2024-01-01T00:00:00Z' },
  data: { text: `héllo ${name} ✓`, number: '1.50' },
});

/**
 * Writes `configMaps` ConfigMaps over three namespaces (each updated once, so that the store's
 * revision runs ahead of its key count), the namespaces, and `events` Events with the Event TTL,
 * into the embedded store of `dataDir`.
 */
export async function seedEmbedded(dataDir: string, prefix: string, configMaps: number, events: number): Promise<void> {
  const store = new EmbeddedStore(join(dataDir, 'db'), prefix);
  try {
    const namespaces = ['default', 'kube-system', 'team-a'];
    for (const ns of namespaces) await store.create(store.key('namespaces', undefined, ns), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await Promise.all(
      Array.from({ length: configMaps }, async (_, i) => {
        const ns = namespaces[i % namespaces.length] ?? 'default';
        const obj = configMap(ns, `cm-${String(i).padStart(4, '0')}`);
        const key = store.key('configmaps', ns, obj.metadata.name ?? '');
        await store.create(key, obj);
        await store.guaranteedUpdate(key, (current) => ({ action: 'put', object: { ...(current?.object ?? obj), data: { updated: 'yes' } } }));
      }),
    );
    for (let i = 0; i < events; i++) {
      const name = `pod.${i}`;
      await store.create(
        store.key('events', 'default', name),
        { apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default' }, reason: 'Started', message: `event ${i}` },
        eventTtlSeconds,
      );
    }
  } finally {
    await store.close();
  }
}

/** Every key under `prefix` of the embedded store in `dataDir`. */
export async function dumpEmbedded(dataDir: string, prefix: string): Promise<Dump> {
  const store = new EmbeddedStore(join(dataDir, 'db'), prefix);
  try {
    return new Map(store.liveRecords(`${prefix}/`, undefined, Number.MAX_SAFE_INTEGER).map(({ key, value, expiresAt }) => [key, { value, expiresAt }]));
  } finally {
    await store.close();
  }
}

/**
 * Every key under `prefix` of an etcd; a key on a lease expires at the latest when etcd says the
 * lease ends (within its TTL + 1 s of the answer).
 */
export async function dumpEtcd(client: Etcd3, prefix: string): Promise<Dump> {
  const res = await client.kv.range({ key: Buffer.from(`${prefix}/`), range_end: prefixEnd(`${prefix}/`) });
  const dump: Dump = new Map();
  for (const kv of res.kvs) {
    let expiresAt = 0;
    if (kv.lease !== '0') {
      const asked = Date.now();
      expiresAt = asked + (Number((await client.leaseClient.leaseTimeToLive({ ID: kv.lease })).TTL) + 1) * 1000;
    }
    dump.set(kv.key.toString('utf8'), { value: kv.value.toString('utf8'), expiresAt });
  }
  return dump;
}

export const embeddedAt = (dataDir: string): StoreLocation => ({ kind: 'embedded', dataDir });
export const etcdAt = (endpoints: string[]): StoreLocation => ({ kind: 'etcd', endpoints });

/** A migration with the defaults of the command's flags, and small pages so that several are read. */
export function migration(from: StoreLocation, to: StoreLocation, prefix: string, more: Partial<MigrateConfig> = {}): MigrateConfig {
  return { from, to, prefix, force: false, compact: true, batchSize: 64, etcdRequestTimeoutMs: 10_000, ...more };
}
