/**
 * Writes too large for etcd, against a real etcd (default --max-request-bytes, 1.5 MiB): each is
 * that request's 413 and nothing more. etcd refuses them in two ways, both covered: over 1.5 MiB
 * `etcdserver: request is too large` (InvalidArgument); over 2 MiB gRPC's receive limit
 * (ResourceExhausted, which the etcd client used to count against etcd's health, so that three of
 * them opened the circuit breaker and failed every other request).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../shared/api/types.ts';
import { AdmissionChain } from '../admission/admission.ts';
import { skipUnlessEtcd } from '../../shared/etcd/availability.ts';
import { EtcdStore } from '../storage/etcd/store.ts';
import { useEtcd } from '../testing/etcd.ts';
import { configMapDefinition, type ConfigMap } from './core/configmap.ts';
import type { RequestContext, ResourceDefinition } from './definition.ts';
import { nodeDefinition } from './core/node/node.ts';
import { createFieldManager } from './managed-fields.ts';
import { GenericStore, type WriteOptions } from './store.ts';
import { rejection } from '../testing/rejection.ts';

const etcd = useEtcd('too-large');
const ctx = (): RequestContext => ({ user: { username: 'admin', groups: ['system:masters'] }, now: new Date() });
const write: WriteOptions = { dryRun: false, manager: 'test' };

function store(definition: ResourceDefinition = configMapDefinition): GenericStore {
  return new GenericStore(definition, new EtcdStore(etcd().client, '/registry'), new AdmissionChain([]), createFieldManager());
}

function configMap(name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data };
}

/**
 * A Node of at least `bytes` bytes in labels of 63-character values (a ConfigMap could not grow
 * that large: its data is limited to 1 MiB, labels only by the size of the request).
 */
function largeNode(name: string, bytes: number): KubeObject {
  const labels: Record<string, string> = {};
  for (let i = 0; i * 80 < bytes; i++) labels[`label-${i}`] = 'v'.repeat(63);
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } };
}

/**
 * ~1.3 MiB of data in 40,000 keys: under etcd's limit alone, over it with the managedFields that
 * own every key (each key is also a `"f:<key>":{}` of the creator's entry).
 */
function manyKeys(): Record<string, string> {
  const data: Record<string, string> = {};
  for (let i = 0; i < 40_000; i++) data[`k${String(i).padStart(6, '0')}`] = 'v'.repeat(20);
  return data;
}

const dataOf = (obj: KubeObject): Record<string, string> => (obj as ConfigMap).data ?? {};

describe('writes too large for etcd', { skip: skipUnlessEtcd() }, () => {
  it('are each a 413 of their own; the breaker stays closed and other reads and writes go on', async () => {
    const s = store();
    const nodes = store(nodeDefinition);
    await s.create('default', configMap('unrelated', { a: 'b' }), ctx(), write);
    // Four of each kind: three recoverable faults in a row used to open the breaker.
    for (const bytes of [1_600_000, 1_600_000, 1_600_000, 1_600_000, 2_500_000, 2_500_000, 2_500_000, 2_500_000]) {
      const err = await rejection(nodes.create('', largeNode('huge', bytes), ctx(), write));
      assert.equal(err.status.code, 413, err.message);
      assert.equal(err.status.reason, 'RequestEntityTooLarge');
      assert.match(err.status.message ?? '', /^Request entity too large: (etcdserver: request is too large|grpc: received message larger than max)/);
    }
    for (let i = 0; i < 5; i++) assert.equal(dataOf(await s.get('default', 'unrelated'))['a'], 'b');
    const updated = await s.update('default', 'unrelated', '', (current) => ({ ...(current as KubeObject), data: { a: 'c' } }), ctx(), write);
    assert.equal(dataOf(updated.object)['a'], 'c');
    // An update too large is refused the same way and leaves the object as it was.
    await nodes.create('', largeNode('small', 0), ctx(), write);
    const labels = largeNode('small', 2_500_000).metadata.labels;
    const err = await rejection(
      nodes.update('', 'small', '', (current) => ({ ...(current as KubeObject), metadata: { ...current?.metadata, labels } }), ctx(), write),
    );
    assert.equal(err.status.code, 413);
    assert.deepEqual((await nodes.get('', 'small')).metadata.labels ?? {}, {});
  });

  it('that fit without their managedFields are written without them (create, update), but not applies', async () => {
    const s = store();
    const created = await s.create('default', configMap('many-keys', manyKeys()), ctx(), write);
    assert.equal(created.metadata.managedFields, undefined);
    assert.equal(Object.keys(dataOf(created)).length, 40_000);
    const stored = await s.get('default', 'many-keys');
    assert.equal(stored.metadata.managedFields, undefined);
    assert.equal(dataOf(stored)['k039999'], 'v'.repeat(20));

    // An update that only fits without managedFields: a tracked object gets all of the keys.
    await s.create('default', configMap('grows', { a: 'b' }), ctx(), write);
    assert.ok((await s.get('default', 'grows')).metadata.managedFields);
    const grown = await s.update('default', 'grows', '', (current) => ({ ...(current as KubeObject), data: manyKeys() }), ctx(), write);
    assert.equal(grown.object.metadata.managedFields, undefined);
    assert.equal(Object.keys(dataOf(await s.get('default', 'grows'))).length, 40_000);

    // An apply is not retried: its ownership is the point of it.
    const applied = createFieldManager();
    const err = await rejection(
      s.update(
        'default',
        'applied',
        '',
        (current) =>
          applied.apply(current, configMap('applied', manyKeys()), {
            definition: configMapDefinition,
            manager: 'test',
            subresource: '',
            now: new Date(),
            force: false,
          }),
        ctx(),
        { ...write, apply: true },
      ),
    );
    assert.equal(err.status.code, 413);
  });
});
