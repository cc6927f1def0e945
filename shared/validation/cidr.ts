/**
 * Go's netutils.ParseCIDRSloppy (k8s.io/utils/net), which validation of older kinds uses where
 * network.ts's parseCIDR is too strict: IPv4 octets and the prefix length may carry leading zeros.
 */
import { parseCIDR } from './network.ts';

/** The address as written is IPv4, or IPv4 mapped into IPv6 (Go's To4 accepts both). */
export type SloppyCIDR = { isIPv4: boolean; prefixLength: number };

const dottedQuad = /^\d+(\.\d+){3}$/;
const ipv4Mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+|[0-9a-f]{1,4}:[0-9a-f]{1,4})$/i;

/** Like net.ParseCIDR, but with leading zeros allowed; null when it is no CIDR. */
export function parseCIDRSloppy(value: string): SloppyCIDR | null {
  const slash = value.indexOf('/');
  if (slash < 0) return null;
  let address = value.slice(0, slash);
  const bits = value.slice(slash + 1);
  if (dottedQuad.test(address))
    address = address
      .split('.')
      .map((octet) => String(Number(octet)))
      .join('.');
  // Zones (fe80::1%eth0) are valid for node's isIP, and so for parseCIDR, but not for Go in a CIDR.
  if (address.includes('%') || !/^\d+$/.test(bits)) return null;
  const parsed = parseCIDR(`${address}/${Number(bits)}`);
  if (!parsed) return null;
  return { isIPv4: parsed.family === 4 || ipv4Mapped.test(address), prefixLength: parsed.prefixLength };
}
