import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../../../shared/api/field.ts';
import type { RequestContext } from '../definition.ts';
import { clusterCIDRDefinition, type ClusterCIDR, type ClusterCIDRSpec } from './clustercidr.ts';

const ctx: RequestContext = { user: { username: 'admin', groups: [] }, now: new Date('2024-05-06T07:08:09Z') };
const strategy = clusterCIDRDefinition.strategy;
const messages = (errs: ReturnType<typeof strategy.validate>): string[] => errs.map(fieldErrorString);

function cidr(spec: ClusterCIDRSpec): ClusterCIDR {
  return { apiVersion: 'networking.k8s.io/v1alpha1', kind: 'ClusterCIDR', metadata: { name: 'pool-a' }, spec };
}

describe('ClusterCIDR', () => {
  it('is an alpha kind, off by default, named by DNS labels', () => {
    assert.equal(clusterCIDRDefinition.version, 'v1alpha1');
    assert.equal(clusterCIDRDefinition.enabledByDefault, false);
    assert.deepEqual(clusterCIDRDefinition.nameRule?.('a.b', false), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(clusterCIDRDefinition.schema.properties?.spec?.required, ['perNodeHostBits']);
    assert.equal(clusterCIDRDefinition.schema.properties?.spec?.properties?.perNodeHostBits?.format, 'int32');
  });

  it('accepts dual-stack and single-stack pools', () => {
    assert.deepEqual(strategy.validate(cidr({ perNodeHostBits: 8, ipv4: '10.0.0.0/8', ipv6: 'fd00::/48' }), ctx), []);
    assert.deepEqual(strategy.validate(cidr({ perNodeHostBits: 4, ipv6: 'fd00::/64' }), ctx), []);
    // Go's sloppy parser accepts leading zeros in IPv4 octets.
    assert.deepEqual(strategy.validate(cidr({ perNodeHostBits: 8, ipv4: '010.0.0.0/8' }), ctx), []);
  });

  it('requires at least one of ipv4 and ipv6', () => {
    assert.deepEqual(messages(strategy.validate(cidr({ perNodeHostBits: 8 }), ctx)), [
      'spec: Required value: one or both of `ipv4` and `ipv6` must be specified',
    ]);
  });

  it('checks each CIDR against its family', () => {
    assert.deepEqual(messages(strategy.validate(cidr({ perNodeHostBits: 8, ipv4: '10.0.0.0' }), ctx)), [
      'spec.ipv4: Invalid value: "10.0.0.0": must be a valid CIDR: 10.0.0.0',
    ]);
    assert.deepEqual(messages(strategy.validate(cidr({ perNodeHostBits: 8, ipv4: 'fd00::/64' }), ctx)), [
      'spec.ipv4: Invalid value: "fd00::/64": must be a valid IPv4 CIDR',
      'spec.perNodeHostBits: Invalid value: 8: must be less than or equal to -32',
    ]);
    assert.deepEqual(messages(strategy.validate(cidr({ perNodeHostBits: 8, ipv6: '10.0.0.0/8' }), ctx)), [
      'spec.ipv6: Invalid value: "10.0.0.0/8": must be a valid IPv6 CIDR',
    ]);
  });

  it('bounds perNodeHostBits by 4 and by the host bits of each CIDR', () => {
    assert.deepEqual(messages(strategy.validate(cidr({ perNodeHostBits: 3, ipv4: '10.0.0.0/8' }), ctx)), [
      'spec.perNodeHostBits: Invalid value: 3: must be greater than or equal to 4',
    ]);
    assert.deepEqual(messages(strategy.validate(cidr({ perNodeHostBits: 9, ipv4: '10.0.0.0/24', ipv6: 'fd00::/120' }), ctx)), [
      'spec.perNodeHostBits: Invalid value: 9: must be less than or equal to 8',
      'spec.perNodeHostBits: Invalid value: 9: must be less than or equal to 8',
    ]);
    assert.deepEqual(messages(strategy.validate(cidr({ ipv4: '10.0.0.0/8' }), ctx)), [
      'spec.perNodeHostBits: Invalid value: 0: must be greater than or equal to 4',
    ]);
  });

  it('validates the node selector at spec.nodeSelector', () => {
    const base = { perNodeHostBits: 8, ipv4: '10.0.0.0/8' };
    assert.deepEqual(messages(strategy.validate(cidr({ ...base, nodeSelector: { nodeSelectorTerms: [] } }), ctx)), [
      'spec.nodeSelector.nodeSelectorTerms: Required value: must have at least one node selector term',
    ]);
  });

  it('makes the whole spec immutable', () => {
    const old = cidr({ perNodeHostBits: 8, ipv4: '10.0.0.0/8' });
    assert.deepEqual(strategy.validateUpdate?.(cidr({ perNodeHostBits: 8, ipv4: '10.0.0.0/8' }), old, ctx), []);
    const update = cidr({ perNodeHostBits: 6, ipv4: '10.1.0.0/16', ipv6: 'fd00::/64', nodeSelector: { nodeSelectorTerms: [{}] } });
    assert.deepEqual(messages(strategy.validateUpdate?.(update, old, ctx) ?? []), [
      'spec.nodeSelector: Invalid value: {"nodeSelectorTerms":[{}]}: field is immutable',
      'spec.perNodeHostBits: Invalid value: 6: field is immutable',
      'spec.ipv4: Invalid value: "10.1.0.0/16": field is immutable',
      'spec.ipv6: Invalid value: "fd00::/64": field is immutable',
    ]);
  });
});
