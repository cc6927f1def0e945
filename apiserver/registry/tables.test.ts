/**
 * Every kind's Table as upstream's printers (pkg/printers/internalversion) define it: column names,
 * types, formats and priorities, and the cells of representative objects (wide ones included, as the
 * server always prints them).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../shared/api/types.ts';
import { formatTimeOf } from '../../shared/go/time.ts';
import type { ResourceDefinition } from './definition.ts';
import { csrDefinition } from './certificates/csr/csr.ts';
import { leaseDefinition } from './coordination/lease.ts';
import { componentStatusDefinition, etcdComponentStatus } from './core/componentstatus.ts';
import { configMapDefinition } from './core/configmap.ts';
import { coreEventDefinition } from './core/event.ts';
import { namespaceDefinition } from './core/namespace.ts';
import { nodeDefinition } from './core/node/node.ts';
import { secretDefinition } from './core/secret.ts';
import { eventsV1EventDefinition } from './events/event.ts';
import { clusterCIDRDefinition } from './networking/clustercidr.ts';
import { csiDriverDefinition } from './volumes/csidriver.ts';
import { csiNodeDefinition } from './volumes/csinode.ts';
import { csiStorageCapacityDefinition } from './volumes/csistoragecapacity.ts';
import { quantityString } from '../../shared/api/quantity.ts';
import { volumeAttachmentDefinition } from './volumes/volumeattachment.ts';
import { endpointsDefinition } from './core/endpoints/endpoints.ts';
import { serviceDefinition } from './core/service/service.ts';
import { endpointSliceDefinition } from './discovery/endpointslice.ts';

const now = new Date('2024-05-01T12:00:00Z');
/** A time `seconds` before now, as metav1.Time marshals it. */
const ago = (seconds: number): string => formatTimeOf(new Date(now.getTime() - seconds * 1000));
const created = ago(200);

/** [name, type, format, priority] of each column; format and priority as served (empty, 0). */
function columns<T extends KubeObject>(def: ResourceDefinition<T>): [string, string, string, number][] {
  assert.ok(def.table, `${def.kind} has a table`);
  return def.table.columns.map((c) => [c.name, c.type, c.format ?? '', c.priority ?? 0]);
}

function cells<T extends KubeObject>(def: ResourceDefinition<T>, obj: Omit<T, 'metadata'> & { metadata?: T['metadata'] }): unknown[] {
  assert.ok(def.table, `${def.kind} has a table`);
  return def.table.cells({ ...obj, metadata: { name: 'x', creationTimestamp: created, ...obj.metadata } } as T, now);
}

const name: [string, string, string, number] = ['Name', 'string', 'name', 0];
const ageCol: [string, string, string, number] = ['Age', 'string', '', 0];

describe('ConfigMap table', () => {
  it('has Name, Data, Age', () => {
    assert.deepEqual(columns(configMapDefinition), [name, ['Data', 'string', '', 0], ageCol]);
    assert.match(configMapDefinition.table?.columns[1]?.description ?? '', /^Data contains the configuration data\./);
  });
  it('counts data and binaryData keys', () => {
    assert.deepEqual(cells(configMapDefinition, { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }), [
      'x',
      3,
      '3m20s',
    ]);
    assert.deepEqual(cells(configMapDefinition, { apiVersion: 'v1', kind: 'ConfigMap' }), ['x', 0, '3m20s']);
  });
});

describe('Secret table', () => {
  it('has Name, Type, Data, Age', () => {
    assert.deepEqual(columns(secretDefinition), [name, ['Type', 'string', '', 0], ['Data', 'string', '', 0], ageCol]);
  });
  it('shows the type and the number of keys', () => {
    assert.deepEqual(cells(secretDefinition, { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', data: { 'tls.crt': 'AA==', 'tls.key': 'AA==' } }), [
      'x',
      'kubernetes.io/tls',
      2,
      '3m20s',
    ]);
    // stringData merges into data, as in upstream's internal form.
    assert.deepEqual(cells(secretDefinition, { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', data: { a: 'AA==' }, stringData: { a: 'z', b: 'y' } }), [
      'x',
      'Opaque',
      2,
      '3m20s',
    ]);
  });
});

describe('Namespace table', () => {
  it('has Name, Status, Age with the phase', () => {
    assert.deepEqual(columns(namespaceDefinition), [name, ['Status', 'string', '', 0], ageCol]);
    assert.equal(namespaceDefinition.table?.columns[1]?.description, 'The status of the namespace');
    assert.deepEqual(cells(namespaceDefinition, { apiVersion: 'v1', kind: 'Namespace', status: { phase: 'Terminating' } }), ['x', 'Terminating', '3m20s']);
    assert.deepEqual(cells(namespaceDefinition, { apiVersion: 'v1', kind: 'Namespace' }), ['x', '', '3m20s']);
  });
});

describe('Node table', () => {
  it('has Name, Status, Roles, Age, Version and wide address and system columns', () => {
    assert.deepEqual(columns(nodeDefinition), [
      name,
      ['Status', 'string', '', 0],
      ['Roles', 'string', '', 0],
      ageCol,
      ['Version', 'string', '', 0],
      ['Internal-IP', 'string', '', 1],
      ['External-IP', 'string', '', 1],
      ['OS-Image', 'string', '', 1],
      ['Kernel-Version', 'string', '', 1],
      ['Container-Runtime', 'string', '', 1],
    ]);
    assert.equal(nodeDefinition.table?.columns[4]?.description, 'Kubelet Version reported by the node.');
  });

  it('prints a ready, cordoned control-plane node', () => {
    const row = cells(nodeDefinition, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'n1',
        creationTimestamp: ago(2 * 86400 + 5 * 3600),
        labels: {
          'node-role.kubernetes.io/control-plane': '',
          'kubernetes.io/role': 'master',
          'node-role.kubernetes.io/': 'x',
          'node-role.kubernetes.io/etcd': 'true',
        },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [
          { type: 'MemoryPressure', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
        addresses: [
          { type: 'Hostname', address: 'n1' },
          { type: 'InternalIP', address: '10.0.0.1' },
          { type: 'InternalIP', address: '10.0.0.2' },
          { type: 'ExternalIP', address: '1.2.3.4' },
        ],
        nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.0' },
      },
    });
    assert.deepEqual(row, [
      'n1',
      'Ready,SchedulingDisabled',
      'control-plane,etcd,master',
      '2d5h',
      'v1.32.0',
      '10.0.0.1',
      '1.2.3.4',
      'Debian',
      '6.1.0',
      'containerd://1.7.0',
    ]);
  });

  it('prints NotReady, Unknown, <none> roles and unknown system info', () => {
    const notReady = cells(nodeDefinition, { apiVersion: 'v1', kind: 'Node', status: { conditions: [{ type: 'Ready', status: 'False' }] } });
    assert.deepEqual(notReady, ['x', 'NotReady', '<none>', '3m20s', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
    assert.equal(cells(nodeDefinition, { apiVersion: 'v1', kind: 'Node', status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } })[1], 'NotReady');
    assert.equal(cells(nodeDefinition, { apiVersion: 'v1', kind: 'Node' })[1], 'Unknown');
    assert.equal(cells(nodeDefinition, { apiVersion: 'v1', kind: 'Node', spec: { unschedulable: true } })[1], 'Unknown,SchedulingDisabled');
    assert.equal(cells(nodeDefinition, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'x', labels: { 'kubernetes.io/role': '' } } })[2], '<none>');
  });
});

describe('Event tables', () => {
  const eventColumns: [string, string, string, number][] = [
    ['Last Seen', 'string', '', 0],
    ['Type', 'string', '', 0],
    ['Reason', 'string', '', 0],
    ['Object', 'string', '', 0],
    ['Subobject', 'string', '', 1],
    ['Source', 'string', '', 1],
    ['Message', 'string', '', 0],
    ['First Seen', 'string', '', 1],
    ['Count', 'string', '', 1],
    ['Name', 'string', 'name', 1],
  ];

  it('are the same for core and events.k8s.io events', () => {
    assert.deepEqual(columns(coreEventDefinition), eventColumns);
    assert.deepEqual(columns(eventsV1EventDefinition), eventColumns);
    assert.equal(coreEventDefinition.table?.columns[3]?.description, 'The object that this event is about.');
  });

  it('print a legacy event', () => {
    const row = cells(coreEventDefinition, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web-1.17a', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'web-1', fieldPath: 'spec.containers{app}' },
      reason: 'Started',
      message: '  Started container app\n',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: ago(600),
      lastTimestamp: ago(60),
      count: 5,
      type: 'Normal',
    });
    assert.deepEqual(row, ['60s', 'Normal', 'Started', 'pod/web-1', 'spec.containers{app}', 'kubelet, node-1', 'Started container app', '10m', 5, 'web-1.17a']);
  });

  it('fall back to eventTime, reporting fields and a count of 1 for new-style singletons', () => {
    const row = cells(coreEventDefinition, {
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: { kind: 'Node' },
      eventTime: '2024-05-01T11:59:30.123456Z',
      reportingComponent: 'ctrl',
      type: 'Warning',
    });
    assert.deepEqual(row, ['29s', 'Warning', '', 'node', '', 'ctrl', '', '29s', 1, 'x']);
    const bare = cells(coreEventDefinition, { apiVersion: 'v1', kind: 'Event', involvedObject: {}, count: 2, source: { host: 'h' } });
    assert.deepEqual(bare, ['<unknown>', '', '', '', '', ', h', '', '<unknown>', 2, 'x']);
  });

  it('print an events.k8s.io series from its core form', () => {
    const row = cells(eventsV1EventDefinition, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e1' },
      eventTime: ago(3 * 3600 + 60),
      series: { count: 7, lastObservedTime: ago(2) },
      reportingController: 'example.com/ctrl',
      reportingInstance: 'ctrl-0',
      action: 'Sync',
      reason: 'Failed',
      regarding: { kind: 'Deployment', name: 'web', fieldPath: 'spec' },
      note: 'sync failed',
      type: 'Warning',
    });
    assert.deepEqual(row, ['2s', 'Warning', 'Failed', 'deployment/web', 'spec', 'example.com/ctrl, ctrl-0', 'sync failed', '3h1m', 7, 'e1']);
    const legacy = cells(eventsV1EventDefinition, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      eventTime: ago(100),
      regarding: { kind: 'Pod', name: 'p' },
      deprecatedSource: { component: 'kubelet' },
      deprecatedFirstTimestamp: ago(90),
      deprecatedLastTimestamp: ago(10),
      deprecatedCount: 4,
    });
    assert.deepEqual(legacy, ['10s', '', '', 'pod/p', '', 'kubelet', '', '90s', 4, 'x']);
  });
});

describe('ComponentStatus table', () => {
  const def = componentStatusDefinition(async () => []);
  it('has Name, Status, Message, Error and no Age', () => {
    assert.deepEqual(columns(def), [name, ['Status', 'string', '', 0], ['Message', 'string', '', 0], ['Error', 'string', '', 0]]);
  });
  it('reads the Healthy condition', () => {
    assert.ok(def.table);
    assert.deepEqual(def.table.cells(etcdComponentStatus('etcd-0', true), now), ['etcd-0', 'Healthy', 'ok', '']);
    assert.deepEqual(def.table.cells(etcdComponentStatus('etcd-0', false, 'timeout'), now), ['etcd-0', 'Unhealthy', '', 'timeout']);
    assert.deepEqual(def.table.cells({ apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'c' } }, now), ['c', 'Unknown', '', '']);
  });
});

describe('CertificateSigningRequest table', () => {
  it('has Name, Age, SignerName, Requestor, RequestedDuration, Condition', () => {
    assert.deepEqual(columns(csrDefinition), [
      name,
      ageCol,
      ['SignerName', 'string', '', 0],
      ['Requestor', 'string', '', 0],
      ['RequestedDuration', 'string', '', 0],
      ['Condition', 'string', '', 0],
    ]);
    // Upstream describes Requestor with the doc of spec.request.
    assert.equal(csrDefinition.table?.columns[3]?.description, 'Base64-encoded PKCS#10 CSR data');
  });

  const csr = (spec: Record<string, unknown>, status?: Record<string, unknown>) =>
    cells(csrDefinition, { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', spec, ...(status ? { status } : {}) });

  it('prints the requestor, duration and condition', () => {
    assert.deepEqual(csr({ signerName: 'kubernetes.io/kube-apiserver-client', username: 'alice', expirationSeconds: 3600 }), [
      'x',
      '3m20s',
      'kubernetes.io/kube-apiserver-client',
      'alice',
      '60m',
      'Pending',
    ]);
    const issued = csr(
      { signerName: 's.io/a', username: 'bob', expirationSeconds: 86400 * 3 },
      { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'LS0t' },
    );
    assert.deepEqual(issued.slice(2), ['s.io/a', 'bob', '3d', 'Approved,Issued']);
  });

  it('orders Denied before Approved and adds Failed; shows <none> for unset fields', () => {
    assert.equal(csr({}, { conditions: [{ type: 'Approved' }, { type: 'Denied' }] })[5], 'Denied');
    assert.equal(csr({}, { conditions: [{ type: 'Failed' }, { type: 'Approved' }] })[5], 'Approved,Failed');
    assert.equal(csr({}, { conditions: [{ type: 'Failed' }] })[5], 'Pending,Failed');
    assert.deepEqual(csr({}).slice(2), ['<none>', '', '<none>', 'Pending']);
    assert.equal(csr({ expirationSeconds: 600 })[4], '10m');
    assert.equal(csr({ expirationSeconds: 7200 })[4], '120m');
  });
});

describe('Lease table', () => {
  it('has Name, Holder, Age', () => {
    assert.deepEqual(columns(leaseDefinition), [name, ['Holder', 'string', '', 0], ageCol]);
    assert.deepEqual(cells(leaseDefinition, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: { holderIdentity: 'node-1' } }), [
      'x',
      'node-1',
      '3m20s',
    ]);
    assert.deepEqual(cells(leaseDefinition, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' }), ['x', '', '3m20s']);
  });
});

describe('CSIDriver table', () => {
  it('has boolean and string columns for the spec', () => {
    assert.deepEqual(columns(csiDriverDefinition), [
      name,
      ['AttachRequired', 'boolean', '', 0],
      ['PodInfoOnMount', 'boolean', '', 0],
      ['StorageCapacity', 'boolean', '', 0],
      ['TokenRequests', 'string', '', 0],
      ['RequiresRepublish', 'boolean', '', 0],
      ['Modes', 'string', '', 0],
      ageCol,
    ]);
  });
  it("prints upstream's defaults for unset fields", () => {
    assert.deepEqual(cells(csiDriverDefinition, { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', spec: {} }), [
      'x',
      true,
      false,
      false,
      '<unset>',
      false,
      '<none>',
      '3m20s',
    ]);
    assert.equal(cells(csiDriverDefinition, { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', spec: { tokenRequests: [] } })[4], '<unset>');
  });
  it('prints set fields', () => {
    const row = cells(csiDriverDefinition, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIDriver',
      spec: {
        attachRequired: false,
        podInfoOnMount: true,
        storageCapacity: true,
        tokenRequests: [{ audience: 'a' }, { audience: 'b', expirationSeconds: 3600 }],
        requiresRepublish: true,
        volumeLifecycleModes: ['Persistent', 'Ephemeral'],
      },
    });
    assert.deepEqual(row, ['x', false, true, true, 'a,b', true, 'Persistent,Ephemeral', '3m20s']);
  });
});

describe('CSINode table', () => {
  it('counts drivers', () => {
    assert.deepEqual(columns(csiNodeDefinition), [name, ['Drivers', 'integer', '', 0], ageCol]);
    assert.deepEqual(cells(csiNodeDefinition, { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', spec: { drivers: [{ name: 'a' }, { name: 'b' }] } }), [
      'x',
      2,
      '3m20s',
    ]);
    assert.deepEqual(cells(csiNodeDefinition, { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', spec: {} }), ['x', 0, '3m20s']);
  });
});

describe('CSIStorageCapacity table', () => {
  it('has Name, StorageClassName, Capacity and no Age', () => {
    assert.deepEqual(columns(csiStorageCapacityDefinition), [name, ['StorageClassName', 'string', '', 0], ['Capacity', 'string', '', 0]]);
  });
  it('prints the canonical capacity, <unset> without one', () => {
    const capacity = (value?: string | number) =>
      cells(csiStorageCapacityDefinition, {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'CSIStorageCapacity',
        storageClassName: 'fast',
        ...(value === undefined ? {} : { capacity: value }),
      });
    assert.deepEqual(capacity('10Gi'), ['x', 'fast', '10Gi']);
    assert.deepEqual(capacity('1024Mi'), ['x', 'fast', '1Gi']);
    assert.deepEqual(capacity(), ['x', 'fast', '<unset>']);
  });
  it("formats quantities as upstream's Quantity.String()", () => {
    const cases: [string | number, string][] = [
      ['0', '0'],
      ['0Gi', '0'],
      ['1Gi', '1Gi'],
      ['8Gi', '8Gi'],
      ['1024Mi', '1Gi'],
      ['1.5Gi', '1536Mi'],
      ['0.5Gi', '512Mi'],
      ['1023', '1023'],
      ['1024', '1024'],
      ['1000', '1k'],
      [1000, '1k'],
      ['1500', '1500'],
      ['1073741824', '1073741824'],
      ['0.5', '500m'],
      ['0.1', '100m'],
      ['2000m', '2'],
      ['1500m', '1500m'],
      ['100M', '100M'],
      ['12000M', '12G'],
      ['1e3', '1e3'],
      ['1.5e3', '1500'],
      ['1e6', '1e6'],
      ['10e5', '1e6'],
      ['0.1n', '1n'],
      ['-1Gi', '-1Gi'],
      ['1.1Ki', '1126400m'],
      ['not a quantity', 'not a quantity'],
    ];
    for (const [input, want] of cases) assert.equal(quantityString(input), want, `quantityString(${JSON.stringify(input)})`);
  });
});

describe('VolumeAttachment table', () => {
  it('has Name, Attacher, PV, Node, Attached, Age', () => {
    assert.deepEqual(columns(volumeAttachmentDefinition), [
      name,
      ['Attacher', 'string', 'name', 0],
      ['PV', 'string', '', 0],
      ['Node', 'string', '', 0],
      ['Attached', 'boolean', '', 0],
      ageCol,
    ]);
  });
  it('prints the spec and attachment state', () => {
    const va = { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment' };
    assert.deepEqual(
      cells(volumeAttachmentDefinition, {
        ...va,
        spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'n1' },
        status: { attached: true },
      }),
      ['x', 'csi.example.com', 'pv-1', 'n1', true, '3m20s'],
    );
    assert.deepEqual(cells(volumeAttachmentDefinition, { ...va, spec: { attacher: 'a', source: { inlineVolumeSpec: {} }, nodeName: 'n1' } }), [
      'x',
      'a',
      '',
      'n1',
      false,
      '3m20s',
    ]);
  });
});

describe('ClusterCIDR table', () => {
  it("has upstream 1.28's columns, NodeSelector wide", () => {
    assert.deepEqual(columns(clusterCIDRDefinition), [
      name,
      ['PerNodeHostBits', 'string', '', 0],
      ['IPv4', 'string', '', 0],
      ['IPv6', 'string', '', 0],
      ageCol,
      ['NodeSelector', 'string', '', 1],
    ]);
  });
  it('prints CIDRs and the node selector as Go prints its terms', () => {
    const row = cells(clusterCIDRDefinition, {
      apiVersion: 'networking.k8s.io/v1alpha1',
      kind: 'ClusterCIDR',
      spec: {
        perNodeHostBits: 8,
        ipv4: '10.0.0.0/8',
        nodeSelector: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: 'zone', operator: 'In', values: ['a', 'b'] },
                { key: 'gpu', operator: 'Exists' },
              ],
              matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n1'] }],
            },
            { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] },
            {},
          ],
        },
      },
    });
    assert.deepEqual(row, [
      'x',
      '8',
      '10.0.0.0/8',
      '<none>',
      '3m20s',
      'MatchExpressions: [{zone In [a b]} {gpu Exists []}],MatchFields: [{metadata.name NotIn [n1]}],MatchExpressions: [{x DoesNotExist []}]',
    ]);
    const bare = cells(clusterCIDRDefinition, {
      apiVersion: 'networking.k8s.io/v1alpha1',
      kind: 'ClusterCIDR',
      spec: { perNodeHostBits: 4, ipv6: 'fd00::/48' },
    });
    assert.deepEqual(bare, ['x', '4', '<none>', 'fd00::/48', '3m20s', '<none>']);
    assert.equal(cells(clusterCIDRDefinition, { apiVersion: 'networking.k8s.io/v1alpha1', kind: 'ClusterCIDR', spec: { nodeSelector: {} } })[5], '');
  });
});

describe('Service table', () => {
  const svc = serviceDefinition();
  it('has Name, Type, Cluster-IP, External-IP, Port(s), Age and, wide, Selector', () => {
    assert.deepEqual(columns(svc), [
      name,
      ['Type', 'string', '', 0],
      ['Cluster-IP', 'string', '', 0],
      ['External-IP', 'string', '', 0],
      ['Port(s)', 'string', '', 0],
      ageCol,
      ['Selector', 'string', '', 1],
    ]);
    assert.match(svc.table?.columns[1]?.description ?? '', /^type determines how the Service is exposed\./);
  });
  it('prints each type as upstream', () => {
    const ports = [
      { port: 80, protocol: 'TCP' },
      { port: 53, protocol: 'UDP', nodePort: 30053 },
    ];
    assert.deepEqual(cells(svc, { spec: { type: 'ClusterIP', clusterIPs: ['10.0.0.5'], ports, selector: { b: '2', a: '1' } } }), [
      'x',
      'ClusterIP',
      '10.0.0.5',
      '<none>',
      '80/TCP,53:30053/UDP',
      '3m20s',
      'a=1,b=2',
    ]);
    assert.deepEqual(cells(svc, { spec: { type: 'LoadBalancer', clusterIPs: ['10.0.0.6'], ports: [] } }), [
      'x',
      'LoadBalancer',
      '10.0.0.6',
      '<pending>',
      '<none>',
      '3m20s',
      '<none>',
    ]);
    assert.deepEqual(
      cells(svc, {
        spec: { type: 'LoadBalancer', externalIPs: ['192.0.2.9'] },
        status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }, { hostname: 'lb.example.com' }] } },
      }),
      ['x', 'LoadBalancer', '<none>', '192.0.2.1,lb.example.com,192.0.2.9', '<none>', '3m20s', '<none>'],
    );
    assert.deepEqual(cells(svc, { spec: { type: 'ExternalName', externalName: 'db.example.com' } })[3], 'db.example.com');
  });
});

describe('Endpoints table', () => {
  it('has Name, Endpoints, Age and lists three ip:port pairs and how many more', () => {
    assert.deepEqual(columns(endpointsDefinition), [name, ['Endpoints', 'string', '', 0], ageCol]);
    const subsets = [{ addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }], ports: [{ port: 80 }, { port: 443 }] }];
    assert.deepEqual(cells(endpointsDefinition, { subsets }), ['x', '10.1.0.1:80,10.1.0.2:80,10.1.0.1:443 + 1 more...', '3m20s']);
    assert.deepEqual(cells(endpointsDefinition, { subsets: [{ addresses: [{ ip: 'fd00::1' }] }] }), ['x', 'fd00::1', '3m20s']);
    assert.deepEqual(cells(endpointsDefinition, {}), ['x', '<none>', '3m20s']);
  });
});

describe('EndpointSlice table', () => {
  it('has Name, AddressType, Ports, Endpoints, Age', () => {
    assert.deepEqual(columns(endpointSliceDefinition), [
      name,
      ['AddressType', 'string', '', 0],
      ['Ports', 'string', '', 0],
      ['Endpoints', 'string', '', 0],
      ageCol,
    ]);
    const endpoints = [{ addresses: ['10.1.0.1', '10.1.0.2'] }, { addresses: ['10.1.0.3', '10.1.0.4'] }];
    assert.deepEqual(cells(endpointSliceDefinition, { addressType: 'IPv4', endpoints, ports: [{ port: 80 }, { name: 'web' }] }), [
      'x',
      'IPv4',
      '80,web',
      '10.1.0.1,10.1.0.2,10.1.0.3 + 1 more...',
      '3m20s',
    ]);
    assert.deepEqual(cells(endpointSliceDefinition, { addressType: 'IPv4' }), ['x', 'IPv4', '<unset>', '<unset>', '3m20s']);
  });
});
