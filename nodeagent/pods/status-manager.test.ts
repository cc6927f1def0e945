import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conflict, notFound } from '../../shared/api/errors.ts';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingApiClient } from '../../shared/client/testing.ts';
import { NoRuntime } from '../runtime/no-runtime.ts';
import { configMirrorAnnotation, type Pod } from './pod.ts';
import { PodStatusManager } from './status-manager.ts';
import { capturingLogger } from './testing.ts';

const path = '/api/v1/namespaces/default/pods/web';

function setup() {
  const api = new RecordingApiClient();
  const clock = new FakeClock();
  const { logger } = capturingLogger();
  const manager = new PodStatusManager({ api, runtime: new NoRuntime(), clock, logger, hostIPs: () => ['10.0.0.5'] });
  return { api, clock, manager };
}

function web(extra: Partial<Pod['metadata']> = {}, status?: Pod['status']): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1', resourceVersion: '10', ...extra },
    spec: { nodeName: 'node-1', containers: [{ name: 'nginx', image: 'nginx' }] },
    status: status ?? { phase: 'Pending', qosClass: 'BestEffort' },
  };
}

describe('pod status manager', () => {
  it('writes the status once, then only when it changes', async () => {
    const { api, manager, clock } = setup();
    assert.equal(await manager.syncPod(web()), 'written');
    assert.deepEqual(api.writes(), [`UPDATE ${path}/status`]);
    const written = api.actions[0]?.body as Pod;
    assert.equal(written.metadata.resourceVersion, '10');
    assert.equal(written.status?.containerStatuses?.[0]?.state.waiting?.reason, 'ContainerRuntimeUnavailable');

    // The cache has not caught up with our write: no second write.
    clock.step(60_000);
    assert.equal(await manager.syncPod(web()), 'unchanged');
    // The cache now holds our status (the server dropped lastProbeTime: null): still nothing to write.
    const stored = JSON.parse(JSON.stringify(written.status, (k, v) => (k === 'lastProbeTime' ? undefined : v)));
    assert.equal(await manager.syncPod(web({ resourceVersion: '11' }, stored)), 'unchanged');
    // Someone else changed the status: it is put right.
    assert.equal(await manager.syncPod(web({ resourceVersion: '12' }, { ...stored, phase: 'Running' })), 'written');
    assert.equal(api.writes().length, 2);
  });

  it('stops at 404 and re-reads once at 409', async () => {
    const { api, manager } = setup();
    api.react((a) => {
      if (a.verb === 'update') throw notFound({ group: '', resource: 'pods' }, 'web');
      return undefined;
    });
    assert.equal(await manager.syncPod(web()), 'gone');

    const second = setup();
    let updates = 0;
    second.api.react((a) => {
      if (a.verb === 'update' && updates++ === 0) throw conflict({ group: '', resource: 'pods' }, 'web', 'the object has been modified');
      if (a.verb === 'get') return web({ resourceVersion: '11' });
      return undefined;
    });
    assert.equal(await second.manager.syncPod(web()), 'written');
    assert.deepEqual(
      second.api.actions.map((a) => `${a.verb} ${a.path}`),
      [`update ${path}/status`, `get ${path}`, `update ${path}/status`],
    );
    assert.equal((second.api.actions[2]?.body as Pod).metadata.resourceVersion, '11');

    const third = setup();
    third.api.react((a) => {
      if (a.verb === 'update') throw conflict({ group: '', resource: 'pods' }, 'web', 'the object has been modified');
      if (a.verb === 'get') return web({ resourceVersion: '11' });
      return undefined;
    });
    assert.equal(await third.manager.syncPod(web()), 'conflict');

    const fourth = setup();
    fourth.api.react((a) => {
      if (a.verb === 'update') throw conflict({ group: '', resource: 'pods' }, 'web', 'the object has been modified');
      if (a.verb === 'get') return web({ uid: 'uid-2' });
      return undefined;
    });
    assert.equal(await fourth.manager.syncPod(web()), 'gone');
  });

  it('leaves pods in a terminal phase alone', async () => {
    const { api, manager } = setup();
    assert.equal(await manager.syncPod(web({}, { phase: 'Succeeded' })), 'terminal');
    assert.deepEqual(api.writes(), []);
  });

  it('deletes a pod being deleted for good, with a UID precondition; NotFound and Conflict are done', async () => {
    const { api, manager } = setup();
    assert.equal(await manager.syncPod(web({ deletionTimestamp: '2026-01-01T00:00:00Z' })), 'deleted');
    assert.deepEqual(api.writes(), [`DELETE ${path}`]);
    assert.deepEqual(api.actions[0]?.body, { gracePeriodSeconds: 0, preconditions: { uid: 'uid-1' } });

    for (const err of [notFound({ group: '', resource: 'pods' }, 'web'), conflict({ group: '', resource: 'pods' }, 'web', 'Precondition failed')]) {
      const other = setup();
      other.api.react(() => {
        throw err;
      });
      assert.equal(await other.manager.syncPod(web({ deletionTimestamp: '2026-01-01T00:00:00Z' })), 'deleted');
    }
  });

  it('leaves the deletion of mirror pods to the mirror reconciler', async () => {
    const { api, manager } = setup();
    assert.equal(await manager.syncPod(web({ deletionTimestamp: '2026-01-01T00:00:00Z', annotations: { [configMirrorAnnotation]: 'h' } })), 'skipped');
    assert.deepEqual(api.writes(), []);
  });
});
