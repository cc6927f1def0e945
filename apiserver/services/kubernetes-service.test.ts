import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { Endpoints } from '../../shared/api/endpoints.ts';
import type { EndpointSlice } from '../../shared/api/endpointslice.ts';
import type { Service } from '../../shared/api/service.ts';
import { AdmissionChain } from '../admission/admission.ts';
import type { RequestContext, ResourceDefinition } from '../registry/definition.ts';
import { endpointsDefinition } from '../registry/core/endpoints/endpoints.ts';
import { serviceDefinition } from '../registry/core/service/service.ts';
import { endpointSliceDefinition } from '../registry/discovery/endpointslice.ts';
import { createFieldManager } from '../registry/managed-fields.ts';
import { GenericStore } from '../registry/store.ts';
import { MemoryEtcd } from '../testing/memory-etcd.ts';
import { ClusterIPAllocator } from './cluster-ip-allocator.ts';
import { KubernetesServiceController } from './kubernetes-service.ts';
import { MasterLeases } from './master-leases.ts';
import { NodePortAllocator } from './node-port-allocator.ts';

const ctx: RequestContext = { user: { username: 'admin', groups: ['system:masters'] }, now: new Date() };

function setup(publicIP = '192.0.2.10', logger = pino({ level: 'silent' })) {
  const storage = new MemoryEtcd();
  const clusterIPs = new ClusterIPAllocator(storage, '10.0.0.0/24');
  const store = (def: ResourceDefinition): GenericStore => new GenericStore(def, storage, new AdmissionChain([]), createFieldManager());
  const stores = {
    services: store(serviceDefinition({ clusterIPs, nodePorts: new NodePortAllocator(storage, { base: 30000, size: 2768 }) })),
    endpoints: store(endpointsDefinition),
    endpointslices: store(endpointSliceDefinition),
  };
  const leases = new MasterLeases(storage, 15);
  const replica = (ip: string): KubernetesServiceController =>
    new KubernetesServiceController({
      publicIP: ip,
      publicPort: 6443,
      serviceIP: clusterIPs.firstAddress(),
      leases,
      stores,
      logger,
    });
  return { storage, stores, leases, clusterIPs, controller: replica(publicIP), replica };
}

async function addresses(stores: ReturnType<typeof setup>['stores']): Promise<{ endpoints: string[]; slice: string[] }> {
  const ep = (await stores.endpoints.get('default', 'kubernetes')) as Endpoints;
  const slice = (await stores.endpointslices.get('default', 'kubernetes')) as EndpointSlice;
  return { endpoints: (ep.subsets?.[0]?.addresses ?? []).map((a) => a.ip ?? ''), slice: (slice.endpoints ?? []).flatMap((e) => e.addresses ?? []) };
}

describe('the kubernetes service', () => {
  it('is created with the first service address, its endpoints listing this replica', async () => {
    const { stores, controller, clusterIPs } = setup();
    await controller.sync();
    const svc = (await stores.services.get('default', 'kubernetes')) as Service;
    assert.deepEqual(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    assert.equal(svc.spec?.clusterIP, '10.0.0.1');
    assert.deepEqual(svc.spec?.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 6443 }]);
    assert.equal(await clusterIPs.isAllocated('10.0.0.1'), true);
    const ep = (await stores.endpoints.get('default', 'kubernetes')) as Endpoints;
    assert.deepEqual(ep.metadata.labels, { 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    const slice = (await stores.endpointslices.get('default', 'kubernetes')) as EndpointSlice;
    assert.deepEqual(slice.metadata.labels, { 'kubernetes.io/service-name': 'kubernetes' });
    assert.equal(slice.addressType, 'IPv4');
    assert.deepEqual(slice.endpoints, [{ addresses: ['192.0.2.10'], conditions: { ready: true } }]);
    assert.deepEqual(slice.ports, [{ name: 'https', protocol: 'TCP', port: 6443 }]);
  });

  it('lists exactly the replicas holding leases', async () => {
    const { stores, leases, controller, replica } = setup();
    const other = replica('192.0.2.11');
    await controller.sync();
    await other.sync();
    await controller.sync();
    assert.deepEqual(await addresses(stores), { endpoints: ['192.0.2.10', '192.0.2.11'], slice: ['192.0.2.10', '192.0.2.11'] });
    // The other replica's lease expires (the storage's TTL): the next sync drops it.
    await leases.remove('192.0.2.11');
    await controller.sync();
    assert.deepEqual(await addresses(stores), { endpoints: ['192.0.2.10'], slice: ['192.0.2.10'] });
  });

  it('leaves the endpoints on graceful shutdown, and refuses to empty them', async () => {
    const { stores, leases, controller, replica } = setup();
    const other = replica('192.0.2.11');
    await controller.sync();
    await other.sync();
    await other.stop();
    assert.deepEqual(await leases.list(), ['192.0.2.10']);
    assert.deepEqual((await addresses(stores)).endpoints, ['192.0.2.10']);
    await leases.remove('192.0.2.10');
    await assert.rejects(controller.reconcileEndpoints(), /refusing to erase all endpoints for the kubernetes Service/);
    assert.deepEqual((await addresses(stores)).endpoints, ['192.0.2.10']);
  });

  it('logs one line, without a stack, when the last replica stops and the endpoints keep its address', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const { stores, controller } = setup('192.0.2.10', logger);
    await controller.sync();
    await controller.stop();
    assert.deepEqual((await addresses(stores)).endpoints, ['192.0.2.10']);
    const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string; err: unknown }).filter((entry) => entry.level === 40);
    assert.deepEqual(
      warnings.map(({ msg, err }) => ({ msg, err })),
      [
        {
          msg: 'unable to remove endpoints from kubernetes service',
          err: 'no API server IP addresses were listed in storage, refusing to erase all endpoints for the kubernetes Service',
        },
      ],
    );
  });

  it('is created once by replicas starting together, neither failing', async () => {
    const { stores, replica } = setup();
    const replicas = [replica('192.0.2.10'), replica('192.0.2.11')];
    // Both find no Service, both create it: the second create fails on the address the first took.
    await Promise.all(replicas.map((r) => r.ensureService()));
    const svc = (await stores.services.get('default', 'kubernetes')) as Service;
    assert.equal(svc.spec?.clusterIP, '10.0.0.1');
  });

  it('resets a service whose ports someone changed', async () => {
    const { stores, controller } = setup();
    await controller.sync();
    const svc = (await stores.services.get('default', 'kubernetes')) as Service;
    svc.spec = { ...svc.spec, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80 }] };
    await stores.services.update('default', 'kubernetes', '', { replacement: () => structuredClone(svc) }, ctx, { dryRun: false, manager: 'test' });
    await controller.sync();
    const reset = (await stores.services.get('default', 'kubernetes')) as Service;
    assert.deepEqual(reset.spec?.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 6443 }]);
  });
});
