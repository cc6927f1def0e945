import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NoRuntime, noRuntimeMessage, noRuntimeReason } from '../runtime/no-runtime.ts';
import type { Pod } from './pod.ts';
import { generatePodStatus, podPhase } from './status.ts';

const now = Date.parse('2026-01-01T00:00:00Z');
const later = now + 60_000;
const waiting = { waiting: { reason: noRuntimeReason, message: noRuntimeMessage } };

function pod(spec: Pod['spec'], status?: Pod['status']): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec, ...(status ? { status } : {}) };
}

async function statusOf(p: Pod, at = now, hostIPs = ['10.0.0.5', 'fd00::5']) {
  return generatePodStatus({ pod: p, runtime: await new NoRuntime().syncPod(p), hostIPs, now: at });
}

describe('pod status without a container runtime', () => {
  it('is Pending with every container waiting for a runtime, and says which are unready', async () => {
    const status = await statusOf(
      pod(
        {
          containers: [
            { name: 'web', image: 'nginx' },
            { name: 'app', image: 'app:1' },
          ],
        },
        { qosClass: 'BestEffort' },
      ),
    );
    const t = '2026-01-01T00:00:00Z';
    assert.deepEqual(status, {
      qosClass: 'BestEffort',
      phase: 'Pending',
      conditions: [
        { type: 'PodReadyToStartContainers', status: 'False', lastProbeTime: null, lastTransitionTime: t },
        { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: t },
        {
          type: 'Ready',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: t,
          reason: 'ContainersNotReady',
          message: 'containers with unready status: [web app]',
        },
        {
          type: 'ContainersReady',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: t,
          reason: 'ContainersNotReady',
          message: 'containers with unready status: [web app]',
        },
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: t },
      ],
      hostIP: '10.0.0.5',
      hostIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }],
      startTime: t,
      containerStatuses: [
        { image: 'app:1', imageID: '', lastState: {}, name: 'app', ready: false, restartCount: 0, started: false, state: waiting },
        { image: 'nginx', imageID: '', lastState: {}, name: 'web', ready: false, restartCount: 0, started: false, state: waiting },
      ],
    });
  });

  it('is not Initialized while init containers have not completed', async () => {
    const status = await statusOf(pod({ initContainers: [{ name: 'setup', image: 'busybox' }], containers: [{ name: 'web', image: 'nginx' }] }));
    const initialized = status.conditions?.find((c) => c.type === 'Initialized');
    assert.deepEqual(
      { status: initialized?.status, reason: initialized?.reason, message: initialized?.message },
      { status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [setup]' },
    );
    assert.deepEqual(
      status.initContainerStatuses?.map((s) => [s.name, s.state]),
      [['setup', waiting]],
    );
  });

  it('keeps startTime, foreign conditions and unchanged transition times; gives hostNetwork pods the node IPs', async () => {
    const first = await statusOf(pod({ hostNetwork: true, containers: [{ name: 'c', image: 'i' }] }));
    assert.equal(first.podIP, '10.0.0.5');
    const custom = { type: 'example.com/Gate', status: 'True' as const, lastTransitionTime: '2025-01-01T00:00:00Z' };
    const second = await statusOf(
      pod({ hostNetwork: true, containers: [{ name: 'c', image: 'i' }] }, { ...first, conditions: [custom, ...(first.conditions ?? [])] }),
      later,
    );
    assert.equal(second.startTime, '2026-01-01T00:00:00Z');
    assert.deepEqual(second.conditions?.[0], custom);
    assert.ok(second.conditions?.slice(1).every((c) => c.lastTransitionTime === '2026-01-01T00:00:00Z'));
  });

  it('computes the phase from what a runtime reports', () => {
    const s = (name: string, state: object) => ({ name, state, lastState: {}, ready: false, restartCount: 0, image: '', imageID: '' });
    const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
    assert.equal(podPhase(spec, [], [s('a', { running: {} }), s('b', { waiting: {} })]), 'Running');
    assert.equal(
      podPhase({ ...spec, restartPolicy: 'Never' }, [], [s('a', { terminated: { exitCode: 0 } }), s('b', { terminated: { exitCode: 1 } })]),
      'Failed',
    );
    assert.equal(
      podPhase({ ...spec, restartPolicy: 'OnFailure' }, [], [s('a', { terminated: { exitCode: 0 } }), s('b', { terminated: { exitCode: 0 } })]),
      'Succeeded',
    );
    assert.equal(
      podPhase({ ...spec, initContainers: [{ name: 'i' }] }, [s('i', { waiting: {} })], [s('a', { waiting: {} }), s('b', { waiting: {} })]),
      'Pending',
    );
  });
});
