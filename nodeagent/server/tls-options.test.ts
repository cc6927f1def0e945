import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serverTlsOptions } from './tls-options.ts';

describe('serverTlsOptions', () => {
  it('leaves node defaults for empty settings', () => {
    assert.deepEqual(serverTlsOptions([], ''), { warnings: [] });
  });

  it('maps Go names to OpenSSL names, keeping TLS 1.3 suites as Go does', () => {
    const options = serverTlsOptions(['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305'], 'VersionTLS12');
    assert.equal(options.minVersion, 'TLSv1.2');
    const ciphers = options.ciphers?.split(':') ?? [];
    assert.deepEqual(
      ciphers.filter((c) => !c.startsWith('TLS_')),
      ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-CHACHA20-POLY1305'],
    );
    assert.ok(ciphers.includes('TLS_AES_128_GCM_SHA256'));
    assert.deepEqual(options.warnings, []);
  });

  it('warns about insecure suites and suites ignored under TLS 1.3', () => {
    assert.deepEqual(serverTlsOptions(['TLS_RSA_WITH_AES_128_CBC_SHA'], 'VersionTLS13').warnings, [
      'Use of insecure cipher detected. cipher="TLS_RSA_WITH_AES_128_CBC_SHA"',
      'Warning: TLS 1.3 cipher suites are not configurable, ignoring --tls-cipher-suites',
    ]);
  });

  it("refuses unknown names with cliflag's errors", () => {
    assert.throws(() => serverTlsOptions(['TLS_FOO'], ''), { message: "Cipher suite TLS_FOO not supported or doesn't exist" });
    assert.throws(() => serverTlsOptions([], 'VersionTLS14'), { message: 'unknown tls version "VersionTLS14"' });
  });
});
