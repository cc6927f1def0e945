/**
 * Service cluster IPs from --service-cluster-ip-range, kept in storage (`<prefix>/ranges/serviceips`,
 * upstream's key and RangeAllocation) with compare-and-swap, so that every replica sees one
 * allocation: a requested address is taken if free and inside the range, otherwise the next free
 * one is chosen at random above the static band (upstream's ipallocator, KEP-3070). Errors carry
 * upstream's words; the Service strategy turns them into its Status (service-allocation.ts).
 */
import type { Storage } from '../storage/storage.ts';
import { addressAt, offsetOf, parseIPRange, staticBandSize, type IPRange } from './ip-range.ts';
import { AllocationError, StoredBitmap } from './stored-bitmap.ts';

/** An address outside the range (upstream's ErrNotInRange). */
export class NotInRangeError extends Error {
  constructor(ip: string, validRange: string) {
    super(`the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${validRange}`);
  }
}

export class ClusterIPAllocator {
  readonly range: IPRange;
  private readonly bitmap: StoredBitmap;

  constructor(storage: Storage, cidr: string) {
    const range = parseIPRange(cidr);
    if (!range) throw new Error(`invalid service cluster IP range ${cidr}`);
    this.range = range;
    this.bitmap = new StoredBitmap(storage, 'serviceips', range.cidr, range.size, staticBandSize(range));
  }

  /** The first address of the range: the `kubernetes` service's. */
  firstAddress(): string {
    return addressAt(this.range, 0);
  }

  private offset(ip: string): number {
    const offset = offsetOf(this.range, ip);
    if (offset === undefined) throw new NotInRangeError(ip, this.range.cidr);
    return offset;
  }

  /** Takes `ip`: NotInRangeError, or AllocationError `allocated` when another service holds it. */
  async allocate(ip: string): Promise<void> {
    await this.bitmap.allocate(this.offset(ip));
  }

  /** What allocate would say, without taking the address (dry run). */
  async check(ip: string): Promise<void> {
    if (await this.bitmap.has(this.offset(ip))) throw new AllocationError('allocated');
  }

  /** Takes a free address; AllocationError `full` when there is none. */
  async allocateNext(): Promise<string> {
    return addressAt(this.range, await this.bitmap.allocateNext());
  }

  /** Frees `ip`; an address outside the range (or free) is ignored. */
  async release(ip: string): Promise<void> {
    const offset = offsetOf(this.range, ip);
    if (offset !== undefined) await this.bitmap.release(offset);
  }

  async isAllocated(ip: string): Promise<boolean> {
    const offset = offsetOf(this.range, ip);
    return offset !== undefined && (await this.bitmap.has(offset));
  }
}
