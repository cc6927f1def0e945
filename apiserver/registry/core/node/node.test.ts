import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, type FieldError } from '../../../../shared/api/field.ts';
import { nodeDefinition } from './node.ts';
import type { Node, Taint } from '../../../../shared/api/node.ts';

const ctx = { user: { username: 'tester', groups: [] }, now: new Date('2024-01-01T00:00:00Z') };
const strategy = nodeDefinition.strategy;
const statusSub = nodeDefinition.subresources?.status;
const node = (fields: Partial<Node> = {}): Node => ({ metadata: { name: 'n1' }, ...fields });
const strings = (errors: FieldError[] | undefined): string[] => (errors ?? []).map(fieldErrorString);
const validate = (n: Node): string[] => strings(strategy.validate(n, ctx));
const validateUpdate = (n: Node, old: Node): string[] => strings(strategy.validateUpdate?.(n, old, ctx));

describe('nodeDefinition', () => {
  it('is cluster-scoped v1 nodes, short name no, not created by PUT, with a status subresource', () => {
    assert.equal(nodeDefinition.plural, 'nodes');
    assert.deepEqual(nodeDefinition.shortNames, ['no']);
    assert.equal(nodeDefinition.namespaced, false);
    assert.equal(strategy.allowCreateOnUpdate, false);
    assert.deepEqual(statusSub?.verbs, ['get', 'update', 'patch']);
    assert.equal(nodeDefinition.fieldSelectors?.['spec.unschedulable']?.(node({ spec: { unschedulable: true } })), 'true');
    assert.equal(nodeDefinition.fieldSelectors?.['spec.unschedulable']?.(node()), 'false');
    const spec = nodeDefinition.schema.properties?.spec?.properties;
    assert.equal(spec?.podCIDRs?.['x-kubernetes-list-type'], 'set');
    assert.equal(spec?.taints?.['x-kubernetes-list-type'], 'atomic');
    assert.deepEqual(nodeDefinition.schema.properties?.status?.properties?.addresses?.['x-kubernetes-list-map-keys'], ['type']);
  });

  describe('create', () => {
    it('keeps status but drops the removed dynamic configuration', () => {
      const n = node({
        spec: { configSource: { configMap: { name: 'c', namespace: 'kube-system', kubeletConfigKey: 'k' } } },
        status: { capacity: { cpu: '4' }, config: { error: 'x' } },
      });
      strategy.prepareForCreate?.(n, ctx);
      assert.deepEqual(n.spec, {});
      assert.deepEqual(n.status, { capacity: { cpu: '4' } });
    });

    it('makes podCIDR and podCIDRs agree, podCIDR winning', () => {
      const only = node({ spec: { podCIDR: '10.0.0.0/24' } });
      strategy.prepareForCreate?.(only, ctx);
      assert.deepEqual(only.spec, { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'] });
      const list = node({ spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } });
      strategy.prepareForCreate?.(list, ctx);
      assert.deepEqual(list.spec, { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24', 'fd00::/64'] });
      const disagree = node({ spec: { podCIDR: '10.1.0.0/24', podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } });
      strategy.prepareForCreate?.(disagree, ctx);
      assert.deepEqual(disagree.spec, { podCIDR: '10.1.0.0/24', podCIDRs: ['10.1.0.0/24'] });
    });
  });

  describe('podCIDRs', () => {
    const withCIDRs = (...podCIDRs: string[]): Node => node({ spec: { podCIDRs } });

    it('accepts one CIDR per IP family', () => {
      assert.deepEqual(validate(withCIDRs('10.0.0.0/24')), []);
      assert.deepEqual(validate(withCIDRs('10.0.0.0/24', 'fd00::/64')), []);
    });

    it('rejects malformed CIDRs', () => {
      assert.deepEqual(validate(withCIDRs('10.0.0.0')), [
        'spec.podCIDRs[0]: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      ]);
      assert.deepEqual(validate(withCIDRs('10.0.0.0/24', 'bad')), [
        'spec.podCIDRs[1]: Invalid value: "bad": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
        'spec.podCIDRs: Internal error: invalid PodCIDRs. failed to check with dual stack with error:failed to parse cidr value:"bad" with error:invalid CIDR address: bad',
        'spec.podCIDRs: Invalid value: ["10.0.0.0/24","bad"]: may specify no more than one CIDR for each IP family',
      ]);
    });

    it('allows at most one CIDR per family and no duplicates', () => {
      assert.deepEqual(validate(withCIDRs('10.0.0.0/24', '10.1.0.0/24')), [
        'spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one CIDR for each IP family',
      ]);
      assert.deepEqual(validate(withCIDRs('10.0.0.0/24', 'fd00::/64', '10.1.0.0/24')), [
        'spec.podCIDRs: Invalid value: ["10.0.0.0/24","fd00::/64","10.1.0.0/24"]: may specify no more than one CIDR for each IP family',
      ]);
      assert.deepEqual(validate(withCIDRs('10.0.0.0/24', '10.0.0.0/24')), [
        'spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.0.0.0/24"]: may specify no more than one CIDR for each IP family',
        'spec.podCIDRs[1]: Duplicate value: "10.0.0.0/24"',
      ]);
    });

    it('may be set once, then never changed', () => {
      assert.deepEqual(validateUpdate(withCIDRs('10.0.0.0/24'), node()), []);
      assert.deepEqual(validateUpdate(withCIDRs('10.1.0.0/24'), withCIDRs('10.0.0.0/24')), [
        'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
      ]);
      assert.deepEqual(validateUpdate(withCIDRs('10.0.0.0/24', 'fd00::/64'), withCIDRs('10.0.0.0/24')), [
        'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
      ]);
    });
  });

  describe('taints', () => {
    const withTaints = (...taints: Taint[]): Node => node({ spec: { taints } });

    it('accepts valid taints', () => {
      assert.deepEqual(
        validate(withTaints({ key: 'example.com/gpu', value: 'true', effect: 'NoSchedule' }, { key: 'example.com/gpu', effect: 'NoExecute' })),
        [],
      );
    });

    it('checks key, value and effect, reported under metadata.taints as upstream does', () => {
      assert.deepEqual(validate(withTaints({ key: 'bad key', value: 'bad value', effect: 'Sometimes' })), [
        `metadata.taints[0].key: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        `metadata.taints[0].value: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
        'metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      ]);
      assert.deepEqual(validate(withTaints({ key: 'k', effect: '' })), ['metadata.taints[0].effect: Required value']);
    });

    it('rejects two taints with the same key and effect', () => {
      assert.deepEqual(validate(withTaints({ key: 'k', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoSchedule' })), [
        'metadata.taints[1]: Duplicate value: {"key":"k","value":"v","effect":"NoSchedule"}: taints must be unique by key and effect pair',
      ]);
    });

    it('are checked by both upstream update validations, so an update reports a bad taint twice', () => {
      const bad = withTaints({ key: 'k', effect: 'Never' });
      const message = 'metadata.taints[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"';
      assert.deepEqual(validateUpdate(bad, node()), [message, message]);
    });
  });

  describe('status quantities', () => {
    it('must be non-negative, and whole for integer resources', () => {
      const n = node({ status: { capacity: { cpu: '-1', pods: '1.5', 'example.com/gpu': '500m', memory: '1.5Gi' }, allocatable: { cpu: '2' } } });
      assert.deepEqual(validate(n), [
        'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
        'status.capacity.pods: Invalid value: "1.5": must be an integer',
        'status.capacity.example.com/gpu: Invalid value: "500m": must be an integer',
      ]);
    });
  });

  describe('update', () => {
    it('keeps status from the stored object and drops configSource unless it was there', () => {
      const old = node({ spec: {}, status: { capacity: { cpu: '4' } } });
      const n = node({ spec: { configSource: { configMap: { name: 'c', namespace: 'ns', kubeletConfigKey: 'k' } } }, status: { capacity: { cpu: '8' } } });
      strategy.prepareForUpdate?.(n, old, ctx);
      assert.deepEqual(n.status, { capacity: { cpu: '4' } });
      assert.deepEqual(n.spec, {});
    });

    it('makes providerID and externalID immutable once set', () => {
      assert.deepEqual(validateUpdate(node({ spec: { providerID: 'aws://1' } }), node()), []);
      assert.deepEqual(validateUpdate(node({ spec: { providerID: 'aws://2' } }), node({ spec: { providerID: 'aws://1' } })), [
        'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
      ]);
      assert.deepEqual(validateUpdate(node({ spec: { externalID: 'x' } }), node()), ['spec.externalID: Forbidden: may not be updated']);
    });

    it('validates a configSource kept from the stored object', () => {
      const old = node({ spec: { configSource: { configMap: { name: 'c', namespace: 'ns', kubeletConfigKey: 'k' } } } });
      const n = node({ spec: { configSource: { configMap: { name: 'C', namespace: '', uid: 'u', kubeletConfigKey: 'k' } } } });
      strategy.prepareForUpdate?.(n, old, ctx);
      assert.deepEqual(validateUpdate(n, old), [
        'spec.configSource.configMap.uid: Forbidden: uid must not be set in spec',
        'spec.configSource.configMap.namespace: Required value: namespace must be set',
        `spec.configSource.configMap.name: Invalid value: "C": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ]);
      assert.deepEqual(validateUpdate(node({ spec: { configSource: {} } }), old), [
        'spec.configSource: Invalid value: {}: exactly one reference subfield must be non-nil',
      ]);
    });

    it('warns about deprecated fields', () => {
      assert.deepEqual(strategy.warnings?.(node({ spec: { externalID: 'x' } }), undefined), [
        'spec.externalID: this field is deprecated, and is unused by Kubernetes',
      ]);
    });
  });

  describe('status subresource', () => {
    it('changes only status and drops status.config unless it was there', () => {
      const old = node({ spec: { unschedulable: true }, status: {} });
      const n = node({ spec: { unschedulable: false }, status: { capacity: { cpu: '8' }, config: { error: 'x' } } });
      statusSub?.prepareForUpdate(n, old, ctx);
      assert.deepEqual(n.spec, { unschedulable: true });
      assert.deepEqual(n.status, { capacity: { cpu: '8' } });
    });

    it('rejects duplicate addresses and checks status.config', () => {
      const old = node({ status: { config: { error: 'x' } } });
      const n = node({
        status: {
          addresses: [
            { type: 'InternalIP', address: '10.0.0.1' },
            { type: 'Hostname', address: 'n1' },
            { type: 'InternalIP', address: '10.0.0.1' },
          ],
          config: { active: { configMap: { name: 'c', namespace: 'ns', kubeletConfigKey: 'k' } } },
        },
      });
      statusSub?.prepareForUpdate(n, old, ctx);
      assert.deepEqual(strings(statusSub?.validateUpdate(n, old, ctx)), [
        'status.addresses[2]: Duplicate value: {"type":"InternalIP","address":"10.0.0.1"}',
        'status.config.active.configMap.uid: Required value: uid must be set in status',
        'status.config.active.configMap.resourceVersion: Required value: resourceVersion must be set in status',
      ]);
    });
  });
});
