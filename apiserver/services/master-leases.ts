/**
 * The API server replicas' leases, as upstream's lease endpoint reconciler keeps them: one key per
 * replica, `<prefix>/masterleases/<ip>`, holding an Endpoints naming the replica's address, written
 * with a time to live (upstream: 15 s) so that a replica that stops renewing drops out when the
 * storage expires the key. Each renewal changes the value (generation moves), because a write that
 * changes nothing would not restart the time to live.
 */
import type { Endpoints } from '../../shared/api/endpoints.ts';
import type { Storage } from '../storage/storage.ts';

export class MasterLeases {
  constructor(
    private readonly storage: Storage,
    private readonly ttlSeconds: number,
  ) {}

  private keyOf(ip: string): string {
    return this.storage.key('masterleases', undefined, ip);
  }

  /** Writes (or renews) the lease of `ip`. */
  async update(ip: string): Promise<void> {
    await this.storage.guaranteedUpdate(
      this.keyOf(ip),
      (current) => {
        const previous = current?.object;
        const lease: Endpoints = {
          apiVersion: 'v1',
          kind: 'Endpoints',
          metadata: { name: ip, generation: (previous?.metadata.generation ?? 0) + 1 },
          subsets: [{ addresses: [{ ip }] }],
        };
        return { action: 'put', object: lease };
      },
      undefined,
      this.ttlSeconds,
    );
  }

  /** The addresses of the unexpired leases, in key order. */
  async list(): Promise<string[]> {
    const prefix = this.storage.collectionPrefix('masterleases');
    const ips: string[] = [];
    let startKey: string | undefined;
    for (;;) {
      const page = await this.storage.range(prefix, { limit: 500, ...(startKey ? { startKey } : {}) });
      for (const { object } of page.values) {
        const ip = (object as Endpoints).subsets?.[0]?.addresses?.[0]?.ip;
        if (ip) ips.push(ip);
      }
      if (!page.more || !page.lastKey) return ips;
      startKey = `${page.lastKey}\0`;
    }
  }

  /** Removes the lease of `ip` (graceful shutdown). */
  async remove(ip: string): Promise<void> {
    await this.storage.guaranteedUpdate(this.keyOf(ip), (current) => (current ? { action: 'delete' } : { action: 'none', object: null }));
  }
}
