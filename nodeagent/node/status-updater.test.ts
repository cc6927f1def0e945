import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { notFound } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingApiClient, settle } from '../../shared/client/testing.ts';
import { formatTimeOf } from '../../shared/go/time.ts';
import { NodeStatusUpdater, type StatusUpdaterOptions } from './status-updater.ts';
import type { NodeCondition, NodeStatus } from './status.ts';

const logger = pino({ level: 'silent' });
const statusPath = '/api/v1/nodes/node-1/status';
const updateFrequencyMs = 10_000;
const reportFrequencyMs = 300_000;

interface Harness {
  clock: FakeClock;
  api: RecordingApiClient;
  updater: NodeStatusUpdater;
  /** What the host looks like: memory pressure or not. */
  host: { pressure: boolean };
  /** The `previous` conditions each compute was given. */
  previous: Array<readonly NodeCondition[]>;
  reregistered: () => number;
  /** The status the host gives now (what the agent computes at registration). */
  compute: (before: readonly NodeCondition[]) => NodeStatus;
}

/** A status whose only condition carries the clock's time as its heartbeat. */
function harness(overrides: Partial<StatusUpdaterOptions> = {}): Harness {
  const clock = new FakeClock();
  const api = new RecordingApiClient();
  const host = { pressure: false };
  const previous: Array<readonly NodeCondition[]> = [];
  let reregistrations = 0;
  const compute = (before: readonly NodeCondition[]): NodeStatus => {
    previous.push(before);
    const stamp = formatTimeOf(new Date(clock.now()));
    const status = host.pressure ? 'True' : 'False';
    const kept = before.find((c) => c.type === 'MemoryPressure' && c.status === status);
    return {
      capacity: { memory: '8Gi' },
      allocatable: { memory: '7Gi' },
      conditions: [
        {
          type: 'MemoryPressure',
          status,
          lastHeartbeatTime: stamp,
          lastTransitionTime: kept?.lastTransitionTime ?? stamp,
          reason: host.pressure ? 'KubeletHasInsufficientMemory' : 'KubeletHasSufficientMemory',
          message: '',
        },
      ],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {},
    };
  };
  const updater = new NodeStatusUpdater({
    api,
    nodeName: 'node-1',
    clock,
    logger,
    updateFrequencyMs,
    reportFrequencyMs,
    random: () => 0,
    compute,
    reregister: () => {
      reregistrations++;
      return Promise.resolve({ node: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'uid-2' } } });
    },
    ...overrides,
  });
  return { clock, api, updater, host, previous, reregistered: () => reregistrations, compute };
}

describe('NodeStatusUpdater.sync', () => {
  it('writes the status the first time, by a strategic merge patch of nodes/<name>/status', async () => {
    const { api, updater } = harness();
    assert.equal(await updater.sync(), true);
    assert.deepEqual(api.writes(), [`PATCH ${statusPath}`]);
    const action = api.actions[0];
    assert.equal(action?.patchType, 'strategic');
    const body = action?.body as { status: NodeStatus };
    assert.deepEqual(Object.keys(body), ['status']);
    assert.equal(body.status.conditions[0]?.lastHeartbeatTime, '2026-01-01T00:00:00Z');
    assert.deepEqual(updater.lastReported, body.status);
  });

  it('does not write again while nothing changed and the report is not due', async () => {
    const { api, clock, updater } = harness();
    await updater.sync();
    for (let i = 0; i < 29; i++) {
      clock.step(updateFrequencyMs);
      assert.equal(await updater.sync(), false);
    }
    assert.equal(api.actions.length, 1);
  });

  it('writes as soon as the status changes, carrying over the conditions last written', async () => {
    const { api, clock, updater, host, previous } = harness();
    await updater.sync();
    clock.step(updateFrequencyMs);
    host.pressure = true;
    assert.equal(await updater.sync(), true);
    assert.equal(api.actions.length, 2);
    assert.equal((api.actions[1]?.body as { status: NodeStatus }).status.conditions[0]?.status, 'True');
    assert.equal(previous[1]?.[0]?.status, 'False');
    clock.step(updateFrequencyMs);
    assert.equal(await updater.sync(), false);
    assert.equal(previous[2]?.[0]?.status, 'True');
  });

  it('writes an unchanged status again once nodeStatusReportFrequency has passed', async () => {
    const { api, clock, updater } = harness();
    await updater.sync();
    clock.step(reportFrequencyMs - 1);
    assert.equal(await updater.sync(), false);
    clock.step(1);
    assert.equal(await updater.sync(), true);
    assert.equal(api.actions.length, 2);
    assert.equal((api.actions[1]?.body as { status: NodeStatus }).status.conditions[0]?.lastHeartbeatTime, '2026-01-01T00:05:00Z');
    // The next report is due a full period after this one.
    clock.step(reportFrequencyMs - 1);
    assert.equal(await updater.sync(), false);
  });

  it('hands on the Node each write returns (the addresses the serving certificate names come from it)', async () => {
    const written: KubeObject[] = [];
    const { api, updater } = harness({ written: (node) => written.push(node) });
    const answer: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1' },
      status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
    };
    api.react((action) => (action.verb === 'patch' ? answer : undefined));
    await updater.sync();
    assert.deepEqual(written, [answer]);
  });

  it('registers a deleted Node again and then writes its status', async () => {
    const { api, updater, reregistered } = harness();
    let deleted = true;
    api.react((action) => {
      if (action.verb === 'patch' && deleted) {
        deleted = false;
        throw notFound({ group: '', resource: 'nodes' }, 'node-1');
      }
      return undefined;
    });
    assert.equal(await updater.sync(), true);
    assert.equal(reregistered(), 1);
    assert.deepEqual(api.writes(), [`PATCH ${statusPath}`, `PATCH ${statusPath}`]);
    assert.deepEqual(api.actions[0]?.body, api.actions[1]?.body);
    assert.ok(updater.lastReported);
  });

  it('writes nothing more for a deleted Node that its registration created again with its status', async () => {
    let createdWith: NodeStatus | undefined;
    const { api, updater, compute } = harness({
      reregister: () => {
        createdWith = compute([]);
        return Promise.resolve({ node: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'uid-2' } }, createdWith });
      },
    });
    api.react((action) => {
      if (action.verb === 'patch') throw notFound({ group: '', resource: 'nodes' }, 'node-1');
      return undefined;
    });
    assert.equal(await updater.sync(), true);
    assert.deepEqual(api.writes(), [`PATCH ${statusPath}`], 'the failed patch alone');
    assert.ok(createdWith);
    assert.equal(updater.lastReported, createdWith);
  });

  it('passes other errors on and writes again at the next tick', async () => {
    const { api, clock, updater, reregistered } = harness();
    let failing = true;
    api.react((action) => {
      if (action.verb === 'patch' && failing) throw new Error('connection refused');
      return undefined;
    });
    await assert.rejects(updater.sync(), { message: 'connection refused' });
    assert.equal(reregistered(), 0);
    failing = false;
    clock.step(updateFrequencyMs);
    assert.equal(await updater.sync(), true);
    assert.equal(api.actions.length, 2);
  });

  it('starts from the conditions of the Node as registered and writes at once', async () => {
    const { api, updater, previous } = harness();
    const registered: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1' },
      status: {
        conditions: [
          {
            type: 'MemoryPressure',
            status: 'False',
            lastHeartbeatTime: '2025-12-31T00:00:00Z',
            lastTransitionTime: '2025-12-01T00:00:00Z',
            reason: 'KubeletHasSufficientMemory',
            message: '',
          },
        ],
      },
    };
    updater.seed({ node: registered });
    assert.equal(await updater.sync(), true);
    assert.equal(previous[0]?.[0]?.lastTransitionTime, '2025-12-01T00:00:00Z');
    assert.equal((api.actions[0]?.body as { status: NodeStatus }).status.conditions[0]?.lastTransitionTime, '2025-12-01T00:00:00Z');
  });
});

describe('NodeStatusUpdater.seed', () => {
  it('counts the status a Node was created with as reported then: nothing is written until it changes or the report is due', async () => {
    const { api, clock, updater, host, compute } = harness();
    updater.seed({ node: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } }, createdWith: compute([]) });
    assert.equal(await updater.sync(), false, 'the create carried the status');
    clock.step(updateFrequencyMs);
    assert.equal(await updater.sync(), false);
    host.pressure = true;
    clock.step(updateFrequencyMs);
    assert.equal(await updater.sync(), true, 'a change is written');
    assert.deepEqual(api.writes(), [`PATCH ${statusPath}`]);
  });

  it('writes at the first sync for a Node that existed, whatever status it carries', async () => {
    const { api, updater } = harness();
    updater.seed({ node: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { conditions: [] } } });
    assert.equal(await updater.sync(), true);
    assert.deepEqual(api.writes(), [`PATCH ${statusPath}`]);
  });
});

describe('NodeStatusUpdater.run', () => {
  it('syncs every nodeStatusUpdateFrequency and keeps going after a failure', async () => {
    const { api, clock, updater, host } = harness();
    let failures = 1;
    api.react((action) => {
      if (action.verb === 'patch' && failures-- > 0) throw new Error('connection refused');
      return undefined;
    });
    const controller = new AbortController();
    const done = updater.run(controller.signal);
    await settle();
    assert.equal(api.actions.length, 1);
    clock.step(updateFrequencyMs);
    await settle();
    assert.equal(api.actions.length, 2);
    clock.step(updateFrequencyMs);
    await settle();
    assert.equal(api.actions.length, 2);
    host.pressure = true;
    clock.step(updateFrequencyMs);
    await settle();
    assert.equal(api.actions.length, 3);
    controller.abort();
    await done;
  });

  it('waits between syncs nodeStatusUpdateFrequency stretched by up to 4 % at random, as the kubelet', async () => {
    const draws = [1, 0.25];
    const { api, clock, updater, host } = harness({ random: () => draws.shift() ?? 0 });
    const start = clock.now();
    const syncs: number[] = [];
    api.react((action) => {
      if (action.verb === 'patch') syncs.push(clock.now() - start);
      return undefined;
    });
    const controller = new AbortController();
    const done = updater.run(controller.signal);
    await settle();
    host.pressure = true;
    clock.step(updateFrequencyMs + 399);
    await settle();
    assert.deepEqual(syncs, [0], 'not before 10.4 s');
    clock.step(1);
    await settle();
    host.pressure = false;
    clock.step(updateFrequencyMs + 100);
    await settle();
    assert.deepEqual(syncs, [0, 10_400, 20_500]);
    controller.abort();
    await done;
  });
});
