import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NoRuntime, noRuntimeMessage, noRuntimeReason } from './no-runtime.ts';

describe('NoRuntime', () => {
  it('runs nothing and says so for every container, init containers first', async () => {
    const runtime = new NoRuntime();
    const status = await runtime.syncPod({
      metadata: { name: 'p' },
      spec: { initContainers: [{ name: 'init' }], containers: [{ name: 'app', image: 'app' }] },
    });
    assert.deepEqual(status, {
      sandboxReady: false,
      podIPs: [],
      containers: ['init', 'app'].map((name) => ({
        name,
        state: { waiting: { reason: noRuntimeReason, message: noRuntimeMessage } },
        ready: false,
        started: false,
        restartCount: 0,
        imageID: '',
      })),
    });
    assert.deepEqual(await runtime.status(), { ready: false, reason: 'ContainerRuntimeUnavailable', message: noRuntimeMessage });
    assert.deepEqual(await runtime.listPods(), []);
    await runtime.killPod();
  });
});
