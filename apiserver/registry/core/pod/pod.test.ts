import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../../shared/api/pod.ts';
import { podDefinition, podGracePeriod } from './pod.ts';
import { podRow, podTable } from './table.ts';

const ctx = { user: { username: 'tester', groups: [] }, now: new Date('2024-01-01T00:00:00Z') };
const strategy = podDefinition.strategy;
const statusSub = podDefinition.subresources?.status;
const pod = (fields: Partial<Pod> = {}): Pod => ({
  metadata: { name: 'web', namespace: 'default', creationTimestamp: '2023-12-31T23:00:00Z' },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  ...fields,
});

describe('podDefinition', () => {
  it('serves v1 pods, short name po, in category all, with status, answering DELETE with the pod', () => {
    assert.equal(podDefinition.plural, 'pods');
    assert.deepEqual(podDefinition.shortNames, ['po']);
    assert.deepEqual(podDefinition.categories, ['all']);
    assert.equal(podDefinition.namespaced, true);
    assert.equal(podDefinition.deleteReturnsObject, true);
    assert.deepEqual(statusSub?.verbs, ['get', 'update', 'patch']);
  });

  it('defaults on create and replaces status with Pending and the QoS class', () => {
    const p = pod({ status: { phase: 'Running', podIP: '10.0.0.1' } });
    p.spec!.containers![0]!.resources = { limits: { cpu: '1', memory: '1Gi' } };
    strategy.prepareForCreate?.(p, ctx);
    assert.deepEqual(p.status, { phase: 'Pending', qosClass: 'Guaranteed' });
    assert.equal(p.spec?.restartPolicy, 'Always');
    assert.deepEqual(strategy.validate(p, ctx), []);
  });

  it('marks a gated pod as SchedulingGated', () => {
    const p = pod();
    p.spec!.schedulingGates = [{ name: 'example.com/wait' }];
    strategy.prepareForCreate?.(p, ctx);
    assert.deepEqual(p.status?.conditions, [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
        lastProbeTime: null,
        lastTransitionTime: null,
      },
    ]);
    assert.equal(podRow(p, ctx.now).reason, 'SchedulingGated');
  });

  it('keeps status on update, and spec, owner references and the QoS class on status writes', () => {
    const old = pod({ status: { phase: 'Running', qosClass: 'BestEffort' } });
    old.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u', controller: true }];
    const main = pod({ status: { phase: 'Failed' } });
    strategy.prepareForUpdate?.(main, old, ctx);
    assert.deepEqual(main.status, old.status);
    const status = pod({ spec: { containers: [{ name: 'other', image: 'x' }] }, status: { phase: 'Succeeded' } });
    statusSub?.prepareForUpdate(status, old, ctx);
    assert.deepEqual(status.spec, old.spec);
    assert.deepEqual(status.metadata.ownerReferences, old.metadata.ownerReferences);
    assert.deepEqual(status.status, { phase: 'Succeeded', qosClass: 'BestEffort' });
  });

  it('selects by the fields upstream supports', () => {
    const p = pod({ spec: { nodeName: 'n1', restartPolicy: 'Never', schedulerName: 's', serviceAccountName: 'sa', hostNetwork: true, containers: [] } });
    p.status = { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }], nominatedNodeName: 'n2' };
    const read = (field: string): string | undefined => podDefinition.fieldSelectors?.[field]?.(p);
    assert.deepEqual(
      [
        'spec.nodeName',
        'spec.host',
        'spec.restartPolicy',
        'spec.schedulerName',
        'spec.serviceAccountName',
        'spec.hostNetwork',
        'status.phase',
        'status.podIP',
        'status.podIPs',
        'status.nominatedNodeName',
      ].map(read),
      ['n1', 'n1', 'Never', 's', 'sa', 'true', 'Running', '10.0.0.1', '', 'n2'],
    );
  });

  it('gives bound, running pods a grace period, others none', () => {
    const bound = pod({ spec: { nodeName: 'n1', terminationGracePeriodSeconds: 45, containers: [] } });
    assert.equal(podGracePeriod(bound, undefined), 45);
    assert.equal(podGracePeriod(bound, 5), 5);
    assert.equal(podGracePeriod(bound, -3), 1);
    assert.equal(podGracePeriod(pod(), 30), 0, 'unbound');
    assert.equal(podGracePeriod({ ...bound, status: { phase: 'Succeeded' } }, 30), 0, 'terminal');
  });
});

describe('podTable', () => {
  const cells = (p: Pod): unknown[] => podTable.cells(p, ctx.now);
  it('prints a pending pod like upstream, wide columns included', () => {
    assert.deepEqual(
      podTable.columns.map((c) => c.name),
      ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates'],
    );
    assert.deepEqual(cells(pod({ status: { phase: 'Pending' } })), ['web', '0/1', 'Pending', '0', '60m', '<none>', '<none>', '<none>', '<none>']);
  });

  it('shows container reasons, restarts, readiness gates and Terminating', () => {
    const p = pod({
      spec: { nodeName: 'n1', readinessGates: [{ conditionType: 'example.com/ready' }], containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.5' }],
        conditions: [{ type: 'example.com/ready', status: 'True' }],
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 0, state: { running: {} } },
          {
            name: 'b',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, finishedAt: '2023-12-31T23:58:00Z' } },
          },
        ],
      },
    });
    assert.deepEqual(cells(p), ['web', '1/2', 'CrashLoopBackOff', '3 (2m ago)', '60m', '10.0.0.5', 'n1', '<none>', '1/1']);
    p.metadata.deletionTimestamp = '2024-01-01T00:00:30Z';
    assert.equal(podRow(p, ctx.now).reason, 'Terminating');
  });

  it('shows init container progress and failures', () => {
    const p = pod({
      spec: { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'i1', state: { terminated: { exitCode: 0 } } },
          { name: 'i2', state: { running: {} } },
        ],
      },
    });
    assert.equal(podRow(p, ctx.now).reason, 'Init:1/2');
    p.status!.initContainerStatuses![1] = { name: 'i2', state: { terminated: { exitCode: 2 } } };
    assert.equal(podRow(p, ctx.now).reason, 'Init:ExitCode:2');
    p.status = { phase: 'Succeeded', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] };
    assert.equal(podRow(p, ctx.now).reason, 'Completed');
  });
});
