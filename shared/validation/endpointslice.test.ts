import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../api/field.ts';
import type { EndpointSlice } from '../api/endpointslice.ts';
import { applyEndpointSliceDefaults, validateEndpointSlice, validateEndpointSliceUpdate } from './endpointslice.ts';

const slice = (fields: Partial<EndpointSlice>): EndpointSlice => ({
  metadata: { name: 's', namespace: 'default' },
  addressType: 'IPv4',
  endpoints: [],
  ...fields,
});
const messages = (s: EndpointSlice): string[] => validateEndpointSlice(s).map(fieldErrorString);

describe('EndpointSlice validation', () => {
  it('accepts a slice and defaults its ports', () => {
    const s = slice({ endpoints: [{ addresses: ['10.1.2.3'], conditions: { ready: true } }], ports: [{ port: 80 }] });
    applyEndpointSliceDefaults(s);
    assert.deepEqual(s.ports, [{ name: '', protocol: 'TCP', port: 80 }]);
    assert.deepEqual(messages(s), []);
  });

  it("reports upstream's causes", () => {
    assert.deepEqual(messages(slice({ addressType: '' })), ['addressType: Required value']);
    assert.deepEqual(messages(slice({ addressType: 'IPX' })), ['addressType: Unsupported value: "IPX": supported values: "FQDN", "IPv4", "IPv6"']);
    assert.deepEqual(
      messages(
        slice({
          endpoints: [{ addresses: [] }, { addresses: ['fd00::1', '127.0.0.2'] }],
          ports: [
            { name: 'a', protocol: 'TCP' },
            { name: 'a', protocol: 'ICMP' },
          ],
        }),
      ),
      [
        'endpoints[0].addresses: Required value: must contain at least 1 address',
        'endpoints[1].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address',
        'endpoints[1].addresses[1]: Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        'ports[1].name: Duplicate value: "a"',
        'ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      ],
    );
  });

  it('keeps addressType immutable', () => {
    assert.deepEqual(validateEndpointSliceUpdate(slice({ addressType: 'IPv6' }), slice({})).map(fieldErrorString), [
      'addressType: Invalid value: "IPv6": field is immutable',
    ]);
  });
});
