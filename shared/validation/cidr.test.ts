import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCIDRSloppy } from './cidr.ts';

describe('parseCIDRSloppy', () => {
  it('reads IPv4 and IPv6 CIDRs, IPv4 octets with leading zeros included', () => {
    assert.deepEqual(parseCIDRSloppy('10.0.0.0/8'), { isIPv4: true, prefixLength: 8 });
    assert.deepEqual(parseCIDRSloppy('010.000.0.0/16'), { isIPv4: true, prefixLength: 16 });
    assert.deepEqual(parseCIDRSloppy('fd00::/48'), { isIPv4: false, prefixLength: 48 });
  });

  it('counts an IPv4-mapped IPv6 address as IPv4, as Go does', () => {
    assert.deepEqual(parseCIDRSloppy('::ffff:10.0.0.0/104'), { isIPv4: true, prefixLength: 104 });
  });

  it('refuses what is no CIDR: no prefix, a prefix too long, a zone', () => {
    for (const bad of ['10.0.0.0', '10.0.0.0/33', 'fd00::/129', 'fe80::1%eth0/64', '10.0.0.0/x', 'host/8']) assert.equal(parseCIDRSloppy(bad), null, bad);
  });
});
