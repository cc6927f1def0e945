import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString, FieldPath } from '../api/field.ts';
import type { Endpoints } from '../api/endpoints.ts';
import { validateEndpoints, validateNonSpecialIP } from './endpoints.ts';

const endpoints = (subsets: Endpoints['subsets']): Endpoints => ({ metadata: { name: 'web', namespace: 'default' }, subsets });
const messages = (ep: Endpoints): string[] => validateEndpoints(ep).map(fieldErrorString);

describe('Endpoints validation', () => {
  it('accepts addresses with named ports', () => {
    assert.deepEqual(
      messages(
        endpoints([
          {
            addresses: [{ ip: '10.1.2.3' }],
            ports: [
              { name: 'a', port: 80, protocol: 'TCP' },
              { name: 'b', port: 81, protocol: 'UDP' },
            ],
          },
        ]),
      ),
      [],
    );
  });

  it("reports upstream's causes", () => {
    assert.deepEqual(
      messages(
        endpoints([
          { ports: [{ port: 80, protocol: 'TCP' }] },
          {
            addresses: [{ ip: '127.0.0.1', hostname: 'Bad_Host' }, { ip: 'x' }],
            ports: [
              { port: 0, protocol: 'ICMP' },
              { name: 'b', port: 1, protocol: 'TCP' },
            ],
          },
        ]),
      ),
      [
        'subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`',
        "subsets[1].addresses[0].hostname: Invalid value: \"Bad_Host\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'subsets[1].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        'subsets[1].addresses[1].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        'subsets[1].addresses[1].ip: Invalid value: "x": must be a valid IP address',
        'subsets[1].ports[0].name: Required value',
        'subsets[1].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
        'subsets[1].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      ],
    );
  });

  it('refuses special addresses', () => {
    const path = FieldPath.root('ip');
    const check = (ip: string): string[] => validateNonSpecialIP(ip, path).map((e) => e.detail);
    assert.deepEqual(check('0.0.0.0'), ['may not be unspecified (0.0.0.0)']);
    assert.deepEqual(check('::1'), ['may not be in the loopback range (127.0.0.0/8, ::1/128)']);
    assert.deepEqual(check('169.254.1.1'), ['may not be in the link-local range (169.254.0.0/16, fe80::/10)']);
    assert.deepEqual(check('224.0.0.5'), ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']);
    assert.deepEqual(check('192.0.2.1'), []);
  });
});
