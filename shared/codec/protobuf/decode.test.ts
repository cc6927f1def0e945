import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { array, boolean, int32, int64, kindSchema, map, object, pb, quantity, string, time } from '../../api/schema.ts';
import { decodeMessage } from './decode.ts';
import { encodeMessage } from './encode.ts';
import { decodeObject, encodeObject } from './object.ts';
import { fromHex } from './test-fixtures.ts';

describe('Node-like objects', () => {
  const condition = object({
    type: pb(1, string()),
    status: pb(2, string()),
    lastHeartbeatTime: pb(3, time()),
    lastTransitionTime: pb(4, time()),
    reason: pb(5, string()),
    message: pb(6, string()),
  });
  const nodeSchema = kindSchema({
    spec: pb(
      2,
      object({
        podCIDR: pb(1, string()),
        podCIDRs: pb(7, array(string())),
        unschedulable: pb(4, boolean()),
        taints: pb(5, array(object({ key: pb(1, string()), value: pb(2, string()), effect: pb(3, string()), timeAdded: pb(4, time(), 'optional') }))),
      }),
    ),
    status: pb(
      3,
      object({
        capacity: pb(1, map(quantity())),
        allocatable: pb(2, map(quantity())),
        conditions: pb(4, array(condition)),
        addresses: pb(5, array(object({ type: pb(1, string()), address: pb(2, string()) }))),
        daemonEndpoints: pb(6, object({ kubeletEndpoint: pb(1, object({ Port: pb(1, int32()) })) })),
        images: pb(8, array(object({ names: pb(1, array(string())), sizeBytes: pb(2, int64()) }))),
      }),
    ),
  });

  it('round-trips maps of quantities, nested lists and times', () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' }, creationTimestamp: '2024-05-01T10:00:00Z' },
      spec: { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24', 'fd00::/64'], taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2024-05-01T10:00:01Z' }] },
      status: {
        capacity: { cpu: '4', memory: '16374532Ki', pods: '110', 'hugepages-2Mi': '0' },
        allocatable: { cpu: '3800m', memory: '15G' },
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            lastHeartbeatTime: '2024-05-01T10:00:05Z',
            lastTransitionTime: '2024-05-01T10:00:00Z',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
          },
        ],
        addresses: [
          { type: 'InternalIP', address: '10.1.2.3' },
          { type: 'Hostname', address: 'node-1' },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        images: [{ names: ['registry.k8s.io/pause:3.9'], sizeBytes: 321_520_123_456 }],
      },
    };
    const decoded = decodeObject(encodeObject(node, nodeSchema), nodeSchema);
    assert.deepEqual(decoded, { ...node, status: { ...node.status, capacity: { cpu: '4', 'hugepages-2Mi': '0', memory: '16374532Ki', pods: '110' } } });
  });

  it('skips unknown fields of every wire type', () => {
    const known = encodeMessage({ metadata: { name: 'n' }, spec: { podCIDR: 'a' } }, nodeSchema);
    const unknown = fromHex(
      [
        'b806 96 01', // field 103, varint 150
        'c106 0102030405060708', // field 104, fixed64
        'ca06 03 616263', // field 105, bytes
        'd506 01020304', // field 106, fixed32
        'db06 0801 e306 0a01 78 e406 dc06', // field 107 group holding a varint and a nested group
      ].join(''),
    );
    const decoded = decodeMessage(Buffer.concat([unknown, known, unknown]), nodeSchema);
    assert.deepEqual(decoded, { metadata: { name: 'n' }, spec: { podCIDR: 'a' } });
  });

  it('skips unknown groups nested 100,000 deep without recursion, and refuses unmatched ones', () => {
    const known = encodeMessage({ metadata: { name: 'n' } }, nodeSchema);
    const depth = 100_000;
    const open = fromHex('db06'); // field 107, start group
    const close = fromHex('dc06'); // field 107, end group
    const nested = Buffer.concat([...Array<Uint8Array>(depth).fill(open), ...Array<Uint8Array>(depth).fill(close)]);
    assert.deepEqual(decodeMessage(Buffer.concat([nested, known]), nodeSchema), { metadata: { name: 'n' } });
    assert.throws(() => decodeMessage(Buffer.concat([open, fromHex('e406'), known]), nodeSchema), /unmatched end group/);
  });

  it('rejects truncated input', () => {
    const bytesOf = encodeMessage({ metadata: { name: 'node' } }, nodeSchema);
    assert.throws(() => decodeMessage(bytesOf.subarray(0, bytesOf.length - 1), nodeSchema), /unexpected EOF/);
    assert.throws(() => decodeMessage(fromHex('0a0501'), nodeSchema), /unexpected EOF/);
    assert.throws(() => decodeMessage(fromHex('08 01'), nodeSchema), /wrong wireType = 0 for field metadata/);
  });
});
