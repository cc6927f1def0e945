import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { componentStatusDefinition, etcdComponentStatus, type ComponentStatus } from './componentstatus.ts';

describe('ComponentStatus', () => {
  it('is a computed, read-only, deprecated core kind', async () => {
    const statuses: ComponentStatus[] = [etcdComponentStatus('etcd-0', true)];
    const def = componentStatusDefinition(async () => statuses);
    assert.equal(def.group, '');
    assert.equal(def.version, 'v1');
    assert.equal(def.plural, 'componentstatuses');
    assert.equal(def.namespaced, false);
    assert.deepEqual(def.shortNames, ['cs']);
    assert.deepEqual(def.verbs, ['get', 'list']);
    assert.equal(def.deprecationWarning, 'v1 ComponentStatus is deprecated in v1.19+');
    assert.equal(await def.computed?.list(), statuses);
  });

  it('reports a healthy etcd member with the message "ok"', () => {
    assert.deepEqual(etcdComponentStatus('etcd-0', true), {
      kind: 'ComponentStatus',
      apiVersion: 'v1',
      metadata: { name: 'etcd-0' },
      conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }],
    });
  });

  it('reports an unhealthy etcd member with only the probe error', () => {
    assert.deepEqual(etcdComponentStatus('etcd-1', false, 'context deadline exceeded').conditions, [
      { type: 'Healthy', status: 'False', error: 'context deadline exceeded' },
    ]);
    assert.deepEqual(etcdComponentStatus('etcd-1', false).conditions, [{ type: 'Healthy', status: 'False' }]);
  });

  it('merges conditions by type', () => {
    const conditions = componentStatusDefinition(async () => []).schema.properties?.conditions;
    assert.equal(conditions?.['x-kubernetes-list-type'], 'map');
    assert.deepEqual(conditions?.['x-kubernetes-list-map-keys'], ['type']);
    assert.deepEqual(conditions?.items?.required, ['type', 'status']);
  });
});
