/** IP address and CIDR checks with upstream's messages (k8s.io/apimachinery/pkg/util/validation). */
import { isIP } from 'node:net';
import { invalid, type FieldError, type FieldPath } from '../api/field.ts';

export interface ParsedCIDR {
  family: 4 | 6;
  address: string;
  prefixLength: number;
}

/** Parses `a.b.c.d/n` or `x::y/n`; null when it is not a CIDR. */
export function parseCIDR(value: string): ParsedCIDR | null {
  const slash = value.indexOf('/');
  if (slash < 0) return null;
  const address = value.slice(0, slash);
  const bits = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return null;
  const family = isIP(address);
  if (family !== 4 && family !== 6) return null;
  const prefixLength = Number(bits);
  if (prefixLength > (family === 4 ? 32 : 128)) return null;
  return { family, address, prefixLength };
}

export function ipFamily(value: string): 4 | 6 | null {
  const family = isIP(value);
  return family === 4 || family === 6 ? family : null;
}

export function validateCIDR(path: FieldPath, value: string): FieldError[] {
  return parseCIDR(value) ? [] : [invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

export function validateIP(path: FieldPath, value: string): FieldError[] {
  return ipFamily(value) ? [] : [invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}
