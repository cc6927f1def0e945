/**
 * Node ports from --service-node-port-range, kept in storage (`<prefix>/ranges/servicenodeports`,
 * upstream's key) with compare-and-swap like the cluster IPs: a requested port is taken if free and
 * inside the range, otherwise a free one is chosen at random above the static band (upstream's
 * portallocator, KEP-3668: min(max(16, size/32), 128) ports at the bottom are left to requests).
 */
import type { Storage } from '../storage/storage.ts';
import { AllocationError, StoredBitmap } from './stored-bitmap.ts';

export interface PortRange {
  base: number;
  size: number;
}

/** `30000-32767` (or a single port `30000`); null when it is not a port range. */
export function parsePortRange(text: string): PortRange | null {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(text);
  if (!match) return null;
  const low = Number(match[1]);
  const high = match[2] === undefined ? low : Number(match[2]);
  if (low > 65535 || high > 65535 || high < low) return null;
  return { base: low, size: high - low + 1 };
}

export const formatPortRange = (range: PortRange): string => `${range.base}-${range.base + range.size - 1}`;

export class NodePortNotInRangeError extends Error {
  constructor(validRange: string) {
    super(`provided port is not in the valid range. The range of valid ports is ${validRange}`);
  }
}

export class NodePortAllocator {
  private readonly bitmap: StoredBitmap;
  readonly text: string;

  constructor(
    storage: Storage,
    readonly range: PortRange,
  ) {
    this.text = formatPortRange(range);
    const band = range.size <= 16 ? 0 : Math.min(Math.max(16, Math.floor(range.size / 32)), 128);
    this.bitmap = new StoredBitmap(storage, 'servicenodeports', this.text, range.size, band);
  }

  private offset(port: number): number {
    const offset = port - this.range.base;
    if (offset < 0 || offset >= this.range.size) throw new NodePortNotInRangeError(this.text);
    return offset;
  }

  async allocate(port: number): Promise<void> {
    try {
      await this.bitmap.allocate(this.offset(port));
    } catch (err) {
      throw err instanceof AllocationError && err.reason === 'allocated' ? new Error('provided port is already allocated') : err;
    }
  }

  async check(port: number): Promise<void> {
    if (await this.bitmap.has(this.offset(port))) throw new Error('provided port is already allocated');
  }

  async allocateNext(): Promise<number> {
    return this.range.base + (await this.bitmap.allocateNext());
  }

  async release(port: number): Promise<void> {
    const offset = port - this.range.base;
    if (offset >= 0 && offset < this.range.size) await this.bitmap.release(offset);
  }
}
