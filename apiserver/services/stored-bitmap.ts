/**
 * An allocation bitmap kept in storage, as upstream keeps its service IP and node port allocations:
 * one core/v1 RangeAllocation under `<prefix>/ranges/<name>` whose `range` names what it counts and
 * whose `data` is the bitmap (bit i set: offset i is taken) as a big-endian integer's bytes, base64
 * in JSON. Every change is a compare-and-swap on the key's mod revision (guaranteedUpdate), so that
 * replicas allocating at the same moment never hand out one offset twice; nothing is kept in memory.
 *
 * A stored allocation of another range (the flag changed) is started afresh: upstream's repair
 * controller would rebuild it from the stored services, which corral does not run yet.
 */
import { randomInt } from 'node:crypto';
import type { KubeObject } from '../../shared/api/types.ts';
import type { StoredValue } from '../storage/etcd/store.ts';
import type { Storage } from '../storage/storage.ts';

export interface RangeAllocation extends KubeObject {
  range: string;
  /** base64 of the bitmap's big-endian bytes. */
  data: string;
}

export type AllocationFailure = 'allocated' | 'full';

/** Why an allocation failed: the offset is taken, or the range is full. */
export class AllocationError extends Error {
  constructor(readonly reason: AllocationFailure) {
    super(reason === 'allocated' ? 'provided IP is already allocated' : 'range is full');
  }
}

function decodeBitmap(data: string): bigint {
  const bytes = Buffer.from(data, 'base64');
  return bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString('hex')}`);
}

function encodeBitmap(bits: bigint): string {
  if (bits === 0n) return '';
  let hex = bits.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Buffer.from(hex, 'hex').toString('base64');
}

const isSet = (bits: bigint, offset: number): boolean => ((bits >> BigInt(offset)) & 1n) === 1n;

export class StoredBitmap {
  private readonly key: string;

  /**
   * `range` is what the bitmap counts (`10.0.0.0/24`, `30000-32767`), `size` how many offsets it has;
   * `staticBand`: offsets below it are taken by allocateNext only once the others are full.
   */
  constructor(
    private readonly storage: Storage,
    name: string,
    private readonly range: string,
    private readonly size: number,
    private readonly staticBand = 0,
  ) {
    this.key = storage.key('ranges', undefined, name);
  }

  private bitsOf(current: StoredValue | null): bigint {
    const stored = current?.object as RangeAllocation | undefined;
    return stored && stored.range === this.range ? decodeBitmap(stored.data ?? '') : 0n;
  }

  private allocation(bits: bigint): RangeAllocation {
    return { apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range: this.range, data: encodeBitmap(bits) };
  }

  /** Whether `offset` is taken now. */
  async has(offset: number): Promise<boolean> {
    return isSet(this.bitsOf(await this.storage.get(this.key)), offset);
  }

  /** Takes `offset`; AllocationError `allocated` when it is taken. */
  async allocate(offset: number): Promise<void> {
    await this.storage.guaranteedUpdate(this.key, (current) => {
      const bits = this.bitsOf(current);
      if (isSet(bits, offset)) throw new AllocationError('allocated');
      return { action: 'put', object: this.allocation(bits | (1n << BigInt(offset))) };
    });
  }

  /**
   * Takes a free offset: a random one above the static band, then one inside it; AllocationError
   * `full` when none is free (upstream's random scan with offset).
   */
  async allocateNext(): Promise<number> {
    let chosen = -1;
    await this.storage.guaranteedUpdate(this.key, (current) => {
      const bits = this.bitsOf(current);
      chosen = this.freeOffset(bits);
      if (chosen < 0) throw new AllocationError('full');
      return { action: 'put', object: this.allocation(bits | (1n << BigInt(chosen))) };
    });
    return chosen;
  }

  private freeOffset(bits: bigint): number {
    const scan = (from: number, to: number): number => {
      const count = to - from;
      if (count <= 0) return -1;
      const start = randomInt(count);
      for (let i = 0; i < count; i++) {
        const offset = from + ((start + i) % count);
        if (!isSet(bits, offset)) return offset;
      }
      return -1;
    };
    const upper = scan(this.staticBand, this.size);
    return upper >= 0 ? upper : scan(0, Math.min(this.staticBand, this.size));
  }

  /** Frees `offset`; freeing a free offset changes nothing. */
  async release(offset: number): Promise<void> {
    await this.storage.guaranteedUpdate(this.key, (current) => {
      const bits = this.bitsOf(current);
      if (!isSet(bits, offset)) return { action: 'none', object: current?.object ?? null };
      return { action: 'put', object: this.allocation(bits & ~(1n << BigInt(offset))) };
    });
  }
}
