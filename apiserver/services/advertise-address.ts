/**
 * The address a replica advertises in the `kubernetes` endpoints when --advertise-address is unset,
 * by upstream's rule (SecureServingOptions.DefaultExternalAddress, utilnet.ResolveBindAddress): the
 * bind address, unless it is unspecified (0.0.0.0, ::) or loopback, then the host's address. upstream
 * picks the address of the interface holding the default route; corral takes the first
 * non-loopback, non-link-local IPv4 address of the host's interfaces (then IPv6), and 127.0.0.1 when
 * there is none (which endpoints validation refuses, as upstream would fail to start).
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

type Interfaces = ReturnType<typeof networkInterfaces>;

const isLoopback = (ip: string): boolean => ip.startsWith('127.') || ip === '::1';
const isUnspecified = (ip: string): boolean => ip === '0.0.0.0' || ip === '::';
const isLinkLocal = (ip: string): boolean => ip.startsWith('169.254.') || /^fe[89ab][0-9a-f]:/i.test(ip);

/** The host's first usable address: IPv4 first, then IPv6; undefined when it has none. */
export function hostAddress(interfaces: Interfaces = networkInterfaces()): string | undefined {
  const all = Object.values(interfaces).flatMap((list) => list ?? []);
  const usable = all.filter((a) => !a.internal && !isLoopback(a.address) && !isLinkLocal(a.address));
  return (usable.find((a) => a.family === 'IPv4') ?? usable.find((a) => a.family === 'IPv6'))?.address;
}

export function defaultAdvertiseAddress(advertise: string, bindAddress: string, interfaces?: Interfaces): string {
  if (advertise && !isUnspecified(advertise)) return advertise;
  if (isIP(bindAddress) && !isUnspecified(bindAddress) && !isLoopback(bindAddress)) return bindAddress;
  return hostAddress(interfaces) ?? '127.0.0.1';
}
