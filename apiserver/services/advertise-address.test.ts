import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { networkInterfaces } from 'node:os';
import { defaultAdvertiseAddress } from './advertise-address.ts';

type Interfaces = ReturnType<typeof networkInterfaces>;

const address = (address: string, family: 'IPv4' | 'IPv6', internal = false): NonNullable<Interfaces[string]>[number] =>
  family === 'IPv4'
    ? { address, family, internal, netmask: '255.255.255.0', mac: '00:00:00:00:00:00', cidr: `${address}/24` }
    : { address, family, internal, netmask: 'ffff:ffff:ffff:ffff::', mac: '00:00:00:00:00:00', cidr: `${address}/64`, scopeid: 0 };

const host: Interfaces = {
  lo: [address('127.0.0.1', 'IPv4', true), address('::1', 'IPv6', true)],
  eth0: [address('fe80::1', 'IPv6'), address('2001:db8::5', 'IPv6'), address('192.0.2.5', 'IPv4')],
};

describe('the default advertise address', () => {
  it('is the flag when given', () => assert.equal(defaultAdvertiseAddress('192.0.2.9', '0.0.0.0', host), '192.0.2.9'));
  it('is the bind address when it is a specific, non-loopback one', () => assert.equal(defaultAdvertiseAddress('', '192.0.2.8', host), '192.0.2.8'));
  it("is the host's address for an unspecified or loopback bind address (upstream's ResolveBindAddress)", () => {
    assert.equal(defaultAdvertiseAddress('', '0.0.0.0', host), '192.0.2.5');
    assert.equal(defaultAdvertiseAddress('', '127.0.0.1', host), '192.0.2.5');
    assert.equal(defaultAdvertiseAddress('', '::', { eth0: [address('2001:db8::5', 'IPv6')] }), '2001:db8::5');
  });
  it('is 127.0.0.1 on a host without another address', () => assert.equal(defaultAdvertiseAddress('', '0.0.0.0', { lo: host.lo }), '127.0.0.1'));
});
