/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it, so
 * that of several controller-manager replicas exactly one acts:
 * - a candidate tries every retryPeriod to take the Lease; it may once the holder has not renewed
 *   for leaseDuration, measured on the candidate's own clock from when it last saw the record
 *   change (never from the renewTime written by another machine's clock);
 * - every write is a compare-and-swap on the Lease's resourceVersion, so two candidates can never
 *   both win;
 * - the leader renews every retryPeriod; when it has not renewed for renewDeadline (shorter than
 *   leaseDuration) it stops leading, so it has stopped before any candidate may take over;
 * - on a graceful stop the leader releases the Lease (holder emptied, duration 1 s) so a candidate
 *   takes over at once.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { isStatusError } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { formatMicroTimeOf } from '../../shared/go/time.ts';
import type { ApiClient, ResourceRef } from '../../shared/client/api-client.ts';
import { resourcePath } from '../../shared/client/api-client.ts';
import { sleep, type Clock } from '../../shared/client/clock.ts';

export const leaseResource: ResourceRef = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true };

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** client-go's JitterFactor: waits are retryPeriod plus up to 20 %. */
const jitterFactor = 1.2;

export class LeaderElector {
  private observedRecord = '';
  private observedAt = 0;
  private observed: Lease | undefined;

  constructor(
    private readonly api: ApiClient,
    private readonly clock: Clock,
    private readonly options: LeaderElectionOptions,
    private readonly logger: Logger,
    /** Told true on becoming leader, false on stopping. */
    private readonly onLeading: (leading: boolean) => void = () => {},
  ) {}

  /**
   * Campaigns until this process leads, runs `lead` with a signal that aborts when leadership is
   * lost or `signal` aborts, and resolves once `lead` has returned. Resolves without leading if
   * `signal` aborts first.
   */
  async run(signal: AbortSignal, lead: (leading: AbortSignal) => Promise<void>): Promise<void> {
    if (!(await this.acquire(signal))) return;
    const leading = new AbortController();
    // Every controller's queues and sleeps listen on it.
    setMaxListeners(0, leading.signal);
    const stopLeading = (): void => leading.abort();
    // `signal` may have aborted while the lease was being taken: an abort event never comes then.
    if (signal.aborted) stopLeading();
    else signal.addEventListener('abort', stopLeading, { once: true });
    this.onLeading(true);
    this.logger.info({ lease: this.leaseName(), identity: this.options.identity }, 'successfully acquired lease');
    const renewing = this.renewLoop(leading.signal).then((lost) => {
      if (lost) this.logger.error({ lease: this.leaseName() }, 'leaderelection lost');
      leading.abort();
    });
    try {
      await lead(leading.signal);
    } finally {
      leading.abort();
      signal.removeEventListener('abort', stopLeading);
      await renewing;
      this.onLeading(false);
      if (signal.aborted) await this.release();
    }
  }

  /** True once this process holds the lease; false if `signal` aborted first. */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.logger.info({ lease: this.leaseName(), identity: this.options.identity }, 'attempting to acquire leader lease');
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew()) return true;
      await sleep(this.clock, this.jittered(), signal);
    }
    return false;
  }

  /** Renews every retryPeriod while `leading`; true when renewDeadline passed without a renewal (leadership lost). */
  private async renewLoop(leading: AbortSignal): Promise<boolean> {
    let lastRenew = this.clock.now();
    while (!leading.aborted) {
      await sleep(this.clock, this.options.retryPeriodMs, leading);
      if (leading.aborted) return false;
      if (await this.tryAcquireOrRenew()) lastRenew = this.clock.now();
      else if (this.clock.now() - lastRenew >= this.options.renewDeadlineMs) return true;
    }
    return false;
  }

  /** One attempt to take or renew the lease; true when this process holds it afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const nowText = formatMicroTimeOf(new Date(now));
    const durationSeconds = Math.ceil(this.options.leaseDurationMs / 1000);
    const path = resourcePath(leaseResource, this.options.namespace);
    let current: Lease;
    try {
      current = await this.api.get<Lease>(resourcePath(leaseResource, this.options.namespace, this.options.name));
    } catch (err) {
      if (!isStatusError(err, 'NotFound')) return this.failed(err);
      const lease: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.options.name, namespace: this.options.namespace },
        spec: { holderIdentity: this.options.identity, leaseDurationSeconds: durationSeconds, acquireTime: nowText, renewTime: nowText, leaseTransitions: 0 },
      };
      try {
        this.observe(await this.api.create<Lease>(path, lease), now);
        return true;
      } catch (createErr) {
        return this.failed(createErr);
      }
    }
    this.observe(current, now);
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const ours = holder === this.options.identity;
    const expired = this.observedAt + (spec.leaseDurationSeconds ?? 0) * 1000 <= now;
    if (holder !== '' && !ours && !expired) return false;
    const next: Lease = {
      ...current,
      spec: {
        ...spec,
        holderIdentity: this.options.identity,
        leaseDurationSeconds: durationSeconds,
        renewTime: nowText,
        ...(ours ? {} : { acquireTime: nowText, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
      },
    };
    try {
      this.observe(await this.api.update<Lease>(resourcePath(leaseResource, this.options.namespace, this.options.name), next), now);
      return true;
    } catch (err) {
      return this.failed(err);
    }
  }

  /** Gives the lease up (graceful stop): holder emptied, a 1 s duration, so a candidate takes it at its next attempt. */
  private async release(): Promise<void> {
    const lease = this.observed;
    if (!lease || lease.spec?.holderIdentity !== this.options.identity) return;
    const nowText = formatMicroTimeOf(new Date(this.clock.now()));
    try {
      await this.api.update(resourcePath(leaseResource, this.options.namespace, this.options.name), {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: nowText, acquireTime: nowText },
      });
      this.logger.info({ lease: this.leaseName() }, 'released leader lease');
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err), lease: this.leaseName() }, 'could not release the leader lease');
    }
  }

  /** Records `lease`; the observation time moves only when its spec changed. */
  private observe(lease: Lease, now: number): void {
    const record = JSON.stringify(lease.spec ?? {});
    if (record !== this.observedRecord) {
      this.observedRecord = record;
      this.observedAt = now;
    }
    this.observed = lease;
  }

  private failed(err: unknown): false {
    // A conflict is another candidate winning the race: expected, not worth a warning.
    if (!isStatusError(err, 'Conflict') && !isStatusError(err, 'AlreadyExists')) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err), lease: this.leaseName() }, 'error retrieving or updating the leader lease');
    }
    return false;
  }

  private jittered(): number {
    return this.options.retryPeriodMs * (1 + Math.random() * (jitterFactor - 1));
  }

  private leaseName(): string {
    return `${this.options.namespace}/${this.options.name}`;
  }
}
