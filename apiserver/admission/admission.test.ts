/**
 * Where the generic store runs admission, against real storage (the embedded store): mutating plugins before the kind's
 * prepare and validation (so what they change is validated), validating plugins after them (on the
 * object as it will be stored), both on the stored object for DELETE. Also the generation the store
 * counts for a kind that tracks it, on writes of the main resource and of its status.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { useEmbeddedStore } from '../testing/embedded.ts';
import { configMapDefinition } from '../registry/core/configmap.ts';
import { nodeDefinition } from '../registry/core/node/node.ts';
import type { RequestContext, ResourceDefinition } from '../registry/definition.ts';
import { csiDriverDefinition } from '../registry/volumes/csidriver.ts';
import { GenericStore, type WriteOptions } from '../registry/store.ts';
import { AdmissionChain, type AdmissionAttributes, type AdmissionPlugin, type Operation } from './admission.ts';
import { namespaceLifecycle } from './namespace-lifecycle.ts';
import { rejection } from '../testing/rejection.ts';

const storage = useEmbeddedStore('admission');
const ctx = (): RequestContext => ({ user: { username: 'admin', groups: ['system:masters'] }, now: new Date() });
const write: WriteOptions = { dryRun: false, manager: 'test' };

function store(definition: ResourceDefinition, plugins: AdmissionPlugin[]): GenericStore {
  return new GenericStore(definition, storage(), new AdmissionChain(plugins));
}

/** A mutating plugin that gives every object of `operation` a label no kind accepts. */
function breaksLabels(operation: Operation): AdmissionPlugin {
  return {
    name: 'BreaksLabels',
    operations: [operation],
    async admit(a) {
      if (a.object) a.object.metadata.labels = { ...a.object.metadata.labels, 'bad key!': 'v' };
    },
  };
}

/** What a validating plugin was shown, copied when it was shown. */
type Seen = Pick<AdmissionAttributes, 'operation' | 'subresource' | 'object' | 'oldObject'>;

/** A validating plugin that records a copy of every object it is shown. */
function recorder(seen: Seen[]): AdmissionPlugin {
  return {
    name: 'Recorder',
    async validate(a) {
      seen.push(structuredClone({ operation: a.operation, subresource: a.subresource, object: a.object, oldObject: a.oldObject }));
    },
  };
}

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });
const badLabelCause = { field: 'metadata.labels', reason: 'FieldValueInvalid' };

describe('admission order', () => {
  it("validates a mutating plugin's create with the kind's validation (422)", async () => {
    const seen: Seen[] = [];
    const s = store(configMapDefinition, [breaksLabels('CREATE'), recorder(seen)]);
    const err = await rejection(s.create('default', configMap('broken-create'), ctx(), write));
    assert.equal(err.status.code, 422);
    assert.equal(err.status.reason, 'Invalid');
    assert.equal(err.status.details?.kind, 'ConfigMap');
    assert.deepEqual(
      err.status.details?.causes?.map((c) => ({ field: c.field, reason: c.reason })),
      [badLabelCause],
    );
    assert.equal(seen.length, 0, 'validating admission never saw the invalid object');
    await assert.rejects(s.get('default', 'broken-create'), (e: unknown) => isStatusError(e, 'NotFound'));
  });

  it("validates a mutating plugin's update with the kind's validation (422), for create-on-update too", async () => {
    const s = store(configMapDefinition, [breaksLabels('UPDATE')]);
    const created = await s.create('default', configMap('broken-update'), ctx(), write);
    const err = await rejection(s.update('default', 'broken-update', '', (current) => ({ ...(current ?? configMap('x')), data: { a: '2' } }), ctx(), write));
    assert.equal(err.status.code, 422);
    assert.deepEqual(
      err.status.details?.causes?.map((c) => ({ field: c.field, reason: c.reason })),
      [badLabelCause],
    );
    assert.deepEqual((await s.get('default', 'broken-update')).metadata.resourceVersion, created.metadata.resourceVersion);
  });

  it('runs mutating admission as CREATE on a create through PUT', async () => {
    const putCreates = { ...configMapDefinition, strategy: { ...configMapDefinition.strategy, allowCreateOnUpdate: true } };
    const s = store(putCreates, [breaksLabels('CREATE')]);
    const err = await rejection(s.update('default', 'put-create', '', { replacement: () => configMap('put-create') }, ctx(), write));
    assert.equal(err.status.code, 422);
  });

  it('shows validating plugins the final object: system metadata, defaults and generation', async () => {
    const seen: Seen[] = [];
    const added: AdmissionPlugin = {
      name: 'AddsAnnotation',
      async admit(a) {
        if (a.object) a.object.metadata.annotations = { ...a.object.metadata.annotations, admitted: a.operation };
      },
    };
    const s = store(csiDriverDefinition, [added, recorder(seen)]);
    const sent: KubeObject = { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'final.example.com' }, spec: { attachRequired: true } };
    const created = await s.create('', sent, ctx(), write);
    const [onCreate] = seen;
    assert.equal(onCreate?.operation, 'CREATE');
    assert.equal(onCreate?.object?.metadata.annotations?.['admitted'], 'CREATE');
    assert.equal(onCreate?.object?.metadata.uid, created.metadata.uid);
    assert.equal(onCreate?.object?.metadata.generation, 1);
    // The kind's defaults (prepareForCreate) are in what validating admission sees.
    assert.deepEqual(onCreate?.object?.['spec'], created['spec']);
    assert.equal((onCreate?.object?.['spec'] as { podInfoOnMount?: boolean }).podInfoOnMount, false);

    await s.update(
      'default',
      'final.example.com',
      '',
      (current) => ({ ...(current as KubeObject), spec: { ...(current?.['spec'] as object), podInfoOnMount: true } }),
      ctx(),
      write,
    );
    const onUpdate = seen[1];
    assert.equal(onUpdate?.operation, 'UPDATE');
    assert.equal(onUpdate?.object?.metadata.generation, 2);
    assert.equal(onUpdate?.object?.metadata.annotations?.['admitted'], 'UPDATE');
    assert.equal(onUpdate?.oldObject?.metadata.generation, 1);
  });

  it("runs mutating admission before a subresource's prepare: a status write keeps the spec", async () => {
    const seen: Seen[] = [];
    const changesSpec: AdmissionPlugin = {
      name: 'ChangesSpec',
      operations: ['UPDATE'],
      async admit(a) {
        if (a.object) a.object['spec'] = { unschedulable: true };
      },
    };
    const s = store(nodeDefinition, [changesSpec, recorder(seen)]);
    await s.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-sub' } }, ctx(), write);
    const { object } = await s.update(
      '',
      'node-sub',
      'status',
      (current) => ({ ...(current as KubeObject), status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] } }),
      ctx(),
      write,
    );
    assert.equal(object['spec'], undefined, "the status strategy undid the plugin's spec change");
    assert.equal(seen.at(-1)?.subresource, 'status');
    assert.equal(seen.at(-1)?.object?.['spec'], undefined);
    assert.deepEqual((seen.at(-1)?.object?.['status'] as { addresses?: unknown }).addresses, [{ type: 'InternalIP', address: '10.0.0.1' }]);
  });

  it('runs both phases on DELETE, on the stored object, mutating first', async () => {
    const calls: string[] = [];
    const both: AdmissionPlugin = {
      name: 'Both',
      operations: ['DELETE'],
      async admit(a) {
        calls.push(`admit ${a.operation} ${a.oldObject?.metadata.name ?? ''} ${a.object === undefined}`);
      },
      async validate(a) {
        calls.push(`validate ${a.operation} ${a.oldObject?.metadata.name ?? ''} ${a.object === undefined}`);
      },
    };
    const s = store(configMapDefinition, [both]);
    await s.create('default', configMap('to-delete'), ctx(), write);
    assert.deepEqual(calls, [], 'a plugin for DELETE only is not called on CREATE');
    await s.delete('default', 'to-delete', ctx(), { dryRun: false });
    assert.deepEqual(calls, ['admit DELETE to-delete true', 'validate DELETE to-delete true']);
  });

  it('refuses a create in a missing namespace with 404 before the kind validates it (NamespaceLifecycle mutates upstream)', async () => {
    const s = store(configMapDefinition, [namespaceLifecycle(async () => null)]);
    const invalid: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { 'a b': '1' } };
    const err = await rejection(s.create('missing', invalid, ctx(), write));
    assert.equal(err.status.code, 404);
    assert.equal(err.status.details?.kind, 'namespaces');
  });
});

describe('generation of a kind that tracks it', () => {
  const tracked = { ...nodeDefinition, strategy: { ...nodeDefinition.strategy, tracksGeneration: true } };

  it('moves on spec writes only: not on status, metadata or no-op writes', async () => {
    const s = store(tracked, []);
    const created = await s.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'gen', generation: 9 } }, ctx(), write);
    assert.equal(created.metadata.generation, 1);
    const status = await s.update(
      '',
      'gen',
      'status',
      (c) => ({ ...(c as KubeObject), spec: { unschedulable: true }, status: { phase: 'Running' } }),
      ctx(),
      write,
    );
    assert.equal(status.object.metadata.generation, 1);
    const labelled = await s.update(
      '',
      'gen',
      '',
      (c) => ({ ...(c as KubeObject), metadata: { ...(c as KubeObject).metadata, labels: { a: 'b' } } }),
      ctx(),
      write,
    );
    assert.equal(labelled.object.metadata.generation, 1);
    const spec = await s.update('', 'gen', '', (c) => ({ ...(c as KubeObject), spec: { unschedulable: true } }), ctx(), write);
    assert.equal(spec.object.metadata.generation, 2);
    const noop = await s.update('', 'gen', '', (c) => c as KubeObject, ctx(), write);
    assert.equal(noop.object.metadata.generation, 2);
    assert.equal(noop.object.metadata.resourceVersion, spec.object.metadata.resourceVersion);
  });
});
