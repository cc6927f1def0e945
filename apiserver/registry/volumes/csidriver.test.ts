import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../../../shared/api/field.ts';
import type { RequestContext } from '../definition.ts';
import { csiDriverDefinition, type CSIDriver, type CSIDriverSpec } from './csidriver.ts';

const ctx: RequestContext = { user: { username: 'admin', groups: ['system:masters'] }, now: new Date('2024-05-06T07:08:09Z') };
const strategy = csiDriverDefinition.strategy;

function driver(spec?: CSIDriverSpec): CSIDriver {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'csi.example.com' }, ...(spec ? { spec } : {}) };
}

function created(spec?: CSIDriverSpec): CSIDriver {
  const obj = driver(spec);
  strategy.prepareForCreate?.(obj, ctx);
  return obj;
}

const messages = (errs: ReturnType<typeof strategy.validate>): string[] => errs.map(fieldErrorString);

describe('CSIDriver', () => {
  it('is a cluster-scoped storage.k8s.io/v1 kind whose delete answers with the object', () => {
    assert.equal(csiDriverDefinition.group, 'storage.k8s.io');
    assert.equal(csiDriverDefinition.version, 'v1');
    assert.equal(csiDriverDefinition.plural, 'csidrivers');
    assert.equal(csiDriverDefinition.namespaced, false);
    assert.equal(csiDriverDefinition.deleteReturnsObject, true);
    assert.equal(strategy.allowUnconditionalUpdate, false);
  });

  it('defaults every optional switch as upstream v1 does', () => {
    assert.deepEqual(created().spec, {
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      volumeLifecycleModes: ['Persistent'],
      requiresRepublish: false,
      seLinuxMount: false,
    });
    const explicit = created({ attachRequired: false, volumeLifecycleModes: ['Ephemeral'], fsGroupPolicy: 'File' }).spec;
    assert.equal(explicit?.attachRequired, false);
    assert.deepEqual(explicit?.volumeLifecycleModes, ['Ephemeral']);
    assert.equal(explicit?.fsGroupPolicy, 'File');
    assert.deepEqual(created({ volumeLifecycleModes: [] }).spec?.volumeLifecycleModes, ['Persistent']);
  });

  it('accepts a defaulted driver', () => {
    const obj = created({ tokenRequests: [{ audience: '' }, { audience: 'vault', expirationSeconds: 600 }] });
    assert.deepEqual(strategy.validate(obj, ctx), []);
  });

  it('requires the switches defaulting fills, under upstream field names', () => {
    assert.deepEqual(messages(strategy.validate(driver({}), ctx)), [
      'spec.attachedRequired: Required value',
      'spec.podInfoOnMount: Required value',
      'spec.storageCapacity: Required value',
      'spec.seLinuxMount: Required value',
    ]);
  });

  it('allows only the known fsGroupPolicy values and lifecycle modes', () => {
    const obj = created({ fsGroupPolicy: 'Always', volumeLifecycleModes: ['Persistent', 'Forever'] });
    assert.deepEqual(messages(strategy.validate(obj, ctx)), [
      'spec.fsGroupPolicy: Unsupported value: "Always": supported values: "File", "None", "ReadWriteOnceWithFSType"',
      'spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"',
    ]);
  });

  it('rejects repeated audiences (so a second empty one) and out-of-range token lifetimes', () => {
    const obj = created({
      tokenRequests: [
        { audience: '' },
        { audience: 'a', expirationSeconds: 599 },
        { audience: '', expirationSeconds: 1 },
        { audience: 'b', expirationSeconds: 2 ** 32 + 1 },
        { audience: 'c', expirationSeconds: 2 ** 32 },
      ],
    });
    assert.deepEqual(messages(strategy.validate(obj, ctx)), [
      'spec.tokenRequests[1].expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
      'spec.tokenRequests[2].audience: Duplicate value: ""',
      'spec.tokenRequests[3].expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
    ]);
  });

  it('keeps attachRequired and volumeLifecycleModes immutable but lets podInfoOnMount and fsGroupPolicy change', () => {
    const old = created();
    const changed = created({ attachRequired: false, volumeLifecycleModes: ['Ephemeral'], podInfoOnMount: true, fsGroupPolicy: 'None' });
    strategy.prepareForUpdate?.(changed, old, ctx);
    assert.deepEqual(messages(strategy.validateUpdate?.(changed, old, ctx) ?? []), [
      'spec.attachedRequired: Invalid value: false: field is immutable',
      'spec.volumeLifecycleModes: Invalid value: ["Ephemeral"]: field is immutable',
    ]);

    const mutable = driver({ podInfoOnMount: true, fsGroupPolicy: 'File', storageCapacity: true, requiresRepublish: true });
    strategy.prepareForUpdate?.(mutable, old, ctx);
    assert.deepEqual(strategy.validateUpdate?.(mutable, old, ctx), []);
  });

  it('defaults on update, so omitting a defaulted immutable field is no change', () => {
    const old = created({ attachRequired: true });
    const update = driver({ podInfoOnMount: true });
    strategy.prepareForUpdate?.(update, old, ctx);
    assert.equal(update.spec?.attachRequired, true);
    assert.deepEqual(strategy.validateUpdate?.(update, old, ctx), []);
  });

  it('declares tokenRequests atomic and volumeLifecycleModes a set', () => {
    const spec = csiDriverDefinition.schema.properties?.spec;
    assert.equal(spec?.properties?.tokenRequests?.['x-kubernetes-list-type'], 'atomic');
    assert.deepEqual(spec?.properties?.tokenRequests?.items?.required, ['audience']);
    assert.equal(spec?.properties?.tokenRequests?.items?.properties?.expirationSeconds?.format, 'int64');
    assert.equal(spec?.properties?.volumeLifecycleModes?.['x-kubernetes-list-type'], 'set');
    assert.deepEqual(csiDriverDefinition.schema.required, ['spec']);
  });
});
