import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../../../shared/api/field.ts';
import type { RequestContext } from '../definition.ts';
import { csiStorageCapacityDefinition, type CSIStorageCapacity } from './csistoragecapacity.ts';

const ctx: RequestContext = { user: { username: 'provisioner', groups: [] }, now: new Date('2024-05-06T07:08:09Z') };
const strategy = csiStorageCapacityDefinition.strategy;
const messages = (errs: ReturnType<typeof strategy.validate>): string[] => errs.map(fieldErrorString);

const labelValueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function capacity(fields: Partial<CSIStorageCapacity>): CSIStorageCapacity {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name: 'cap-1', namespace: 'kube-system' },
    storageClassName: 'fast',
    ...fields,
  };
}

describe('CSIStorageCapacity', () => {
  it('is namespaced and requires storageClassName in its schema', () => {
    assert.equal(csiStorageCapacityDefinition.namespaced, true);
    assert.equal(csiStorageCapacityDefinition.plural, 'csistoragecapacities');
    assert.deepEqual(csiStorageCapacityDefinition.schema.required, ['storageClassName']);
    assert.equal(csiStorageCapacityDefinition.schema.properties?.nodeTopology?.['x-kubernetes-map-type'], 'atomic');
    assert.equal(csiStorageCapacityDefinition.schema.properties?.capacity?.['x-kubernetes-int-or-string'], true);
    assert.equal(strategy.allowUnconditionalUpdate, false);
  });

  it('accepts a valid object', () => {
    const obj = capacity({
      nodeTopology: { matchLabels: { 'topology.kubernetes.io/zone': 'a' }, matchExpressions: [{ key: 'rack', operator: 'In', values: ['r1'] }] },
      capacity: '10Gi',
      maximumVolumeSize: '1Gi',
    });
    assert.deepEqual(strategy.validate(obj, ctx), []);
  });

  it('checks storageClassName as a DNS subdomain, reporting an empty one as invalid', () => {
    assert.deepEqual(messages(strategy.validate(capacity({ storageClassName: 'Fast' }), ctx)), [
      `storageClassName: Invalid value: "Fast": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    assert.equal(strategy.validate(capacity({ storageClassName: '' }), ctx)[0]?.field, 'storageClassName');
  });

  it('rejects a negative capacity but not a negative maximumVolumeSize, as upstream', () => {
    assert.deepEqual(messages(strategy.validate(capacity({ capacity: '-1Gi', maximumVolumeSize: '-1' }), ctx)), [
      'capacity: Invalid value: "-1Gi": must be greater than or equal to 0',
    ]);
  });

  it('validates nodeTopology as a label selector', () => {
    const obj = capacity({ nodeTopology: { matchExpressions: [{ key: 'd', operator: 'NotIn', values: ['bad value!'] }] } });
    assert.deepEqual(messages(strategy.validate(obj, ctx)), [`nodeTopology.matchExpressions[0].values[0]: Invalid value: "bad value!": ${labelValueMessage}`]);
  });

  it('keeps storageClassName and nodeTopology immutable; capacities may change', () => {
    const old = capacity({ nodeTopology: { matchLabels: { zone: 'a' } }, capacity: '1Gi' });
    assert.deepEqual(strategy.validateUpdate?.(capacity({ nodeTopology: { matchLabels: { zone: 'a' } }, capacity: '2Gi' }), old, ctx), []);
    assert.deepEqual(
      messages(strategy.validateUpdate?.(capacity({ storageClassName: 'slow', nodeTopology: { matchLabels: { zone: 'b' } } }), old, ctx) ?? []),
      ['nodeTopology: Invalid value: {"matchLabels":{"zone":"b"}}: field is immutable', 'storageClassName: Invalid value: "slow": field is immutable'],
    );
    // An empty selector (all nodes) differs from none (no node).
    const unset = capacity({});
    assert.equal(strategy.validateUpdate?.(capacity({ nodeTopology: {} }), unset, ctx).length, 1);
  });

  it('tolerates invalid label values in updates of objects that already hold them', () => {
    const topology = { matchExpressions: [{ key: 'k', operator: 'In', values: ['bad value!'] }] };
    const old = capacity({ nodeTopology: topology });
    assert.deepEqual(strategy.validateUpdate?.(capacity({ nodeTopology: structuredClone(topology), capacity: '1' }), old, ctx), []);
  });
});
