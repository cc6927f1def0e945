/**
 * tlsCipherSuites and tlsMinVersion, named as Go's crypto/tls names them (what component-base's
 * cliflag accepts), turned into node:tls options, with cliflag's errors for unknown names.
 *
 * As in Go, the list governs TLS 1.2 and below only: TLS 1.3 suites are not configurable there,
 * so node's TLS 1.3 defaults are always appended here. An empty list or version leaves node's
 * defaults (TLS 1.2 minimum, like Go's servers since Go 1.22).
 */
import { DEFAULT_CIPHERS, type SecureVersion } from 'node:tls';

/** Go's cipher suite names (secure and insecure, as cliflag knows them) and OpenSSL's names for them. */
const cipherSuites: Readonly<Record<string, string>> = {
  // TLS 1.3: accepted, as Go accepts them, though they change nothing.
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  // Insecure: accepted, with a warning, as upstream does.
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};

/** The names cliflag.InsecureTLSCiphers lists: using one is logged. */
const insecureCipherSuites = new Set([
  'TLS_RSA_WITH_RC4_128_SHA',
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA',
  'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
]);

const versions: Readonly<Record<string, SecureVersion>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

export interface ServerTlsOptions {
  /** An OpenSSL cipher list, or undefined for node's default. */
  ciphers?: string;
  minVersion?: SecureVersion;
  /** What upstream logs on the way (insecure suites, suites ignored under TLS 1.3). */
  warnings: string[];
}

/** The node:tls options for the configured suites and minimum version; throws cliflag's error for an unknown name. */
export function serverTlsOptions(cipherSuiteNames: readonly string[], minVersionName: string): ServerTlsOptions {
  const warnings: string[] = [];
  const names: string[] = [];
  for (const suite of cipherSuiteNames) {
    const name = cipherSuites[suite];
    if (name === undefined) throw new Error(`Cipher suite ${suite} not supported or doesn't exist`);
    if (insecureCipherSuites.has(suite)) warnings.push(`Use of insecure cipher detected. cipher=${JSON.stringify(suite)}`);
    names.push(name);
  }
  let minVersion: SecureVersion | undefined;
  if (minVersionName !== '') {
    minVersion = versions[minVersionName];
    if (minVersion === undefined) throw new Error(`unknown tls version ${JSON.stringify(minVersionName)}`);
  }
  if (minVersion === 'TLSv1.3' && names.length) warnings.push('Warning: TLS 1.3 cipher suites are not configurable, ignoring --tls-cipher-suites');
  const tls13 = DEFAULT_CIPHERS.split(':').filter((name) => name.startsWith('TLS_'));
  const tls12 = names.filter((name) => !name.startsWith('TLS_'));
  return {
    ...(names.length ? { ciphers: [...tls13, ...new Set(tls12)].join(':') } : {}),
    ...(minVersion ? { minVersion } : {}),
    warnings,
  };
}
