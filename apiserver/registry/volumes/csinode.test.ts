import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../../../shared/api/field.ts';
import type { RequestContext } from '../definition.ts';
import { csiNodeDefinition, type CSINode, type CSINodeDriver } from './csinode.ts';

const ctx: RequestContext = { user: { username: 'system:node:n1', groups: ['system:nodes'] }, now: new Date('2024-05-06T07:08:09Z') };
const strategy = csiNodeDefinition.strategy;

const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function node(...drivers: CSINodeDriver[]): CSINode {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'n1' }, spec: { drivers } };
}

const good: CSINodeDriver = { name: 'ebs.csi.aws.com', nodeID: 'i-123', topologyKeys: ['topology.ebs.csi.aws.com/zone'], allocatable: { count: 25 } };
const messages = (errs: ReturnType<typeof strategy.validate>): string[] => errs.map(fieldErrorString);

describe('CSINode', () => {
  it('accepts valid drivers and an empty driver list', () => {
    assert.deepEqual(strategy.validate(node(good, { name: 'other.example.com', nodeID: 'x' }), ctx), []);
    assert.deepEqual(strategy.validate(node(), ctx), []);
  });

  it('checks driver names as CSI driver names', () => {
    assert.deepEqual(messages(strategy.validate(node({ ...good, name: '' }), ctx)), [
      'spec.drivers[0].name: Required value',
      `spec.drivers[0].name: Invalid value: "": ${subdomainMessage}`,
    ]);
    const long = `${'a'.repeat(64)}.com`;
    assert.deepEqual(messages(strategy.validate(node({ ...good, name: long }), ctx)), ['spec.drivers[0].name: Too long: may not be more than 63 bytes']);
    // Upper case is tolerated: the name is checked lower-cased.
    assert.deepEqual(strategy.validate(node({ ...good, name: 'CSI.Example.COM' }), ctx), []);
    assert.deepEqual(messages(strategy.validate(node({ ...good, name: 'bad_name' }), ctx)), [
      `spec.drivers[0].name: Invalid value: "bad_name": ${subdomainMessage}`,
    ]);
  });

  it('requires a node ID of at most 256 bytes', () => {
    assert.deepEqual(messages(strategy.validate(node({ name: 'a.b', nodeID: '' }), ctx)), ['spec.drivers[0].nodeID: Required value']);
    assert.deepEqual(strategy.validate(node({ name: 'a.b', nodeID: 'x'.repeat(256) }), ctx), []);
    const tooLong = 'x'.repeat(257);
    assert.deepEqual(messages(strategy.validate(node({ name: 'a.b', nodeID: tooLong }), ctx)), [
      `spec.drivers[0].nodeID: Invalid value: "${tooLong}": must be 256 characters or less`,
    ]);
  });

  it('rejects a negative allocatable count and duplicate driver names', () => {
    assert.deepEqual(messages(strategy.validate(node(good, { ...good, allocatable: { count: -1 } }), ctx)), [
      'spec.drivers[1].allocatable.count: Invalid value: -1: must be greater than or equal to 0',
      'spec.drivers[1].name: Duplicate value: "ebs.csi.aws.com"',
    ]);
  });

  it('reports topology key problems on the driver entry', () => {
    const errs = messages(strategy.validate(node({ ...good, topologyKeys: ['zone', 'zone', 'a/b/c', ''] }), ctx));
    assert.deepEqual(errs.slice(0, 3), [
      'spec.drivers[0]: Duplicate value: "zone"',
      `spec.drivers[0]: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      'spec.drivers[0]: Required value',
    ]);
    assert.ok(errs.slice(3).every((e) => e.startsWith('spec.drivers[0]: Invalid value: "": name part ')));
  });

  it('keeps existing driver entries immutable but allows adding and removing drivers', () => {
    const old = node(good);
    assert.deepEqual(strategy.validateUpdate?.(node(good, { name: 'new.example.com', nodeID: 'n' }), old, ctx), []);
    assert.deepEqual(strategy.validateUpdate?.(node({ name: 'new.example.com', nodeID: 'n' }), old, ctx), []);
    // A missing and an empty topology key list are the same to upstream.
    const sameKeys = node({ name: 'a.b', nodeID: 'n' });
    assert.deepEqual(strategy.validateUpdate?.(node({ name: 'a.b', nodeID: 'n', topologyKeys: [] }), sameKeys, ctx), []);

    const changed = { ...good, nodeID: 'i-456' };
    assert.deepEqual(messages(strategy.validateUpdate?.(node(changed), old, ctx) ?? []), [
      `spec.drivers: Invalid value: ${JSON.stringify(changed)}: field is immutable`,
    ]);
    assert.equal(strategy.validateUpdate?.(node({ ...good, allocatable: { count: 30 } }), old, ctx).length, 1);
  });

  it('reports each problem twice on update, as upstream validates the new object twice', () => {
    const old = node(good);
    assert.deepEqual(messages(strategy.validateUpdate?.(node(good, { name: 'x.y', nodeID: '' }), old, ctx) ?? []), [
      'spec.drivers[1].nodeID: Required value',
      'spec.drivers[1].nodeID: Required value',
    ]);
  });

  it('merges drivers by name and requires name and nodeID', () => {
    const drivers = csiNodeDefinition.schema.properties?.spec?.properties?.drivers;
    assert.equal(drivers?.['x-kubernetes-list-type'], 'map');
    assert.deepEqual(drivers?.['x-kubernetes-list-map-keys'], ['name']);
    assert.equal(drivers?.['x-kubernetes-patch-merge-key'], 'name');
    assert.deepEqual(drivers?.items?.required, ['name', 'nodeID']);
    assert.equal(drivers?.items?.properties?.topologyKeys?.['x-kubernetes-list-type'], 'atomic');
    assert.equal(drivers?.items?.properties?.allocatable?.properties?.count?.format, 'int32');
    assert.deepEqual(csiNodeDefinition.schema.properties?.spec?.required, ['drivers']);
    assert.equal(csiNodeDefinition.deleteReturnsObject, true);
  });
});
