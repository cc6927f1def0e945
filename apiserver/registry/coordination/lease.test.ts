import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../../../shared/api/field.ts';
import type { RequestContext } from '../definition.ts';
import { leaseDefinition, type Lease, type LeaseSpec } from './lease.ts';

const ctx: RequestContext = { user: { username: 'system:node:n1', groups: ['system:nodes'] }, now: new Date('2024-05-06T07:08:09Z') };
const strategy = leaseDefinition.strategy;
const messages = (errs: ReturnType<typeof strategy.validate>): string[] => errs.map(fieldErrorString);

function lease(spec?: LeaseSpec): Lease {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'n1', namespace: 'kube-node-lease' }, ...(spec ? { spec } : {}) };
}

describe('Lease', () => {
  it('is namespaced, creatable by PUT, and needs a resourceVersion to update', () => {
    assert.equal(leaseDefinition.group, 'coordination.k8s.io');
    assert.equal(leaseDefinition.namespaced, true);
    assert.equal(strategy.allowCreateOnUpdate, true);
    assert.equal(strategy.allowUnconditionalUpdate, false);
  });

  it('types times as MicroTime and counts as int32', () => {
    const spec = leaseDefinition.schema.properties?.spec?.properties;
    const microTime = { type: 'string', format: 'date-time', 'x-corral-type': 'MicroTime' };
    assert.deepEqual(
      { ...spec?.renewTime, description: undefined },
      { ...microTime, 'x-corral-protobuf': { field: 4, optional: true }, description: undefined },
    );
    assert.deepEqual(
      { ...spec?.acquireTime, description: undefined },
      { ...microTime, 'x-corral-protobuf': { field: 3, optional: true }, description: undefined },
    );
    assert.equal(spec?.leaseDurationSeconds?.format, 'int32');
    assert.equal(spec?.leaseTransitions?.format, 'int32');
  });

  it('accepts a heartbeat lease and an empty one', () => {
    const obj = lease({ holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2024-05-06T07:08:09.123456Z', leaseTransitions: 0 });
    assert.deepEqual(strategy.validate(obj, ctx), []);
    assert.deepEqual(strategy.validate(lease(), ctx), []);
  });

  it('requires a positive duration and a non-negative transition count', () => {
    assert.deepEqual(messages(strategy.validate(lease({ leaseDurationSeconds: 0, leaseTransitions: -1 }), ctx)), [
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('drops coordinated leader election fields, which are off in 1.32, unless already stored', () => {
    const obj = lease({ holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' });
    strategy.prepareForCreate?.(obj, ctx);
    assert.deepEqual(obj.spec, { holderIdentity: 'a' });

    const update = lease({ holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' });
    strategy.prepareForUpdate?.(update, lease({ holderIdentity: 'a' }), ctx);
    assert.deepEqual(update.spec, { holderIdentity: 'a' });

    const kept = lease({ strategy: 'OldestEmulationVersion', preferredHolder: 'c' });
    strategy.prepareForUpdate?.(kept, lease({ strategy: 'OldestEmulationVersion', preferredHolder: 'b' }), ctx);
    assert.deepEqual(kept.spec, { strategy: 'OldestEmulationVersion', preferredHolder: 'c' });
  });

  it('validates a stored strategy under the path upstream reports', () => {
    assert.deepEqual(messages(strategy.validate(lease({ strategy: 'Newest' }), ctx)), [
      'spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"',
    ]);
    assert.deepEqual(strategy.validate(lease({ strategy: 'example.com/custom' }), ctx), []);
    assert.equal(
      messages(strategy.validate(lease({ strategy: 'a/b/c' }), ctx))[0]?.startsWith('spec.strategy.strategy: Invalid value: "a/b/c": a qualified name'),
      true,
    );
    assert.deepEqual(messages(strategy.validate(lease({ preferredHolder: 'b' }), ctx)), [
      'spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined',
    ]);
  });
});
