/**
 * etcd leases for objects that expire (Events, `--event-ttl`), shared between writes as upstream's
 * lease manager shares them: one lease per short window rather than one per write, since a grant is
 * a round trip and every live lease costs etcd memory and expiry work.
 *
 * A lease granted for `ttl` is asked with a little extra (the reuse window: 5% of the TTL, at most
 * 60 s) and serves later writes while it still outlives their own `ttl`. An object therefore lives
 * at least its TTL after its last write and at most the window longer; at most 1,000 writes attach
 * to one lease.
 */
import type { Etcd3 } from 'etcd3';

/** Upstream's defaults (k8s.io/apiserver storagebackend: LeaseReuseDurationSeconds, percent, max objects). */
const reuseSecondsMax = 60;
const reuseFraction = 0.05;
const maxObjectsPerLease = 1000;

export class LeaseManager {
  private current: { id: string; expiresAtMs: number; ttlSeconds: number; attached: number } | undefined;
  /** A grant under way, so that concurrent writes share it instead of granting one each. */
  private granting: { ttlSeconds: number; id: Promise<string> } | undefined;

  constructor(
    private readonly client: Etcd3,
    private readonly now: () => number = Date.now,
  ) {}

  /** A lease under which an object written now lives at least `ttlSeconds`. */
  async leaseFor(ttlSeconds: number): Promise<string> {
    const now = this.now();
    const leaseSeconds = ttlSeconds + Math.min(Math.floor(ttlSeconds * reuseFraction), reuseSecondsMax);
    const lease = this.current;
    if (lease && lease.ttlSeconds === leaseSeconds && lease.attached < maxObjectsPerLease && now + ttlSeconds * 1000 < lease.expiresAtMs) {
      lease.attached++;
      return lease.id;
    }
    if (this.granting?.ttlSeconds === leaseSeconds) return this.granting.id;
    const granting = { ttlSeconds: leaseSeconds, id: this.grant(leaseSeconds, now) };
    this.granting = granting;
    try {
      return await granting.id;
    } finally {
      if (this.granting === granting) this.granting = undefined;
    }
  }

  private async grant(ttlSeconds: number, now: number): Promise<string> {
    const res = await this.client.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: 0 });
    this.current = { id: res.ID, expiresAtMs: now + ttlSeconds * 1000, ttlSeconds, attached: 1 };
    return res.ID;
  }
}
