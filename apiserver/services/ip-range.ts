/**
 * The addresses of --service-cluster-ip-range as upstream's ipallocator counts them: offset 0 is
 * the address after the network address; an IPv4 range leaves out its broadcast address too, and
 * no range holds more than 65536 addresses (upstream caps large IPv6 ranges). Addresses are
 * bigints, so IPv4 and IPv6 share one arithmetic.
 */
import { isIP } from 'node:net';
import { parseCIDR } from '../../shared/validation/network.ts';

export interface IPRange {
  /** The range as given, e.g. `10.0.0.0/24` (normalized to its network address). */
  cidr: string;
  family: 4 | 6;
  /** The network address. */
  base: bigint;
  /** How many addresses can be allocated: offsets 0 … size-1 are base+1 … base+size. */
  size: number;
}

const maxRangeSize = 1 << 16;

export function ipToBigInt(ip: string): bigint {
  if (isIP(ip) === 4) return ip.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
  const [head = '', tail] = ip.toLowerCase().split('::') as [string, string | undefined];
  const parseGroups = (text: string): string[] => (text === '' ? [] : text.split(':'));
  let groups = parseGroups(head);
  let tailGroups = tail === undefined ? [] : parseGroups(tail);
  // An embedded IPv4 address (::ffff:1.2.3.4) is two groups.
  const expand = (list: string[]): string[] =>
    list.flatMap((g) => {
      if (!g.includes('.')) return [g];
      const v4 = ipToBigInt(g);
      return [(v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16)];
    });
  groups = expand(groups);
  tailGroups = expand(tailGroups);
  const missing = 8 - groups.length - tailGroups.length;
  const all = tail === undefined ? groups : [...groups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

export function bigIntToIP(value: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  // The shortest form: the longest run of two or more zero groups becomes `::`.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLength).join(':')}`;
}

/** The range of a CIDR; null when it is not one or holds no allocatable address. */
export function parseIPRange(cidr: string): IPRange | null {
  const parsed = parseCIDR(cidr);
  if (!parsed) return null;
  const bits = parsed.family === 4 ? 32 : 128;
  const hostBits = BigInt(bits - parsed.prefixLength);
  const base = (ipToBigInt(parsed.address) >> hostBits) << hostBits;
  const total = 1n << hostBits;
  const usable = parsed.family === 4 ? total - 2n : total - 1n;
  const size = usable > BigInt(maxRangeSize) ? maxRangeSize : Number(usable);
  if (size <= 0) return null;
  return { cidr: `${bigIntToIP(base, parsed.family)}/${parsed.prefixLength}`, family: parsed.family, base, size };
}

/** The offset of `ip` in the range; undefined when it is outside the allocatable addresses. */
export function offsetOf(range: IPRange, ip: string): number | undefined {
  const family = isIP(ip);
  if (family !== range.family) return undefined;
  const offset = ipToBigInt(ip) - range.base - 1n;
  return offset >= 0n && offset < BigInt(range.size) ? Number(offset) : undefined;
}

export function addressAt(range: IPRange, offset: number): string {
  return bigIntToIP(range.base + 1n + BigInt(offset), range.family);
}

/**
 * upstream's calculateRangeOffset: the lower band reserved for addresses asked for by name
 * (KEP-3070), which dynamic allocation uses only when the upper band is full:
 * min(max(16, cidrSize/16), 256), none for ranges of 16 addresses or fewer.
 */
export function staticBandSize(range: IPRange): number {
  const cidrSize = range.family === 4 ? range.size + 2 : range.size + 1;
  if (cidrSize <= 16) return 0;
  return Math.min(Math.max(16, Math.floor(cidrSize / 16)), 256);
}
