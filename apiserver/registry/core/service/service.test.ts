import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../../shared/api/errors.ts';
import type { Service } from '../../../../shared/api/service.ts';
import type { KubeObject } from '../../../../shared/api/types.ts';
import { AdmissionChain } from '../../../admission/admission.ts';
import { ClusterIPAllocator } from '../../../services/cluster-ip-allocator.ts';
import { NodePortAllocator } from '../../../services/node-port-allocator.ts';
import { MemoryEtcd } from '../../../testing/memory-etcd.ts';
import type { RequestContext, ResourceDefinition } from '../../definition.ts';
import { createFieldManager } from '../../managed-fields.ts';
import { GenericStore } from '../../store.ts';
import { serviceDefinition } from './service.ts';

const ctx: RequestContext = { user: { username: 'admin', groups: ['system:masters'] }, now: new Date('2024-05-06T07:08:09Z') };
const write = { dryRun: false, manager: 'test' };

function setup(): { store: GenericStore; clusterIPs: ClusterIPAllocator; nodePorts: NodePortAllocator } {
  const storage = new MemoryEtcd();
  const clusterIPs = new ClusterIPAllocator(storage, '10.0.0.0/24');
  const nodePorts = new NodePortAllocator(storage, { base: 30000, size: 2768 });
  const definition: ResourceDefinition = serviceDefinition({ clusterIPs, nodePorts });
  return { store: new GenericStore(definition, storage, new AdmissionChain([]), createFieldManager()), clusterIPs, nodePorts };
}

const service = (name: string, spec: Service['spec'] = { ports: [{ port: 80 }] }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec,
});

async function causes(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.status.code, 422);
    return (err.status.details?.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
  }
  assert.fail('expected a 422');
}

describe('Service', () => {
  it('is served as upstream names it', () => {
    const def = serviceDefinition();
    assert.deepEqual(
      [def.plural, def.shortNames, def.categories, def.namespaced, Object.keys(def.subresources ?? {})],
      ['services', ['svc'], ['all'], true, ['status']],
    );
    assert.equal(def.strategy.allowCreateOnUpdate, true);
  });

  it('defaults a new service and allocates its cluster IP', async () => {
    const { store, clusterIPs } = setup();
    const created = (await store.create('default', service('web'), ctx, write)) as Service;
    const ip = created.spec?.clusterIP ?? '';
    assert.match(ip, /^10\.0\.0\.\d+$/);
    assert.deepEqual(created.spec, {
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      clusterIP: ip,
      clusterIPs: [ip],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    });
    assert.deepEqual(created.status, { loadBalancer: {} });
    assert.equal(await clusterIPs.isAllocated(ip), true);
    await store.delete('default', 'web', ctx, { dryRun: false });
    assert.equal(await clusterIPs.isAllocated(ip), false);
  });

  it('refuses a requested IP that is taken or outside the range, and frees nothing it did not take', async () => {
    const { store, clusterIPs } = setup();
    await store.create('default', service('a', { clusterIP: '10.0.0.7', ports: [{ port: 80 }] }), ctx, write);
    assert.deepEqual(await causes(store.create('default', service('b', { clusterIP: '10.0.0.7', ports: [{ port: 80 }] }), ctx, write)), [
      'spec.clusterIPs: Invalid value: []string{"10.0.0.7"}: failed to allocate IP 10.0.0.7: provided IP is already allocated',
    ]);
    assert.deepEqual(await causes(store.create('default', service('c', { clusterIP: '10.9.9.9', ports: [{ port: 80 }] }), ctx, write)), [
      'spec.clusterIPs: Invalid value: []string{"10.9.9.9"}: failed to allocate IP 10.9.9.9: the provided IP (10.9.9.9) is not in the valid range. The range of valid IPs is 10.0.0.0/24',
    ]);
    assert.equal(await clusterIPs.isAllocated('10.0.0.7'), true);
  });

  it('releases what a failed write reserved (the name is taken)', async () => {
    const { store, clusterIPs } = setup();
    await store.create('default', service('a'), ctx, write);
    await assert.rejects(store.create('default', service('a', { clusterIP: '10.0.0.9', ports: [{ port: 80 }] }), ctx, write), { name: 'StatusError' });
    assert.equal(await clusterIPs.isAllocated('10.0.0.9'), false);
  });

  it('reserves nothing on a dry run', async () => {
    const { store, clusterIPs } = setup();
    const created = (await store.create('default', service('a', { clusterIP: '10.0.0.9', ports: [{ port: 80 }] }), ctx, { ...write, dryRun: true })) as Service;
    assert.equal(created.spec?.clusterIP, '10.0.0.9');
    assert.equal(await clusterIPs.isAllocated('10.0.0.9'), false);
  });

  it('gives headless and ExternalName services no address', async () => {
    const { store } = setup();
    const headless = (await store.create('default', service('h', { clusterIP: 'None', ports: [{ port: 80 }] }), ctx, write)) as Service;
    assert.deepEqual(headless.spec?.clusterIPs, ['None']);
    const external = (await store.create('default', service('e', { type: 'ExternalName', externalName: 'example.com' }), ctx, write)) as Service;
    assert.equal(external.spec?.clusterIP, undefined);
    assert.equal(external.spec?.ipFamilies, undefined);
  });

  it('allocates node ports, keeps them on update and frees them when the service stops needing them', async () => {
    const { store, nodePorts, clusterIPs } = setup();
    const created = (await store.create('default', service('np', { type: 'NodePort', ports: [{ port: 80 }] }), ctx, write)) as Service;
    const nodePort = created.spec?.ports?.[0]?.nodePort ?? 0;
    assert.ok(nodePort >= 30000 && nodePort <= 32767);
    const replaced = service('np', { type: 'NodePort', ports: [{ port: 80 }] });
    const updated = (await store.update('default', 'np', '', { replacement: () => structuredClone(replaced) }, ctx, write)).object as Service;
    assert.equal(updated.spec?.ports?.[0]?.nodePort, nodePort);
    assert.equal(updated.spec?.clusterIP, created.spec?.clusterIP);
    const external = service('np', { type: 'ExternalName', externalName: 'example.com' });
    const changed = (await store.update('default', 'np', '', { replacement: () => structuredClone(external) }, ctx, write)).object as Service;
    assert.equal(changed.spec?.clusterIP, undefined);
    await nodePorts.allocate(nodePort);
    assert.equal(await clusterIPs.isAllocated(created.spec?.clusterIP ?? ''), false);
  });

  it('creates on PUT with an allocated address (server-side apply of a new service takes this path)', async () => {
    const { store, clusterIPs } = setup();
    const put = service('p');
    const { object, created } = await store.update('default', 'p', '', { replacement: () => structuredClone(put) }, ctx, write);
    assert.equal(created, true);
    assert.equal(await clusterIPs.isAllocated((object as Service).spec?.clusterIP ?? ''), true);
  });

  it('validates with upstream messages', async () => {
    const { store } = setup();
    assert.deepEqual(
      await causes(
        store.create(
          'default',
          service('bad', {
            type: 'Weird',
            ports: [
              { port: 70000, name: 'a' },
              { port: 80, protocol: 'ICMP' },
            ],
            sessionAffinity: 'ClientIP',
            sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } },
          }),
          ctx,
          write,
        ),
      ),
      [
        'spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
        // targetPort defaults to port, and is checked too (upstream)
        'spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.ports[1].name: Required value',
        'spec.ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
        'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400',
        'spec.type: Unsupported value: "Weird": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      ],
    );
    assert.deepEqual(await causes(store.create('default', service('1bad'), ctx, write)), [
      "metadata.name: Invalid value: \"1bad\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(
      await causes(
        store.create(
          'default',
          service('dup', {
            ports: [
              { port: 80, name: 'a' },
              { port: 80, name: 'b' },
            ],
          }),
          ctx,
          write,
        ),
      ),
      [
        'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
      ],
    );
  });

  it('keeps cluster IPs immutable', async () => {
    const { store } = setup();
    await store.create('default', service('a', { clusterIP: '10.0.0.20', ports: [{ port: 80 }] }), ctx, write);
    const moved = service('a', { clusterIP: '10.0.0.21', ports: [{ port: 80 }] });
    assert.deepEqual(await causes(store.update('default', 'a', '', { replacement: () => structuredClone(moved) }, ctx, write)), [
      'spec.clusterIPs[0]: Invalid value: []string{"10.0.0.21"}: may not change once set',
    ]);
  });
});
