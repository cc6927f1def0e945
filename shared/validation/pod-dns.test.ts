import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FieldPath, fieldErrorString } from '../api/field.ts';
import type { PodSpec } from '../api/pod.ts';
import { validateHostAliases, validatePodDNSConfig } from './pod-dns.ts';

const spec = FieldPath.root('spec');
const dnsConfig = (s: PodSpec): string[] => validatePodDNSConfig(s, spec.child('dnsConfig')).map(fieldErrorString);
const hostAliases = (s: PodSpec): string[] => validateHostAliases(s.hostAliases, spec.child('hostAliases')).map(fieldErrorString);
const ipMessage = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const subdomain =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('validatePodDNSConfig', () => {
  it('accepts a valid config, and none outside dnsPolicy None', () => {
    assert.deepEqual(
      dnsConfig({
        dnsPolicy: 'None',
        dnsConfig: { nameservers: ['10.0.0.10', '2001:db8::53'], searches: ['svc.cluster.local.', 'example.com'], options: [{ name: 'ndots', value: '2' }] },
      }),
      [],
    );
    assert.deepEqual(dnsConfig({ dnsPolicy: 'ClusterFirst' }), []);
  });

  const cases: [string, PodSpec, string[]][] = [
    ['dnsPolicy None without config', { dnsPolicy: 'None' }, ['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None']],
    [
      'dnsPolicy None without name servers',
      { dnsPolicy: 'None', dnsConfig: { searches: ['example.com'] } },
      ['spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None'],
    ],
    [
      'too many and invalid name servers',
      { dnsPolicy: 'ClusterFirst', dnsConfig: { nameservers: ['1.1.1.1', '8.8.8.8', '9.9.9.9', 'dns.example.com'] } },
      [
        'spec.dnsConfig.nameservers: Invalid value: ["1.1.1.1","8.8.8.8","9.9.9.9","dns.example.com"]: must not have more than 3 nameservers',
        `spec.dnsConfig.nameservers[3]: Invalid value: "dns.example.com": ${ipMessage}`,
      ],
    ],
    [
      'bad search domains and unnamed options',
      { dnsConfig: { searches: ['Bad_Domain.', 'ok.example'], options: [{ value: '1' }] } },
      [`spec.dnsConfig.searches[0]: Invalid value: "Bad_Domain": ${subdomain}`, 'spec.dnsConfig.options[0]: Required value: must not be empty'],
    ],
  ];
  for (const [name, s, expected] of cases) {
    it(`rejects ${name}`, () => assert.deepEqual(dnsConfig(s), expected));
  }

  it('limits the number and the total length of search domains', () => {
    const many = Array.from({ length: 33 }, (_, i) => `d${i}.example.com`);
    assert.deepEqual(dnsConfig({ dnsConfig: { searches: many } }), [
      `spec.dnsConfig.searches: Invalid value: ${JSON.stringify(many)}: must not have more than 32 search paths`,
    ]);
    const long = Array.from({ length: 11 }, (_, i) => `${String.fromCharCode(97 + i)}${'x'.repeat(61)}.${'y'.repeat(63)}.${'z'.repeat(63)}.com`);
    assert.deepEqual(dnsConfig({ dnsConfig: { searches: long } }), [
      `spec.dnsConfig.searches: Invalid value: ${JSON.stringify(long)}: must not have more than 2048 characters (including spaces) in the search list`,
    ]);
  });
});

describe('validateHostAliases', () => {
  it('accepts valid aliases', () => {
    assert.deepEqual(hostAliases({ hostAliases: [{ ip: '127.0.0.1', hostnames: ['foo.local', 'bar'] }] }), []);
  });

  it('rejects bad IPs and host names', () => {
    assert.deepEqual(hostAliases({ hostAliases: [{ ip: '300.0.0.1', hostnames: ['ok', 'Not_OK'] }, { hostnames: [] }] }), [
      `spec.hostAliases[0].ip: Invalid value: "300.0.0.1": ${ipMessage}`,
      `spec.hostAliases[0].hostnames[1]: Invalid value: "Not_OK": ${subdomain}`,
      `spec.hostAliases[1].ip: Invalid value: "": ${ipMessage}`,
    ]);
  });
});
