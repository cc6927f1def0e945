/**
 * An etcd as either end of a migration. The source is read with the raw client, page by page at
 * one pinned revision: EtcdStore's range decodes every value (the compactor's key is a number, not
 * an object) and does not say which lease a key is attached to. The target is an EtcdStore, which
 * writes as the API server does (one guarded transaction a key, shared leases for TTLs).
 */
import type { Etcd3, IKeyValue } from 'etcd3';
import { classifyEtcdError } from '../etcd/errors.ts';
import { connectEtcd, EtcdStore, prefixEnd } from '../etcd/store.ts';
import type { MigrationSource, MigrationTarget, SourceEntry } from './endpoint.ts';

export interface EtcdEndpoint {
  endpoints: string[];
  requestTimeoutMs: number;
}

const describeEtcd = (endpoints: string[]): string => `etcd ${endpoints.join(',')}`;

/** Runs one call to the etcd at `endpoints`, its failure reworded to name that etcd and `doing`. */
async function call<T>(endpoints: string[], doing: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const { code, message } = classifyEtcdError(err, '');
    const hint =
      code === 'Unavailable' || code === 'Timeout'
        ? ' (is it running, at that address?)'
        : code === 'Compacted'
          ? ' (it was compacted during the copy: stop every API server on it, then copy again with --force)'
          : '';
    throw new Error(`${doing} ${describeEtcd(endpoints)}: ${message}${hint}`);
  }
}

/** The revision of the etcd now: a count-only range (etcd's header revision). */
async function headerRevision(client: Etcd3): Promise<number> {
  return Number((await client.kv.range({ key: Buffer.from('/'), count_only: true })).header.revision);
}

export function openEtcdSource(opts: EtcdEndpoint): MigrationSource {
  const client = connectEtcd({ endpoints: opts.endpoints, requestTimeoutMs: opts.requestTimeoutMs });
  /**
   * When a lease's keys expire at the latest, by lease ID: etcd says the lease ends within TTL + 1
   * seconds of its answer, and the later bound is kept, so that no key expires earlier than it
   * would have in the source. A lease that has expired (TTL -1) ended long ago (1): its keys are
   * as good as gone.
   */
  const leaseEnds = new Map<string, number>();
  const expiryOf = async (lease: string): Promise<number> => {
    if (lease === '0') return 0;
    let end = leaseEnds.get(lease);
    if (end === undefined) {
      const asked = Date.now();
      const ttl = Number((await client.leaseClient.leaseTimeToLive({ ID: lease })).TTL);
      end = ttl < 0 ? 1 : asked + (ttl + 1) * 1000;
      leaseEnds.set(lease, end);
    }
    return end;
  };
  return {
    describe: describeEtcd(opts.endpoints),
    exclusive: false,
    revision: () => call(opts.endpoints, 'cannot read', () => headerRevision(client)),
    async *pages(root, size, at) {
      const end = prefixEnd(root);
      let start = Buffer.from(root);
      for (;;) {
        const { kvs, more } = await call(opts.endpoints, `cannot read ${root} at revision ${at} from`, () =>
          client.kv.range({ key: start, range_end: end, limit: size, revision: at }),
        );
        const page: SourceEntry[] = [];
        for (const kv of kvs) page.push(await entryOf(kv));
        if (page.length) yield page;
        const last = kvs.at(-1);
        if (!more || !last) return;
        // The first key after the last one read: the key with a zero byte appended.
        start = Buffer.concat([last.key, Buffer.from([0])]);
      }
    },
    close: async () => client.close(),
  };

  async function entryOf(kv: IKeyValue): Promise<SourceEntry> {
    const expiresAt = await call(opts.endpoints, 'cannot read a lease of', () => expiryOf(kv.lease));
    return { key: kv.key.toString('utf8'), value: kv.value.toString('utf8'), expiresAt };
  }
}

export function openEtcdTarget(opts: EtcdEndpoint, prefix: string): MigrationTarget {
  const client = connectEtcd({ endpoints: opts.endpoints, requestTimeoutMs: opts.requestTimeoutMs });
  return {
    describe: describeEtcd(opts.endpoints),
    storage: new EtcdStore(client, prefix),
    keyCount: (root) =>
      call(opts.endpoints, 'cannot read', async () =>
        Number((await client.kv.range({ key: Buffer.from(root), range_end: prefixEnd(root), count_only: true })).count),
      ),
    async compact(revision) {
      await call(opts.endpoints, `cannot compact the history of`, async () => {
        try {
          await client.kv.compact({ revision });
        } catch (err) {
          // Compacted there (or beyond) already: nothing left to do.
          if (classifyEtcdError(err, '').code !== 'Compacted') throw err;
        }
      });
    },
    close: async () => client.close(),
  };
}
